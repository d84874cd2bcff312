// Whether this pass writes the group's status now or withholds it, pure. The group's status is a summary
// of its queue: writing it on every pass (1.1 writes per request under load) buys nothing a reader can
// see, so it is written at most once per `groupStatusIntervalMs` (per group). A withheld write is not
// lost: the group asks for a pass when the interval is over, and the summary decided then is written.
// The group's Events go with its status (they tell the condition it writes).
import type { GroupSnapshot } from "../snapshot.js";

/** How long the group's status write must wait after the one last written: 0 when it may be written now. */
export function groupStatusWaitMs(s: GroupSnapshot): number {
  const last = s.groupStatusWrittenMs;
  return last === undefined ? 0 : Math.max(0, last + s.config.groupStatusIntervalMs - s.nowMs);
}
