// Which requests a group's reconcile pass must see. A pass's cost follows this set, not the group's
// history: active requests, plus finished ones that still need something from the controller. Every
// other finished request would come out of decide() unchanged (the matrix test checks exactly that),
// so the informer indexes requests by this predicate (IN_PLAY_BY_GROUP, indexes.ts) and the pass reads
// only the index.
import { ResizeRequestCondition as RC } from "../api/conditions.js";
import { isFinalState } from "../api/lifecycle.js";
import type { RequestView } from "./request-view.js";

export function inPlay(r: RequestView): boolean {
  const status = r.status;
  if (!isFinalState(status.state)) return true;
  // A finished request keeps no finalizer; one left behind (a pass cut short) is removed.
  if (r.hasFinalizer) return true;
  // A late cancel (spec.cancel is the only spec field that can change) is refused once, in writing.
  if (r.spec.cancel && status.state !== "CANCELLED") {
    const refused = status.conditions?.some((c) => c.type === RC.Cancelled && c.reason === "CancelRefused");
    if (!refused) return true;
  }
  // A run-duration release that is due later, under way, or due now.
  return status.state === "SUCCEEDED" && status.runUntil !== undefined && status.release?.phase !== "Applied";
}
