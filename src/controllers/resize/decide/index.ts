// The reconcile decision for one group, as a pure function: a snapshot in (observed state, the time,
// the settings, when the group's status was last written), a plan out: desired request statuses,
// finalizer changes, at most one scale change, the group's status (or when to write it) and events.
//
// Crash safety rests on one rule: a scale change is first recorded on its request's status, and only
// then applied with an absolute replica count (see attempt.ts). Applying an absolute value twice is
// harmless, so no change is ever applied twice or lost. While a recorded change is unresolved, no other
// change starts: the steps below pass that along in a `PlanDraft` (plan-draft.ts), each taking the
// snapshot and the draft so far, and each request's next status is built in its RequestDraft.
import { fifo } from "../../../api/lifecycle.js";
import type { GroupSnapshot } from "../snapshot.js";
import { stepAttempt } from "./attempt.js";
import { groupStatusWaitMs } from "./coalesce.js";
import { groupEvents, groupStatus } from "./group-status.js";
import { handOverOrdinals } from "./handover.js";
import { targetPatchOf } from "./instances.js";
import { EMPTY_PLAN_DRAFT, wake } from "./plan-draft.js";
import type { Plan, RequestChange } from "./plan.js";
import { walkQueue } from "./queue.js";
import { isFinal, nowOf } from "./readings.js";
import { stepFinal, stepRelease } from "./release.js";
import { RequestDraft, stampIdentity } from "./request-draft.js";

export type { Plan, PlannedEvent, PlannedGroupEvent, RequestChange, ScaleChange } from "./plan.js";
export { backoffMs } from "./attempt.js";
export { sameData } from "./request-draft.js";

/** Its attempt ended this round and it is not final: it waits in the queue again, in its FIFO place. */
const backInQueue = (d: RequestDraft): boolean => d.status.provisioning === undefined && !isFinal(d.status);

export function decide(s: GroupSnapshot): Plan {
  const drafts = [...s.requests].sort(fifo).map((r) => new RequestDraft(r, nowOf(s)));
  for (const d of drafts) stampIdentity(d, s);
  let plan = EMPTY_PLAN_DRAFT;

  // 1. Unresolved recorded changes first: they block everything else in the group. A request whose
  // attempt ended this round without a final state is back in the queue (in its FIFO place), and is
  // walked with the queue in step 3.
  const handled = new Set<RequestDraft>();
  for (const d of drafts) {
    if (d.status.provisioning === undefined) continue;
    plan = stepAttempt(d, s, plan);
    if (!backInQueue(d)) handled.add(d);
  }
  for (const d of drafts)
    if (!handled.has(d) && d.status.release?.phase === "Applying") plan = stepRelease(d, s, plan);

  // 2. Finished requests: late cancels, deletion, run-duration releases.
  for (const d of drafts) if (!handled.has(d) && isFinal(d.view.status)) plan = stepFinal(d, s, plan);

  // A release resolved above on a target that removes its highest ordinals first hands the releasing request's surviving pods over (handover.ts).
  const handedOver = handOverOrdinals(drafts, s, plan);
  plan = handedOver.plan;

  // 3. Active requests in FIFO order: cancel, admission, and the head's attempt.
  plan = walkQueue(
    drafts.filter((d) => !handled.has(d)),
    s,
    plan,
  );

  // The group's status shows the target's ready count: while the target is still moving with no
  // attempt to poll for it (pods ending after a release, a manual scale), look again, so `kubectl get
  // igm` follows the target instead of keeping the count of the last pass.
  const target = s.target;
  if (target?.found && target.readyReplicas !== target.replicas)
    plan = wake(plan, s.config.pollIntervalMs * 10);
  // Executed in this order: the status recording the plan's scale change goes last, so that when the
  // plan also resolves an earlier change, a conflict on that resolution ends the pass first.
  // A request handing its pods over goes after those it handed them to, so that a conflict on a
  // receiver's write leaves the release unresolved and the handover is decided again.
  const last = (c: RequestChange): number =>
    c.name === plan.scale?.request ? 2 : Number(handedOver.givers.has(c.name));
  const requests = drafts
    .map((d) => d.change())
    .filter((c): c is RequestChange => c !== undefined)
    .sort((a, b) => last(a) - last(b));
  const next = groupStatus(s, drafts, s.groupStatus);
  // The group's status, and its Events with it, wait out their interval (coalesce.ts); the pass that
  // ends the wait writes the summary of its time.
  const withholdMs = next ? groupStatusWaitMs(s) : 0;
  if (withholdMs > 0) plan = wake(plan, withholdMs);
  const written = withholdMs > 0 ? undefined : next;
  return {
    labels: plan.labels,
    requests,
    scale: plan.scale,
    groupStatus: written,
    targetPatch: targetPatchOf(s, plan.scale),
    groupEvents: written ? groupEvents(s.groupStatus, written) : [],
    events: drafts.flatMap((d) => d.events),
    requeueAfterMs: plan.wakeAfterMs,
  };
}
