// The reconcile decision for one group, as a pure function: observed state in, desired request
// statuses, finalizer changes, at most one scale change, the group's status and events out.
//
// Crash safety rests on one rule: a scale change is first recorded on its request's status (phase
// Applying / RollingBack, with the replicas read before and the replicas wanted after), and only then
// applied with an absolute replica count. After a crash anywhere, the next decision compares the
// target with the record: equal to the "before" value means not applied yet (apply it), equal to the
// "after" value means applied (move on). Applying an absolute value twice is harmless, so no change is
// ever applied twice or lost. While a recorded change is unresolved, no other change starts.
import type { Condition } from "../api/conditions.js";
import { ResizeRequestCondition as RC, InstanceGroupManagerCondition as GC } from "../api/conditions.js";
import { durationToMillis, formatDuration } from "../api/duration.js";
import type { Errors } from "../api/errors.js";
import type { InstanceGroupManagerStatus } from "../api/instance-group-manager.js";
import { everFits, fifo, isFinalState } from "../api/lifecycle.js";
import { locationField } from "../api/location.js";
import { REST_KIND } from "../api/names.js";
import type { Provisioning, ResizeRequestStatus } from "../api/resize-request.js";
import type { EventDefinition } from "../events/catalog.js";
import { exponentialDelay } from "../runtime/backoff.js";
import { setCondition, type ConditionInput } from "./conditions.js";
import {
  attemptTimedOut,
  messageOf,
  notFound,
  notScalable,
  QUEUE_DEADLINE_EXCEEDED,
  quotaExceeded,
  targetModified,
} from "./errors.js";
import { fastRollback } from "./capacity.js";
import { checkQueueDeadline } from "./deadline.js";
import { resizeEvents as E } from "./events.js";
import { numericId, resizeRequestLinks } from "../api/identity.js";
import type { DecideConfig, GroupSnapshot, RequestView, TargetView } from "./snapshot.js";

export interface RequestChange {
  readonly name: string;
  /** The new status, present only when it differs from the observed one. */
  readonly status?: ResizeRequestStatus;
  readonly finalizer?: "add" | "remove";
}

/**
 * A scale change, applied only after the status change of `request` that records it succeeded, and
 * only while the target still has `from` replicas (a fresh read just before applying).
 */
export interface ScaleChange {
  readonly request: string;
  readonly from: number;
  readonly replicas: number;
}

export interface PlannedEvent {
  readonly request: string;
  readonly event: EventDefinition;
  readonly note: string;
}

export interface Plan {
  readonly requests: readonly RequestChange[];
  readonly scale: ScaleChange | undefined;
  /** The group's new status when it differs from the observed one. */
  readonly groupStatus: InstanceGroupManagerStatus | undefined;
  readonly events: readonly PlannedEvent[];
  readonly requeueAfterMs: number | undefined;
}

export const isFinal = (status: ResizeRequestStatus): boolean => isFinalState(status.state);

/** Instances a request asks for. */
export const sizeOf = (r: RequestView): number => r.spec.resizeBy ?? r.spec.instances?.length ?? 0;

/** FIFO order of a group's queue (the shared definition; the dashboard shows positions by it). */
export { fifo };

/** Delay before the attempt after attempt number `attempt` (1-based): the runtime's backoff, unjittered. */
export function backoffMs(attempt: number, cfg: DecideConfig): number {
  const policy = { initialMs: cfg.backoffBaseMs, maxMs: cfg.backoffMaxMs, factor: 2, jitter: 0 };
  return exponentialDelay(policy, Math.max(0, attempt - 1));
}

/**
 * Equal as the API server would store them: key order does not matter and a key holding undefined is
 * the same as no key. A structural walk, no serialisation: it runs for every request of every pass.
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameData(item, b[i]));
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = (o: Record<string, unknown>): string[] => Object.keys(o).filter((k) => o[k] !== undefined);
  const kx = keys(x);
  return kx.length === keys(y).length && kx.every((k) => k in y && sameData(x[k], y[k]));
}

const iso = (ms: number): string => new Date(ms).toISOString();
const ms = (timestamp: string | undefined): number => (timestamp === undefined ? 0 : Date.parse(timestamp));

/** Accumulates one request's next status, its events and its finalizer change. */
class RequestDraft {
  status: ResizeRequestStatus;
  finalizer: "add" | "remove" | undefined;
  readonly events: PlannedEvent[] = [];
  /** Its attempt ended this round and it waits in the queue again (it keeps its place in FIFO order). */
  backInQueue = false;

  constructor(
    readonly view: RequestView,
    private readonly now: string,
  ) {
    // Shared with the cache, never mutated: every change below builds new objects (copy on write).
    this.status = view.status;
  }

  get name(): string {
    return this.view.name;
  }

  // Each change below keeps the very same status object when it changes nothing, so a request the pass
  // leaves as it was is recognised by identity (change()), without copying or comparing its status.
  patch(fields: Partial<ResizeRequestStatus>): void {
    const current = this.status as Record<string, unknown>;
    if (Object.entries(fields).every(([key, value]) => current[key] === value)) return;
    this.status = { ...this.status, ...fields };
  }

  /** Removes optional status fields (set to undefined) so they disappear from the written object. */
  clear(...fields: (keyof ResizeRequestStatus)[]): void {
    if (fields.every((field) => !(field in this.status))) return;
    const drop = new Set<string>(fields);
    this.status = Object.fromEntries(Object.entries(this.status).filter(([key]) => !drop.has(key)));
  }

  condition(input: ConditionInput): void {
    const conditions = setCondition(this.status.conditions, input, this.now, this.view.generation);
    if (conditions !== this.status.conditions) this.status = { ...this.status, conditions };
  }

  emit(event: EventDefinition, note: string): void {
    this.events.push({ request: this.view.name, event, note });
  }

  /** Conditions of an active request: exactly one of Queued / Provisioning is True. */
  phase(kind: "queued" | "provisioning" | "creating", reason: string, message: string): void {
    this.patch({ reason });
    if (kind === "creating") {
      this.condition({ type: RC.Accepted, status: "Unknown", reason, message });
      return;
    }
    this.condition({
      type: RC.Accepted,
      status: "True",
      reason: "Admitted",
      message: "The request passed admission against its group.",
    });
    this.condition({ type: RC.Queued, status: kind === "queued" ? "True" : "False", reason, message });
    this.condition({
      type: RC.Provisioning,
      status: kind === "provisioning" ? "True" : "False",
      reason,
      message,
    });
  }

  /** Moves to a final state: clears what only active requests carry, closes the phase conditions. */
  finish(state: "SUCCEEDED" | "FAILED" | "CANCELLED", reason: string, message: string): void {
    this.patch({ state, reason });
    this.clear("lastAttempt", "nextAttemptTime", "provisioning");
    for (const type of [RC.Queued, RC.Provisioning]) {
      if (this.status.conditions?.some((c) => c.type === type)) {
        this.condition({ type, status: "False", reason, message });
      }
    }
    const conditionType =
      state === "SUCCEEDED" ? RC.Succeeded : state === "FAILED" ? RC.Failed : RC.Cancelled;
    this.condition({ type: conditionType, status: "True", reason, message });
    if (this.view.hasFinalizer) this.finalizer = "remove";
  }

  fail(reason: string, errors: Errors, event: EventDefinition = E.AdmissionFailed): void {
    this.patch({ error: errors });
    this.finish("FAILED", reason, messageOf(errors));
    this.emit(event, messageOf(errors));
  }

  change(): RequestChange | undefined {
    const statusChanged = this.status !== this.view.status && !sameData(this.status, this.view.status);
    const finalizer =
      this.finalizer === "add" && !this.view.hasFinalizer
        ? "add"
        : this.finalizer === "remove" && this.view.hasFinalizer
          ? "remove"
          : undefined;
    if (!statusChanged && finalizer === undefined) return undefined;
    return {
      name: this.view.name,
      ...(statusChanged && { status: this.status }),
      ...(finalizer && { finalizer }),
    };
  }
}

interface Ctx {
  readonly s: GroupSnapshot;
  readonly cfg: DecideConfig;
  readonly now: string;
  scale: ScaleChange | undefined;
  /** A recorded release is unresolved, or a change is planned: nothing else may start this round. */
  busy: boolean;
  /** A provisioning attempt exists in the group and is not resolved (one at a time). */
  attemptInFlight: boolean;
  requeue: number[];
}

/**
 * A recorded change was resolved this round (observed done, nothing left to apply). The next change
 * may start in the same plan: the executor writes the status recording a new change after every
 * other status, so a conflict on the resolution aborts the pass before the new change is recorded.
 */
function resolved(ctx: Ctx): void {
  ctx.attemptInFlight = false;
  ctx.requeue.push(0);
}

function planScale(ctx: Ctx, request: string, from: number, replicas: number): void {
  ctx.scale = { request, from, replicas };
  ctx.busy = true;
}

function ready(target: TargetView & { found: true }): boolean {
  return target.settled !== false && target.readyReplicas >= target.replicas;
}

function wantsCancel(r: RequestView): boolean {
  return r.spec.cancel || r.deleting;
}

/** Fields every status carries, derived from identity: kind, id, links, creation time. */
function identity(d: RequestDraft, ctx: Ctx): void {
  const id = d.status.id ?? numericId(d.view.uid);
  const location = ctx.s.group?.location;
  const links =
    location && resizeRequestLinks(ctx.cfg.publicUrl, ctx.s.namespace, location, ctx.s.groupName, d.name, id);
  d.patch({
    kind: REST_KIND.resizeRequest,
    id,
    creationTimestamp: d.view.creationTimestamp,
    ...(location &&
      links && {
        [locationField(location)]: links.location,
        selfLink: links.selfLink,
        selfLinkWithId: links.selfLinkWithId,
      }),
    observedGeneration: d.view.generation,
  });
}

function cancelled(d: RequestView): string {
  return d.deleting ? "The request was deleted while active." : "spec.cancel was set.";
}

/** Advances the attempt `d` holds, if any; returns whether it held one. */
function stepAttempt(d: RequestDraft, ctx: Ctx): boolean {
  const p = d.status.provisioning;
  if (!p) return false;
  // In flight until resolved (see resolved()); what it applies this round makes the group busy.
  ctx.attemptInFlight = true;
  advanceAttempt(d, p, ctx);
  return true;
}

function advanceAttempt(d: RequestDraft, p: Provisioning, ctx: Ctx): void {
  const target = ctx.s.target;
  if (!target?.found) {
    d.patch({ reason: "TargetNotFound" });
    ctx.requeue.push(ctx.cfg.pollIntervalMs);
    return;
  }
  const t = target.replicas;
  const k = sizeOf(d.view);
  const rollBack = (): void => {
    d.patch({
      provisioning: {
        ...p,
        phase: "RollingBack",
        baseReplicas: t,
        targetReplicas: Math.max(0, t - k),
        startedTime: ctx.now,
      },
    });
    d.phase("provisioning", "RollingBack", `Removing the ${k} instances of attempt ${p.attempt}.`);
    planScale(ctx, d.name, t, Math.max(0, t - k));
  };
  const toQueue = (reason: string, message: string): void => {
    d.clear("provisioning");
    d.patch({ nextAttemptTime: iso(ctx.s.nowMs + backoffMs(p.attempt, ctx.cfg)) });
    d.phase("queued", reason, message);
    if (d.view.hasFinalizer) d.finalizer = "remove";
    d.backInQueue = true;
    resolved(ctx);
  };

  if (p.phase === "RollingBack") {
    if (t === p.baseReplicas && t !== p.targetReplicas) {
      planScale(ctx, d.name, t, p.targetReplicas);
      return;
    }
    d.emit(
      E.RolledBack,
      `Target ${ctx.s.group?.targetKind ?? ""}/${ctx.s.group?.targetName ?? ""} is back at ${t} replicas after attempt ${p.attempt}.`,
    );
    if (wantsCancel(d.view)) {
      d.finish("CANCELLED", "Cancelled", `${cancelled(d.view)} The partial scale-up was rolled back.`);
      d.emit(E.Cancelled, `${cancelled(d.view)} The partial scale-up was rolled back.`);
      resolved(ctx);
    } else {
      toQueue(
        "Backoff",
        `Attempt ${p.attempt} was rolled back; the next attempt waits for the backoff to pass.`,
      );
    }
    return;
  }

  const applied = p.phase === "Applied" || t === p.targetReplicas;
  const moved =
    (p.phase === "Applying" && !applied && t !== p.baseReplicas) ||
    (p.phase === "Applied" && t !== p.targetReplicas);
  if (moved) {
    // Someone else changed the replicas between our record and now: we cannot tell whether our change
    // is in there, so we leave the target alone rather than risk adding the increase twice.
    const expected = p.phase === "Applied" ? [p.targetReplicas] : [p.baseReplicas, p.targetReplicas];
    const errors = targetModified(expected, t);
    d.patch({ lastAttempt: { error: errors } });
    d.emit(E.AttemptAbandoned, messageOf(errors));
    if (wantsCancel(d.view)) {
      d.finish("CANCELLED", "Cancelled", cancelled(d.view));
      d.emit(E.Cancelled, cancelled(d.view));
      resolved(ctx);
    } else toQueue("Backoff", messageOf(errors));
    return;
  }
  if (!applied) {
    if (wantsCancel(d.view)) {
      d.finish("CANCELLED", "Cancelled", cancelled(d.view));
      d.emit(E.Cancelled, `${cancelled(d.view)} No instance had been added yet.`);
      resolved(ctx);
      return;
    }
    // Recorded but not yet applied (first pass, or a crash in between): apply it now.
    planScale(ctx, d.name, t, p.targetReplicas);
    ctx.requeue.push(ctx.cfg.pollIntervalMs);
    return;
  }
  if (wantsCancel(d.view)) {
    rollBack();
    return;
  }
  if (ready(target)) {
    const runMs = d.view.spec.requestedRunDuration
      ? durationToMillis(d.view.spec.requestedRunDuration)
      : undefined;
    d.patch({
      provisioningStartedTime: p.startedTime,
      succeededTime: ctx.now,
      ...(runMs !== undefined && { runUntil: iso(ctx.s.nowMs + runMs) }),
    });
    const message = `All ${k} instances are ready (target at ${t} replicas, ${target.readyReplicas} ready).`;
    d.finish("SUCCEEDED", "Provisioned", message);
    d.emit(E.Succeeded, message);
    resolved(ctx);
    if (runMs !== undefined) ctx.requeue.push(runMs);
    return;
  }
  const waiting = `Waiting for ${t} instances to be ready (${target.readyReplicas} are).`;
  if (p.phase === "Applying") {
    // The attempt's time starts when the increase is seen applied, not when it was recorded.
    const timeoutMs = ctx.s.group?.provisioningTimeoutMs ?? 0;
    d.patch({
      provisioning: { ...p, phase: "Applied", appliedTime: ctx.now, deadline: iso(ctx.s.nowMs + timeoutMs) },
    });
    d.phase("provisioning", "WaitingForInstances", waiting);
    ctx.requeue.push(Math.min(ctx.cfg.pollIntervalMs, timeoutMs));
    return;
  }
  const deadline = ms(p.deadline);
  const early = fastRollback(ctx.s.group, p, ctx.s.unschedulablePods);
  const timedOut = p.deadline !== undefined && ctx.s.nowMs >= deadline;
  if (timedOut || (early && ctx.s.nowMs >= early.atMs)) {
    const timeoutMs = ctx.s.group?.provisioningTimeoutMs ?? 0;
    const errors = attemptTimedOut({
      wanted: t,
      ready: target.readyReplicas,
      timeout: formatDuration(timedOut ? timeoutMs : ctx.s.nowMs - ms(p.appliedTime)),
      unschedulable: ctx.s.unschedulable,
      ...(!timedOut && early && { noCapacity: early.why }),
    });
    d.patch({ lastAttempt: { error: errors } });
    d.emit(E.AttemptFailed, `Attempt ${p.attempt}: ${messageOf(errors)}. Rolling back ${k} instances.`);
    rollBack();
    return;
  }
  d.phase("provisioning", "WaitingForInstances", waiting);
  ctx.requeue.push(Math.min(ctx.cfg.pollIntervalMs, Math.max(0, deadline - ctx.s.nowMs)));
  if (early) ctx.requeue.push(early.atMs - ctx.s.nowMs);
}

/** Finishes the run-duration release of a SUCCEEDED request, or starts it when due. */
function stepRelease(d: RequestView, draft: RequestDraft, ctx: Ctx): void {
  const release = draft.status.release;
  const target = ctx.s.target;
  if (release?.phase === "Applied") return;
  const runUntil = draft.status.runUntil;
  if (!release && (runUntil === undefined || !ctx.s.group)) return;
  if (!release && ms(runUntil) > ctx.s.nowMs) {
    ctx.requeue.push(ms(runUntil) - ctx.s.nowMs);
    return;
  }
  if (!target?.found) return;
  const t = target.replicas;
  const released = (note: string): void => {
    draft.patch({
      release: {
        ...(release ?? { baseReplicas: t, targetReplicas: t, startedTime: ctx.now }),
        phase: "Applied",
        appliedTime: ctx.now,
      },
    });
    draft.condition({ type: RC.Released, status: "True", reason: "RunDurationElapsed", message: note });
    draft.emit(E.Released, note);
  };
  if (release) {
    if (t === release.baseReplicas && t !== release.targetReplicas) {
      planScale(ctx, d.name, t, release.targetReplicas);
      return;
    }
    resolved(ctx);
    released(
      t === release.targetReplicas
        ? `The run duration elapsed; the target went from ${release.baseReplicas} to ${t} replicas.`
        : `The run duration elapsed; the target's replicas were changed outside the operator (now ${t}), so they were left alone.`,
    );
    return;
  }
  if (ctx.busy || ctx.attemptInFlight) return;
  const minSize = ctx.s.group?.minSize ?? 0;
  const to = Math.max(minSize, t - sizeOf(d));
  if (to >= t) {
    // A resolution: an attempt may start in the same plan, recorded after this write (see resolved()),
    // so its increase can never be taken for room this release could remove.
    resolved(ctx);
    released(
      `The run duration elapsed; the target is at its floor of ${t} replicas (minSize ${minSize}), nothing to remove.`,
    );
    return;
  }
  draft.patch({ release: { phase: "Applying", baseReplicas: t, targetReplicas: to, startedTime: ctx.now } });
  planScale(ctx, d.name, t, to);
}

/** A request in a final state: refuse late cancels, drop the finalizer, release after the run duration. */
function stepFinal(draft: RequestDraft, ctx: Ctx): void {
  const r = draft.view;
  if (r.spec.cancel && draft.status.state !== "CANCELLED") {
    const existing = draft.status.conditions?.find((c: Condition) => c.type === RC.Cancelled);
    if (existing?.reason !== "CancelRefused") {
      const message = `The request already reached ${draft.status.state ?? ""}, a final state; cancel has no effect.`;
      draft.condition({ type: RC.Cancelled, status: "False", reason: "CancelRefused", message });
      draft.emit(E.CancelRefused, message);
    }
  }
  // Deleting a finished request leaves its instances alone (docs/design.md §4). A finished request keeps no
  // finalizer: one left by a pass that ended early (a conflict, a crash) is removed now.
  if (r.hasFinalizer) draft.finalizer = "remove";
  if (r.deleting) return;
  if (draft.status.state === "SUCCEEDED") stepRelease(r, draft, ctx);
}

/** Admission of a request that has not been admitted yet, or re-validation of a queued one. */
function admit(d: RequestDraft, ctx: Ctx): "admitted" | "waiting" | "failed" {
  const { s, cfg } = ctx;
  const r = d.view;
  const creating = d.status.state === undefined || d.status.state === "CREATING";
  const withinGrace = s.nowMs - ms(r.creationTimestamp) < cfg.admissionGraceMs;
  const waitOrFail = (reason: string, message: string, errors: Errors): "waiting" | "failed" => {
    if (creating && withinGrace) {
      d.patch({ state: "CREATING" });
      if (d.status.reason !== reason) d.emit(E.WaitingForGroup, message);
      d.phase("creating", reason, message);
      ctx.requeue.push(ms(r.creationTimestamp) + cfg.admissionGraceMs - s.nowMs);
      return "waiting";
    }
    if (!creating) {
      // An admitted request keeps its place while its target is briefly missing (e.g. being recreated).
      d.phase("queued", reason, message);
      ctx.requeue.push(cfg.pollIntervalMs * 5);
      return "waiting";
    }
    d.fail(reason, errors);
    return "failed";
  };
  const group = s.group;
  if (!group) {
    const message = `InstanceGroupManager ${s.groupName} does not exist in namespace ${s.namespace}.`;
    if (!creating) {
      d.fail("GroupNotFound", notFound(message));
      return "failed";
    }
    return waitOrFail("GroupNotFound", message, notFound(message));
  }
  const target = s.target;
  if (target && !target.found) {
    if (target.reason === "NotScalable") {
      d.fail("TargetNotScalable", notScalable(target.message));
      return "failed";
    }
    return waitOrFail("TargetNotFound", target.message, notFound(target.message));
  }
  const k = sizeOf(r);
  if (group.maxSize !== undefined && !everFits(k, group.maxSize)) {
    d.fail(
      "QuotaExceeded",
      quotaExceeded({ requested: k, maxSize: group.maxSize, location: group.location, group: group.name }),
    );
    return "failed";
  }
  if (creating) {
    d.patch({ state: "ACCEPTED" });
    d.emit(E.Accepted, `Admitted to the queue of group ${group.name} for ${k} instances.`);
  }
  return "admitted";
}

/** Fails a waiting request whose queue deadline passed (deadline.ts); otherwise wakes the group then. */
function queueDeadlinePassed(d: RequestDraft, ctx: Ctx): boolean {
  const check = checkQueueDeadline(d.view, d.status, ctx.s, sizeOf(d.view));
  if (check === undefined) return false;
  if ("inMs" in check) {
    ctx.requeue.push(check.inMs);
    return false;
  }
  d.fail(QUEUE_DEADLINE_EXCEEDED, check.errors, E.QueueDeadlineExceeded);
  return true;
}

function startAttempt(d: RequestDraft, ctx: Ctx, t: number): void {
  const group = ctx.s.group;
  if (!group) return;
  const k = sizeOf(d.view);
  const attempt = (d.status.attempts ?? 0) + 1;
  d.patch({
    attempts: attempt,
    provisioning: {
      attempt,
      phase: "Applying",
      baseReplicas: t,
      targetReplicas: t + k,
      startedTime: ctx.now,
      deadline: iso(ctx.s.nowMs + group.provisioningTimeoutMs),
    },
  });
  d.clear("nextAttemptTime");
  d.phase(
    "provisioning",
    "Provisioning",
    `Attempt ${attempt}: raising ${group.targetKind}/${group.targetName} from ${t} to ${t + k} replicas.`,
  );
  d.finalizer = "add";
  d.emit(
    E.ProvisioningStarted,
    `Attempt ${attempt}: raising ${group.targetKind}/${group.targetName} from ${t} to ${t + k} replicas.`,
  );
  planScale(ctx, d.name, t, t + k);
  ctx.attemptInFlight = true;
  ctx.requeue.push(ctx.cfg.pollIntervalMs);
}

function groupStatus(
  ctx: Ctx,
  drafts: readonly RequestDraft[],
  previous: InstanceGroupManagerStatus | undefined,
): InstanceGroupManagerStatus | undefined {
  const { s } = ctx;
  const group = s.group;
  if (!group) return undefined;
  const active = drafts.filter((d) => !isFinal(d.status));
  const provisioning = drafts.find((d) => d.status.provisioning !== undefined);
  const target = s.target;
  const condition: ConditionInput = target?.found
    ? {
        type: GC.Ready,
        status: "True",
        reason: "TargetScalable",
        message: `${group.targetKind}/${group.targetName} can be scaled through /scale.`,
      }
    : {
        type: GC.Ready,
        status: "False",
        reason: target?.reason ?? "TargetNotFound",
        message: target?.message ?? "",
      };
  const next: InstanceGroupManagerStatus = {
    id: previous?.id ?? numericId(group.uid),
    ...(target?.found && { targetSize: target.replicas, readyInstances: target.readyReplicas }),
    queuedRequests: active.filter((d) =>
      d.status.conditions?.some((c) => c.type === RC.Queued && c.status === "True"),
    ).length,
    activeRequests: active.length,
    ...(provisioning && { provisioningRequest: provisioning.name }),
    conditions: setCondition(previous?.conditions, condition, ctx.now, group.generation),
    observedGeneration: group.generation,
  };
  return sameData(next, previous ?? {}) ? undefined : next;
}

export function decide(
  s: GroupSnapshot,
  cfg: DecideConfig,
  previousGroupStatus?: InstanceGroupManagerStatus,
): Plan {
  const ctx: Ctx = {
    s,
    cfg,
    now: iso(s.nowMs),
    scale: undefined,
    busy: false,
    attemptInFlight: false,
    requeue: [],
  };
  const drafts = [...s.requests].sort(fifo).map((r) => new RequestDraft(r, ctx.now));
  for (const d of drafts) identity(d, ctx);

  // 1. Unresolved recorded changes first: they block everything else in the group.
  const handled = new Set<RequestDraft>();
  for (const d of drafts) if (stepAttempt(d, ctx) && !d.backInQueue) handled.add(d);
  for (const d of drafts)
    if (!handled.has(d) && d.status.release?.phase === "Applying") stepRelease(d.view, d, ctx);

  // 2. Finished requests: late cancels, deletion, run-duration releases.
  for (const d of drafts) if (!handled.has(d) && isFinal(d.view.status)) stepFinal(d, ctx);

  // 3. Active requests in FIFO order: cancel, admission, and the head's attempt (also right after
  // the previous attempt resolved in this plan). Positions are not stored (a queue moving up would
  // rewrite every request behind: n(n-1)/2 writes); readers compute them from the FIFO order.
  let position = 0;
  for (const d of drafts) {
    if (handled.has(d) || isFinal(d.status)) continue;
    if (wantsCancel(d.view)) {
      d.finish("CANCELLED", "Cancelled", cancelled(d.view));
      d.emit(E.Cancelled, `${cancelled(d.view)} The request left the queue.`);
      continue;
    }
    const admission = admit(d, ctx);
    if (admission !== "failed" && queueDeadlinePassed(d, ctx)) continue;
    if (admission !== "admitted") continue;
    position++;
    const target = s.target;
    const group = s.group;
    if (!group || !target?.found) continue;
    const k = sizeOf(d.view);
    const nextAttempt = ms(d.status.nextAttemptTime);
    if (position === 1) {
      if (group.maxSize !== undefined && target.replicas + k > group.maxSize) {
        d.phase(
          "queued",
          "WaitingForCapacity",
          `Waiting for room: the target has ${target.replicas} replicas, ${k} more would exceed maxSize ${group.maxSize}.`,
        );
        ctx.requeue.push(cfg.pollIntervalMs * 5);
        continue;
      }
      if (nextAttempt > s.nowMs) {
        d.phase("queued", "Backoff", `The next attempt starts at ${d.status.nextAttemptTime ?? ""}.`);
        ctx.requeue.push(nextAttempt - s.nowMs);
        continue;
      }
      if (!ctx.attemptInFlight && !ctx.busy) {
        startAttempt(d, ctx, target.replicas);
        position--;
        continue;
      }
    }
    // Nothing that changes while the queue moves goes into the status (not the position, not what the
    // queue waits for), so a queued request is written once, not at every step ahead of it.
    d.phase("queued", "Queued", `Waiting in the queue of group ${group.name} (first come, first served).`);
  }

  // The group's status shows the target's ready count: while the target is still moving with no
  // attempt to poll for it (pods ending after a release, a manual scale), look again, so `kubectl get
  // igm` follows the target instead of keeping the count of the last pass.
  const target = s.target;
  if (target?.found && target.readyReplicas !== target.replicas) ctx.requeue.push(cfg.pollIntervalMs * 10);
  const requeues = ctx.requeue.filter((v) => v >= 0);
  // Executed in this order: the status recording the plan's scale change goes last, so that when the
  // plan also resolves an earlier change, a conflict on that resolution ends the pass first.
  const last = (c: RequestChange): number => Number(c.name === ctx.scale?.request);
  const requests = drafts
    .map((d) => d.change())
    .filter((c): c is RequestChange => c !== undefined)
    .sort((a, b) => last(a) - last(b));
  return {
    requests,
    scale: ctx.scale,
    groupStatus: groupStatus(ctx, drafts, previousGroupStatus),
    events: drafts.flatMap((d) => d.events),
    requeueAfterMs: requeues.length > 0 ? Math.max(0, Math.min(...requeues)) : undefined,
  };
}
