// A provisioning attempt, from its start to its resolution. Crash safety rests on one rule: the scale
// change is first recorded on the request's status (phase Applying / RollingBack, with the replicas
// read before and the replicas wanted after), and only then applied with an absolute replica count.
// After a crash anywhere, the next pass compares the target with the record: equal to the "before"
// value means not applied yet (apply it), equal to the "after" value means applied (move on).
import { rfc3339 } from "../../../api/time.js";
import { durationToMillis, formatDuration } from "../../../api/duration.js";
import type { Provisioning } from "../../../api/resize-request.js";
import { sizeOf } from "../../../queue/rules.js";
import { deliveryOfView } from "./bookings.js";
import { exponentialDelay } from "../../../runtime/backoff.js";
import { fastRollback } from "./capacity.js";
import { attemptTimedOut, messageOf, targetModified } from "../../errors.js";
import { heldBackSentence } from "../held-back.js";
import { resizeEvents as E } from "../../events.js";
import { TARGET_RECHECK_POLLS, type DecideConfig, type GroupSnapshot } from "../snapshot.js";
import { type TargetView } from "../../../targets/view.js";
import { waitsForAccess } from "../../../targets/access.js";
import { TARGET_NOT_FOUND } from "./admission.js";
import type { RequestDraft } from "./request-draft.js";
import { claimInstances, ownReady, rollbackRemoval } from "./instances.js";
import { planScale, resolved, wake, type PlanDraft } from "./plan-draft.js";
import { cancelled, ms, nowOf, ready, wantsCancel } from "./readings.js";

/** Delay before the attempt after attempt number `attempt` (1-based): the runtime's backoff, unjittered. */
export function backoffMs(attempt: number, cfg: DecideConfig): number {
  const policy = { initialMs: cfg.backoffBaseMs, maxMs: cfg.backoffMaxMs, factor: 2, jitter: 0 };
  return exponentialDelay(policy, Math.max(0, attempt - 1));
}

/** The head starts its attempt: the record first (Applying), the increase from `t` by its size after. */
export function startAttempt(d: RequestDraft, s: GroupSnapshot, plan: PlanDraft, t: number): PlanDraft {
  const group = s.group;
  if (!group) return plan;
  const k = sizeOf(d.view);
  const attempt = (d.status.attempts ?? 0) + 1;
  d.patch({
    attempts: attempt,
    provisioning: {
      attempt,
      phase: "Applying",
      baseReplicas: t,
      targetReplicas: t + k,
      startedTime: nowOf(s),
      deadline: rfc3339(s.nowMs + group.provisioningTimeoutMs),
    },
  });
  d.clear("nextAttemptTime");
  const message = `Attempt ${attempt}: raising ${group.targetKind}/${group.targetName} from ${t} to ${t + k} replicas.`;
  d.phase("provisioning", "Provisioning", message);
  d.finalizer = "add";
  // Admitted in this same pass: one Event tells both steps (its note starts with the admission's),
  // one write less for the API server than an Accepted Event followed by this one.
  const admitted = d.events.findIndex((e) => e.event === E.Accepted);
  const [accepted] = admitted >= 0 ? d.events.splice(admitted, 1) : [];
  d.emit(E.ProvisioningStarted, accepted ? `${accepted.note} ${message}` : message);
  const started = planScale(plan, d.name, t, t + k);
  return wake({ ...started, attemptInFlight: true }, s.config.pollIntervalMs);
}

/** An attempt held by a request, seen against the target as read now. */
interface Held {
  readonly d: RequestDraft;
  readonly p: Provisioning;
  readonly s: GroupSnapshot;
  readonly target: TargetView & { found: true };
  /** The request's size. */
  readonly k: number;
}

/**
 * Advances the attempt `d` holds, if any. While it is unresolved (see resolved()) the group has an
 * attempt in flight; what it applies this round makes the plan busy.
 */
export function stepAttempt(d: RequestDraft, s: GroupSnapshot, plan: PlanDraft): PlanDraft {
  const p = d.status.provisioning;
  if (!p) return plan;
  const inFlight = { ...plan, attemptInFlight: true };
  const target = s.target;
  if (target?.found === false && waitsForAccess(target.reason)) {
    // The target is there but the operator may not (or will not) touch it now: the attempt keeps its
    // record, even when cancelled, so that its increase is rolled back once access is granted.
    d.patch({ reason: target.reason });
    return wake(inFlight, s.config.pollIntervalMs * TARGET_RECHECK_POLLS);
  }
  if (!target?.found) {
    // Nothing can be rolled back on a target that is gone, and deleting a namespace removes the target
    // and the group along with the request: a request deleted or cancelled now ends its attempt and
    // lets its finalizer go, instead of holding the namespace's deletion up for good. Otherwise it
    // waits, keeping its record: the target may be recreated.
    if (wantsCancel(d.view)) {
      const note = `${cancelled(d.view)} Its target no longer exists; there was nothing to roll back.`;
      d.finish("CANCELLED", "Cancelled", note);
      d.emit(E.Cancelled, note);
      return resolved(inFlight);
    }
    const missing = target?.message ?? `InstanceGroupManager ${s.groupName} does not exist`;
    const note = `${missing}; attempt ${p.attempt} keeps its record and waits for it to be recreated (cancel or delete the request to end it).`;
    if (d.status.reason !== TARGET_NOT_FOUND) d.emit(E.TargetNotFound, note);
    d.phase("provisioning", TARGET_NOT_FOUND, note);
    return wake(inFlight, s.config.pollIntervalMs);
  }
  const a: Held = { d, p, s, target, k: sizeOf(d.view) };
  const t = target.replicas;
  if (p.phase === "RollingBack") return stepRollBack(a, inFlight);
  const applied = p.phase === "Applied" || t === p.targetReplicas;
  const moved =
    (p.phase === "Applying" && !applied && t !== p.baseReplicas) ||
    (p.phase === "Applied" && t !== p.targetReplicas);
  if (moved) return abandon(a, inFlight);
  if (!applied) return applyRecorded(a, inFlight);
  if (wantsCancel(d.view)) return rollBack(a, inFlight);
  if (!ready(target)) return awaitInstances(a, inFlight);
  // The target's count can describe instances that are going (a scale-down's, whose status its
  // controller has not caught up with): where a release deletes by annotation, the attempt's own must
  // be there and ready too (instances.ts, ownReady).
  const own = ownReady(d, s, a.k);
  return own === undefined || own >= a.k ? succeed(a, inFlight) : awaitInstances(a, inFlight, own);
}

/** Records the removal of the attempt's instances, then plans it. */
function rollBack(a: Held, plan: PlanDraft): PlanDraft {
  const { d, p, s, target, k } = a;
  const t = target.replicas;
  const record = {
    ...p,
    phase: "RollingBack" as const,
    baseReplicas: t,
    targetReplicas: Math.max(0, t - k),
    startedTime: nowOf(s),
  };
  d.patch({ provisioning: record });
  d.phase("provisioning", "RollingBack", `Removing the ${k} instances of attempt ${p.attempt}.`);
  return lowerOnceLaunched({ ...a, p: record }, plan);
}

/**
 * Applies a recorded rollback. The target is lowered only once what its kind says must finish first
 * has (targets/kind.ts, LoweringWaits), for at most the group's provisioningTimeout from the record.
 */
function lowerOnceLaunched({ d, p, s, target, k }: Held, plan: PlanDraft): PlanDraft {
  const t = target.replicas;
  const wait = s.lowering?.beforeLowering;
  const waitedMs = s.nowMs - ms(p.startedTime);
  if (wait !== undefined && waitedMs < (s.group?.provisioningTimeoutMs ?? 0)) {
    const removing = `Removing the ${k} instances of attempt ${p.attempt} once ${wait.until}`;
    d.phase("provisioning", "RollingBack", `${removing}: ${wait.now}.`);
    return wake(plan, s.config.pollIntervalMs);
  }
  const removal = rollbackRemoval(s, ms(p.startedTime), t - p.targetReplicas);
  return planScale(plan, d.name, t, p.targetReplicas, removal);
}

/** The attempt ended without success: back in the queue (in its FIFO place) after a backoff. */
function backToQueue({ d, p, s }: Held, plan: PlanDraft, reason: string, message: string): PlanDraft {
  d.clear("provisioning");
  d.patch({ nextAttemptTime: rfc3339(s.nowMs + backoffMs(p.attempt, s.config)) });
  d.phase("queued", reason, message);
  if (d.view.hasFinalizer) d.finalizer = "remove";
  return resolved(plan);
}

/** The attempt ends: cancelled if that was asked for, otherwise back to the queue. */
function endAttempt(
  a: Held,
  plan: PlanDraft,
  cancelNote: string,
  reason: string,
  message: string,
): PlanDraft {
  if (!wantsCancel(a.d.view)) return backToQueue(a, plan, reason, message);
  a.d.finish("CANCELLED", "Cancelled", cancelNote);
  a.d.emit(E.Cancelled, cancelNote);
  return resolved(plan);
}

/** A recorded rollback: applies it, or once applied ends the attempt. */
function stepRollBack(a: Held, plan: PlanDraft): PlanDraft {
  const { d, p, s, target } = a;
  const t = target.replicas;
  if (t === p.baseReplicas && t !== p.targetReplicas) return lowerOnceLaunched(a, plan);
  // The attempt ends once what lowering the target removes is gone, where its kind says so (targets/kind.ts).
  const removing = s.lowering?.removing;
  if (removing !== undefined && s.nowMs - ms(p.startedTime) < (s.group?.provisioningTimeoutMs ?? 0)) {
    const back = `The target is back at ${t} replicas; ${removing}, and the attempt ends once they are gone.`;
    d.phase("provisioning", "RollingBack", back);
    return wake(plan, s.config.pollIntervalMs);
  }
  const group = s.group;
  d.emit(
    E.RolledBack,
    `Target ${group?.targetKind ?? ""}/${group?.targetName ?? ""} is back at ${t} replicas after attempt ${p.attempt}.`,
  );
  return endAttempt(
    a,
    plan,
    `${cancelled(d.view)} The partial scale-up was rolled back.`,
    "Backoff",
    `Attempt ${p.attempt} was rolled back; the next attempt waits for the backoff to pass.`,
  );
}

/**
 * Someone else changed the replicas between our record and now: we cannot tell whether our change is
 * in there, so we leave the target alone rather than risk adding the increase twice.
 */
function abandon(a: Held, plan: PlanDraft): PlanDraft {
  const { d, p, target } = a;
  const expected = p.phase === "Applied" ? [p.targetReplicas] : [p.baseReplicas, p.targetReplicas];
  const errors = targetModified(expected, target.replicas);
  d.patch({ lastAttempt: { error: errors } });
  d.emit(E.AttemptAbandoned, messageOf(errors));
  return endAttempt(a, plan, cancelled(d.view), "Backoff", messageOf(errors));
}

/** Recorded but not yet applied (first pass, or a crash in between): apply it now, unless cancelled. */
function applyRecorded({ d, p, s, target }: Held, plan: PlanDraft): PlanDraft {
  if (wantsCancel(d.view)) {
    d.finish("CANCELLED", "Cancelled", cancelled(d.view));
    d.emit(E.Cancelled, `${cancelled(d.view)} No instance had been added yet.`);
    return resolved(plan);
  }
  return wake(planScale(plan, d.name, target.replicas, p.targetReplicas), s.config.pollIntervalMs);
}

/** Every instance is ready: SUCCEEDED, with the run duration's end if one was asked for. */
function succeed({ d, p, s, target, k }: Held, plan: PlanDraft): PlanDraft {
  const run = d.view.spec.requestedRunDuration;
  // A booking's delivery ends with the booking's window, not a run duration after it became ready.
  const windowEnd = deliveryOfView(d.view, s)?.windowEnd;
  const runMs =
    run && windowEnd !== undefined && Number.isFinite(windowEnd)
      ? Math.max(0, Math.min(durationToMillis(run), windowEnd - s.nowMs))
      : run
        ? durationToMillis(run)
        : undefined;
  d.patch({
    provisioningStartedTime: p.startedTime,
    succeededTime: nowOf(s),
    ...(runMs !== undefined && { runUntil: rfc3339(s.nowMs + runMs) }),
  });
  const message = `All ${k} instances are ready (target at ${target.replicas} replicas, ${target.readyReplicas} ready).`;
  d.finish("SUCCEEDED", "Provisioned", message);
  d.emit(E.Succeeded, message);
  const done = resolved(claimInstances(d, s, plan, k));
  return runMs === undefined ? done : wake(done, runMs);
}

/** Applied, not all ready: the attempt's clock starts, then it waits until its deadline or a fast rollback. */
function awaitInstances(a: Held, plan: PlanDraft, own?: number): PlanDraft {
  const { d, p, s, target, k } = a;
  const cfg = s.config;
  const t = target.replicas;
  const timeoutMs = s.group?.provisioningTimeoutMs ?? 0;
  const unreadable = s.shortfall?.unreadable;
  // Counted from Nodes: which selected Nodes do not count and why (a Ready Node with an undeclared taint
  // otherwise looks like no Node at all).
  const held = target.heldBack && heldBackSentence(target.heldBack);
  const count =
    own === undefined
      ? `${target.readyReplicas} are`
      : `the target counts ${target.readyReplicas}, but ${own} of the ${k} this attempt added are there and ready`;
  const waiting = `Waiting for ${t} instances to be ready (${count}).${held === undefined ? "" : ` ${held}`}${unreadable === undefined ? "" : ` ${unreadable}`}`;
  if (p.phase === "Applying") {
    // The attempt's time starts when the increase is seen applied, not when it was recorded.
    d.patch({
      provisioning: { ...p, phase: "Applied", appliedTime: nowOf(s), deadline: rfc3339(s.nowMs + timeoutMs) },
    });
    d.phase("provisioning", "WaitingForInstances", waiting);
    return wake(plan, Math.min(cfg.pollIntervalMs, timeoutMs));
  }
  const deadline = ms(p.deadline);
  const early = fastRollback(s.group, p, s.shortfall);
  const timedOut = p.deadline !== undefined && s.nowMs >= deadline;
  if (timedOut || (early && s.nowMs >= early.atMs)) {
    // What is missing, in the words of the target's kind (the scheduler's on its pods, or its own objects').
    const shortfall = s.shortfall;
    const errors = attemptTimedOut({
      wanted: t,
      ready: target.readyReplicas,
      timeout: formatDuration(timedOut ? timeoutMs : s.nowMs - ms(p.appliedTime)),
      unschedulable: shortfall?.message,
      ...(shortfall?.cause !== undefined && { cause: shortfall.cause }),
      ...(!timedOut && early && { noCapacity: early.why }),
    });
    d.patch({ lastAttempt: { error: errors } });
    d.emit(E.AttemptFailed, `Attempt ${p.attempt}: ${messageOf(errors)}. Rolling back ${k} instances.`);
    return rollBack(a, plan);
  }
  d.phase("provisioning", "WaitingForInstances", waiting);
  const next = wake(plan, Math.min(cfg.pollIntervalMs, Math.max(0, deadline - s.nowMs)));
  return early ? wake(next, early.atMs - s.nowMs) : next;
}
