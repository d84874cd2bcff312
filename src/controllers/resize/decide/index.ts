// The reconcile decision for one group, as a pure function: observed state in, desired request
// statuses, finalizer changes, at most one scale change, the group's status and events out.
//
// Crash safety rests on one rule: a scale change is first recorded on its request's status, and only
// then applied with an absolute replica count (see attempt.ts). Applying an absolute value twice is
// harmless, so no change is ever applied twice or lost. While a recorded change is unresolved, no other
// change starts: the steps below pass that along in a `Turn` (pass.ts).
import type { InstanceGroupManagerStatus } from "../../../api/instance-group-manager.js";
import { fifo } from "../../../api/lifecycle.js";
import type { DecideConfig, GroupSnapshot } from "../snapshot.js";
import { stepAttempt } from "./attempt.js";
import { RequestDraft, stampIdentity } from "./draft.js";
import { groupEvents, groupStatus } from "./group-status.js";
import { handOverOrdinals } from "./handover.js";
import { targetPatchOf } from "./instances.js";
import { rfc3339 } from "../../../api/time.js";
import { FIRST_TURN, isFinal, wake, type Pass } from "./pass.js";
import type { Plan, RequestChange } from "./plan.js";
import { walkQueue } from "./queue.js";
import { stepFinal, stepRelease } from "./release.js";

export type { Plan, PlannedEvent, PlannedGroupEvent, RequestChange, ScaleChange } from "./plan.js";
export { backoffMs } from "./attempt.js";
export { sameData } from "./draft.js";

/** Its attempt ended this round and it is not final: it waits in the queue again, in its FIFO place. */
const backInQueue = (d: RequestDraft): boolean => d.status.provisioning === undefined && !isFinal(d.status);

export function decide(
  s: GroupSnapshot,
  cfg: DecideConfig,
  previousGroupStatus?: InstanceGroupManagerStatus,
): Plan {
  const pass: Pass = { s, cfg, now: rfc3339(s.nowMs) };
  const drafts = [...s.requests].sort(fifo).map((r) => new RequestDraft(r, pass.now));
  for (const d of drafts) stampIdentity(d, pass);
  let turn = FIRST_TURN;

  // 1. Unresolved recorded changes first: they block everything else in the group. A request whose
  // attempt ended this round without a final state is back in the queue (in its FIFO place), and is
  // walked with the queue in step 3.
  const handled = new Set<RequestDraft>();
  for (const d of drafts) {
    if (d.status.provisioning === undefined) continue;
    turn = stepAttempt(d, pass, turn);
    if (!backInQueue(d)) handled.add(d);
  }
  for (const d of drafts)
    if (!handled.has(d) && d.status.release?.phase === "Applying") turn = stepRelease(d, pass, turn);

  // 2. Finished requests: late cancels, deletion, run-duration releases.
  for (const d of drafts) if (!handled.has(d) && isFinal(d.view.status)) turn = stepFinal(d, pass, turn);

  // A release resolved above on a target that removes its highest ordinals first hands the releasing request's surviving pods over (handover.ts).
  const handedOver = handOverOrdinals(drafts, pass, turn);
  turn = handedOver.turn;

  // 3. Active requests in FIFO order: cancel, admission, and the head's attempt.
  turn = walkQueue(
    drafts.filter((d) => !handled.has(d)),
    pass,
    turn,
  );

  // The group's status shows the target's ready count: while the target is still moving with no
  // attempt to poll for it (pods ending after a release, a manual scale), look again, so `kubectl get
  // igm` follows the target instead of keeping the count of the last pass.
  const target = s.target;
  if (target?.found && target.readyReplicas !== target.replicas) turn = wake(turn, cfg.pollIntervalMs * 10);
  // Executed in this order: the status recording the plan's scale change goes last, so that when the
  // plan also resolves an earlier change, a conflict on that resolution ends the pass first.
  // A request handing its pods over goes after those it handed them to, so that a conflict on a
  // receiver's write leaves the release unresolved and the handover is decided again.
  const last = (c: RequestChange): number =>
    c.name === turn.scale?.request ? 2 : Number(handedOver.givers.has(c.name));
  const requests = drafts
    .map((d) => d.change())
    .filter((c): c is RequestChange => c !== undefined)
    .sort((a, b) => last(a) - last(b));
  const nextGroupStatus = groupStatus(pass, drafts, previousGroupStatus);
  return {
    labels: turn.labels,
    requests,
    scale: turn.scale,
    groupStatus: nextGroupStatus,
    targetPatch: targetPatchOf(pass, turn.scale),
    groupEvents: nextGroupStatus ? groupEvents(previousGroupStatus, nextGroupStatus) : [],
    events: drafts.flatMap((d) => d.events),
    requeueAfterMs: turn.wakeAfterMs,
  };
}
