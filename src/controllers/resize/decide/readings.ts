// Small readings of the snapshot that the steps of decide() share: a timestamp in milliseconds,
// whether the target is all ready, whether a request is to be cancelled and why, whether it is final,
// the snapshot's time as a timestamp.
import { isFinalState } from "../../../api/lifecycle.js";
import type { ResizeRequestStatus } from "../../../api/resize-request.js";
import { rfc3339 } from "../../../api/time.js";
import type { RequestView } from "../../../cache/request-view.js";
import type { TargetView } from "../../../targets/view.js";
import type { GroupSnapshot } from "../snapshot.js";

export const ms = (timestamp: string | undefined): number =>
  timestamp === undefined ? 0 : Date.parse(timestamp);

export function ready(target: TargetView & { found: true }): boolean {
  return (
    target.settled !== false &&
    target.readinessUnavailable === undefined &&
    target.readyReplicas >= target.replicas
  );
}

export function wantsCancel(r: RequestView): boolean {
  return r.spec.cancel || r.deleting;
}

export function cancelled(d: RequestView): string {
  return d.deleting ? "The request was deleted while active." : "spec.cancel was set.";
}

export const isFinal = (status: ResizeRequestStatus): boolean => isFinalState(status.state);

/** The snapshot's time as an RFC 3339 timestamp (api/time.ts), for the fields a step stamps. */
export const nowOf = (s: GroupSnapshot): string => rfc3339(s.nowMs);
