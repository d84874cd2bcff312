// Builders for the unit tests of the reconcile decision (src/controllers/resize/decide/): snapshots, request
// views and statuses, plan inspection, and a driver that carries plans out with the real executor
// against a fake API server (./cluster.ts) while a simulated cluster (kwok-like: new instances become
// ready one step later) moves on, so multi-step scenarios can be checked end to end.
import type { Condition } from "../../../src/api/conditions.js";
import type { Duration } from "../../../src/api/duration.js";
import type { InstanceGroupManagerStatus } from "../../../src/api/instance-group-manager.js";
import { REST_KIND } from "../../../src/api/names.js";
import type { Provisioning, Release, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decide, type Plan, type RequestChange } from "../../../src/controllers/resize/decide/index.js";
import { execute } from "./cluster.js";
import { numericId, resizeRequestLinks } from "../../../src/api/identity.js";
import {
  DEFAULT_DECIDE_CONFIG,
  type DecideConfig,
  type GroupSnapshot,
  type GroupView,
} from "../../../src/controllers/resize/snapshot.js";
import { type RequestView } from "../../../src/cache/request-view.js";
import { type TargetView } from "../../../src/targets/view.js";
import { rfc3339 } from "../../../src/api/time.js";

/** A fixed "now" for every single-step test: 2025-01-01T00:10:00Z. */
export const T0 = Date.parse("2025-01-01T00:10:00.000Z");
export const SEC = 1000;
export const MIN = 60 * SEC;

/** A moment as the controller writes it in status fields (api/time.ts). */
export const iso = rfc3339;

export const NAMESPACE = "team-a";
export const GROUP_NAME = "pool";
export const ZONE = "us-central1-a";

export const CFG: DecideConfig = {
  ...DEFAULT_DECIDE_CONFIG,
  publicUrl: "http://operator.test",
  backoffBaseMs: 10 * SEC,
  backoffMaxMs: 5 * MIN,
  admissionGraceMs: 30 * SEC,
  pollIntervalMs: 1 * SEC,
};

export function group(overrides: Partial<GroupView> = {}): GroupView {
  return {
    name: GROUP_NAME,
    uid: "uid-group-pool",
    generation: 3,
    location: { scope: "zones", name: ZONE },
    maxSize: 10,
    minSize: 0,
    provisioningTimeoutMs: 10 * MIN,
    targetApiVersion: "apps/v1",
    targetKind: "Deployment",
    targetName: "workers",
    maxQueueDurationMs: undefined,
    clusterAutoscaler: "Detect",
    unschedulableGracePeriodMs: 60 * SEC,
    ...overrides,
  };
}

export const found = (replicas: number, readyReplicas = replicas): TargetView => ({
  found: true,
  replicas,
  readyReplicas,
});
export const notFoundTarget: TargetView = {
  found: false,
  reason: "NotFound",
  message: "deployments.apps workers not found",
};
export const notScalableTarget: TargetView = {
  found: false,
  reason: "NotScalable",
  message: "ConfigMap/workers has no /scale subresource",
};

export interface RequestOptions {
  readonly resizeBy?: number;
  readonly instances?: readonly string[];
  /** Creation time, absolute milliseconds; defaults to ten minutes before T0. */
  readonly created?: number;
  readonly cancel?: boolean;
  readonly deleting?: boolean;
  readonly hasFinalizer?: boolean;
  readonly forProvisioningRequest?: boolean;
  readonly run?: Duration;
  readonly generation?: number;
  readonly status?: ResizeRequestStatus;
}

export function req(name: string, o: RequestOptions = {}): RequestView {
  const spec: RequestView["spec"] = {
    instanceGroupManager: GROUP_NAME,
    cancel: o.cancel ?? false,
    ...(o.instances !== undefined
      ? { instances: o.instances.map((name) => ({ name })) }
      : { resizeBy: o.resizeBy ?? 2 }),
    ...(o.run !== undefined && { requestedRunDuration: o.run }),
  };
  return {
    name,
    uid: `uid-${name}`,
    generation: o.generation ?? 1,
    creationTimestamp: iso(o.created ?? T0 - 10 * MIN),
    deleting: o.deleting ?? false,
    hasFinalizer: o.hasFinalizer ?? false,
    forProvisioningRequest: o.forProvisioningRequest ?? false,
    spec,
    status: o.status ?? {},
  };
}

function zonalLinks(name: string, id: string) {
  const links = resizeRequestLinks(
    CFG.publicUrl,
    NAMESPACE,
    { scope: "zones", name: ZONE },
    GROUP_NAME,
    name,
    id,
  );
  return { zone: links.location, selfLink: links.selfLink, selfLinkWithId: links.selfLinkWithId };
}

/** The identity fields decide writes on every request of a group in ZONE (kind, id, links...). */
export function identityOf(
  name: string,
  created: number = T0 - 10 * MIN,
  generation = 1,
): ResizeRequestStatus {
  const id = numericId(`uid-${name}`);
  return {
    kind: REST_KIND.resizeRequest,
    id,
    creationTimestamp: iso(created),
    ...zonalLinks(name, id),
    observedGeneration: generation,
  };
}

export interface SnapshotOptions {
  readonly now?: number;
  /** null: the group does not exist. */
  readonly group?: GroupView | null;
  /** Explicit target view; otherwise built from replicas/ready. */
  readonly target?: TargetView;
  readonly replicas?: number;
  readonly ready?: number;
  readonly unschedulable?: string;
  readonly requests?: readonly RequestView[];
  /** The group's FutureReservations (queue holds, decide/bookings.ts). */
  readonly bookings?: GroupSnapshot["bookings"];
}

export function snap(o: SnapshotOptions = {}): GroupSnapshot {
  const g = o.group === null ? undefined : (o.group ?? group());
  const replicas = o.replicas ?? 2;
  return {
    nowMs: o.now ?? T0,
    config: CFG,
    namespace: NAMESPACE,
    groupName: GROUP_NAME,
    group: g,
    target: g === undefined ? undefined : (o.target ?? found(replicas, o.ready ?? replicas)),
    // The scheduler's message on the target's pods: what a pod-placed kind's shortfall says (targets/pods.ts).
    ...(o.unschedulable !== undefined && { shortfall: { message: o.unschedulable } }),
    requests: o.requests ?? [],
    ...(o.bookings && { bookings: o.bookings }),
  };
}

// ---- Statuses of requests in each phase -----------------------------------------------------------

/** Conditions as decide writes them for an active request, set a while ago (T0 - 5min). */
export function activeConditions(kind: "queued" | "provisioning", reason: string): Condition[] {
  const at = iso(T0 - 5 * MIN);
  const c = (type: string, status: "True" | "False", r: string): Condition => ({
    type,
    status,
    reason: r,
    message: `${type} ${status}`,
    observedGeneration: 1,
    lastTransitionTime: at,
  });
  return [
    c("Accepted", "True", "Admitted"),
    c("Queued", kind === "queued" ? "True" : "False", reason),
    c("Provisioning", kind === "provisioning" ? "True" : "False", reason),
  ];
}

export function accepted(name: string, extra: ResizeRequestStatus = {}): ResizeRequestStatus {
  return {
    ...identityOf(name),
    state: "ACCEPTED",
    reason: "Queued",
    conditions: activeConditions("queued", "Queued"),
    ...extra,
  };
}

/** accepted() for a request created at `created` (its identity fields as decide writes them). */
export function acceptedAt(
  name: string,
  created: number,
  extra: ResizeRequestStatus = {},
): ResizeRequestStatus {
  return accepted(name, { ...identityOf(name, created), ...extra });
}

/** The message of Queued=True for a request waiting behind the head (it carries no position). */
export const queuedMessage = (groupName: string = GROUP_NAME): string =>
  `Waiting in the queue of group ${groupName} (first come, first served).`;

export function provisioningStatus(
  name: string,
  p: Partial<Provisioning> & Pick<Provisioning, "phase" | "baseReplicas" | "targetReplicas">,
  extra: ResizeRequestStatus = {},
): ResizeRequestStatus {
  const attempt = p.attempt ?? 1;
  return accepted(name, {
    reason: "Provisioning",
    conditions: activeConditions("provisioning", "Provisioning"),
    attempts: attempt,
    provisioning: {
      attempt,
      startedTime: iso(T0 - MIN),
      deadline: iso(T0 + 9 * MIN),
      ...p,
    },
    ...extra,
  });
}

/** When the attempts of appliedAttempt() were applied: 30 s before T0. */
export const APPLIED = T0 - 30 * SEC;

/** An Applied attempt raising the target from 2 to 5 (applied at APPLIED, deadline 9 min after T0). */
export function appliedAttempt(o: Partial<Provisioning> = {}): Provisioning {
  return {
    attempt: 1,
    phase: "Applied",
    baseReplicas: 2,
    targetReplicas: 5,
    startedTime: iso(T0 - 40 * SEC),
    appliedTime: iso(APPLIED),
    deadline: iso(T0 + 9 * MIN),
    ...o,
  };
}

/** Request `name` of size 3 holding appliedAttempt(`p`), with its finalizer. */
export function appliedRequest(
  name: string,
  p: Partial<Provisioning> = {},
  extra: ResizeRequestStatus = {},
): RequestView {
  return req(name, {
    resizeBy: 3,
    hasFinalizer: true,
    status: provisioningStatus(name, appliedAttempt(p), extra),
  });
}

export function finalStatus(
  name: string,
  state: "SUCCEEDED" | "FAILED" | "CANCELLED",
  extra: ResizeRequestStatus = {},
): ResizeRequestStatus {
  return { ...identityOf(name), state, reason: state === "SUCCEEDED" ? "Provisioned" : state, ...extra };
}

export function releaseOf(
  r: Partial<Release> & Pick<Release, "phase" | "baseReplicas" | "targetReplicas">,
): Release {
  return { startedTime: iso(T0 - SEC), ...r };
}

// ---- Plan inspection ---------------------------------------------------------------------------

export function changeOf(plan: Plan, name: string): RequestChange | undefined {
  return plan.requests.find((c) => c.name === name);
}

/** The new status of `name`; fails the test when the plan does not write one. */
export function statusOf(plan: Plan, name: string): ResizeRequestStatus {
  const status = changeOf(plan, name)?.status;
  if (status === undefined) throw new Error(`the plan writes no status for ${name}`);
  return status;
}

/** Names of the requests whose status the plan writes (a finalizer change alone is not a status write). */
export function statusWrites(plan: Plan): string[] {
  return plan.requests.filter((c) => c.status !== undefined).map((c) => c.name);
}

/** The status after the plan: the written one, or the observed one when the plan leaves it alone. */
export function statusAfter(plan: Plan, view: RequestView): ResizeRequestStatus {
  return changeOf(plan, view.name)?.status ?? view.status;
}

export function reasons(plan: Plan, name?: string): string[] {
  return plan.events.filter((e) => name === undefined || e.request === name).map((e) => e.event.reason);
}

export function cond(
  status: ResizeRequestStatus | InstanceGroupManagerStatus,
  type: string,
): Condition | undefined {
  return status.conditions?.find((c) => c.type === type);
}

// ---- Driving plans: the real executor writes, a simulated cluster makes instances ready -----------

export interface Step {
  readonly index: number;
  readonly before: GroupSnapshot;
  readonly plan: Plan;
  readonly after: GroupSnapshot;
  readonly scaleApplied: boolean;
}

export interface DriveOptions {
  readonly cfg?: DecideConfig;
  readonly maxSteps?: number;
  /** Ready instances never exceed this (cluster room); beyond it the scheduler reports unschedulable. */
  readonly capacity?: number;
  /** New instances are ready at the next decision already (a target that is ready the moment it is scaled). */
  readonly readyAtOnce?: boolean;
  /** Steps (0-based) whose scale is dropped, as if the controller crashed after the status write. */
  readonly crashAt?: readonly number[];
  /**
   * The number of status writes of step `index` that land before a conflict ends the pass (see
   * Cut.statusWrites); undefined: the whole pass is carried out.
   */
  readonly conflictAt?: (index: number, plan: Plan) => number | undefined;
  /** Mutates the snapshot before a step's decision (user actions: cancel, delete, new requests...). */
  readonly before?: (index: number, s: GroupSnapshot) => GroupSnapshot;
}

export interface DriveResult {
  readonly steps: readonly Step[];
  readonly final: GroupSnapshot;
  readonly groupStatus: InstanceGroupManagerStatus | undefined;
  /** Every scale actually applied to the target, in order. */
  readonly applied: readonly { readonly request: string; readonly from: number; readonly replicas: number }[];
  readonly quiet: boolean;
  /** Broken invariants of the protocol, one line each (expected to stay empty). */
  readonly violations: readonly string[];
}

/** Invariants every single step must keep, whatever the scenario. */
export function checkStep(before: GroupSnapshot, plan: Plan, after: GroupSnapshot): string[] {
  const problems: string[] = [];
  for (const r of before.requests) {
    const next = changeOf(plan, r.name)?.status ?? r.status;
    const state = r.status.state;
    if ((state === "SUCCEEDED" || state === "FAILED" || state === "CANCELLED") && next.state !== state)
      problems.push(`${r.name}: final state ${state} became ${String(next.state)}`);
    if (r.status.error !== undefined && next.error === undefined) problems.push(`${r.name}: error removed`);
  }
  const inFlight = after.requests.filter((r) => r.status.provisioning !== undefined);
  if (inFlight.length > 1) problems.push(`${inFlight.length} attempts in flight`);
  if (plan.scale) {
    const { request, from, replicas } = plan.scale;
    if (before.target?.found && before.target.replicas !== from)
      problems.push(`scale from ${from} but the target has ${before.target.replicas}`);
    const recorded = changeOf(plan, request)?.status ?? byName(before, request)?.status;
    const record = recorded?.provisioning ?? recorded?.release;
    if (record?.baseReplicas !== from || record.targetReplicas !== replicas)
      problems.push(`scale ${request} ${from}->${replicas} is not the recorded change`);
  }
  // A change may start in the plan that resolves the previous one, but its record is written after
  // every other status of the plan (a conflict on the resolution then ends the pass first); the next
  // decision follows at once.
  const resolvedBy = resolvedIn(before, plan);
  if (plan.scale) {
    const writes = plan.requests.filter((c) => c.status !== undefined).map((c) => c.name);
    const at = writes.indexOf(plan.scale.request);
    if (at !== -1 && at !== writes.length - 1)
      problems.push(`the record of ${plan.scale.request}'s scale is not the last status written`);
  }
  if (resolvedBy.length > 0 && plan.requeueAfterMs !== 0)
    problems.push(`a change was resolved, requeueAfterMs is ${String(plan.requeueAfterMs)}, not 0`);
  // Only one change at a time: at most one started, and never next to one still unresolved.
  // (A release at the minSize floor starts and ends at once, applying nothing: not a change here.)
  const started = startedIn(before, plan).filter((name) => {
    const next = after.requests.find((r) => r.name === name)?.status;
    return next?.provisioning !== undefined || next?.release?.phase === "Applying";
  });
  if (started.length > 1) problems.push(`${started.join(",")} started changes in one plan`);
  for (const name of started) {
    const holders = after.requests.filter(
      (r) =>
        r.name !== name && (r.status.provisioning !== undefined || r.status.release?.phase === "Applying"),
    );
    if (holders.length > 0)
      problems.push(`${name} started a change while ${holders.map((r) => r.name).join(",")} holds one`);
  }
  // FIFO: an attempt never starts while an older admitted request is still waiting in the queue.
  const starters = startedIn(before, plan).filter((n) => changeOf(plan, n)?.status?.provisioning);
  for (const name of starters) {
    const starter = byName(before, name);
    for (const r of before.requests) {
      if (starter === undefined || r.name === name) continue;
      const next = changeOf(plan, r.name)?.status ?? r.status;
      const older =
        r.creationTimestamp < starter.creationTimestamp ||
        (r.creationTimestamp === starter.creationTimestamp && r.name < name);
      if (older && next.state === "ACCEPTED" && next.provisioning === undefined)
        problems.push(`${name} started while the older ${r.name} waits in the queue`);
    }
  }
  return problems;
}

/**
 * Requests whose recorded change this plan resolves: an attempt that leaves its record behind (success,
 * back to the queue, cancelled), or a release record confirmed Applied.
 */
export function resolvedIn(before: GroupSnapshot, plan: Plan): string[] {
  return before.requests
    .filter((r) => {
      const next = changeOf(plan, r.name)?.status ?? r.status;
      return (
        (r.status.provisioning !== undefined && next.provisioning === undefined) ||
        (r.status.release?.phase === "Applying" && next.release?.phase === "Applied")
      );
    })
    .map((r) => r.name);
}

/** Requests that start a change in this plan: a new attempt's record, or a new release. */
export function startedIn(before: GroupSnapshot, plan: Plan): string[] {
  return before.requests
    .filter((r) => {
      const next = changeOf(plan, r.name)?.status ?? r.status;
      const newAttempt =
        next.provisioning?.phase === "Applying" &&
        next.provisioning.attempt !== r.status.provisioning?.attempt;
      return newAttempt || (r.status.release === undefined && next.release !== undefined);
    })
    .map((r) => r.name);
}

/**
 * Runs decide → execute (the real executor, against a fake API server) until a decision changes
 * nothing, schedules no scale and asks for no requeue (or maxSteps). The clock advances by the
 * requested requeue delay (at least one second). New instances become ready one step after they were
 * added (scale-downs take effect at once).
 */
export async function drive(start: GroupSnapshot, o: DriveOptions = {}): Promise<DriveResult> {
  const cfg = o.cfg ?? CFG;
  const steps: Step[] = [];
  const applied: { request: string; from: number; replicas: number }[] = [];
  let s = start;
  let groupStatus: InstanceGroupManagerStatus | undefined;
  let quiet = false;
  const violations: string[] = [];
  for (let i = 0; i < (o.maxSteps ?? 200); i++) {
    if (o.before) s = o.before(i, s);
    const plan = decide({ ...s, config: cfg, groupStatus });
    const replicasBefore = s.target?.found ? s.target.replicas : 0;
    const dropScale = o.crashAt?.includes(i) ?? false;
    const writes = o.conflictAt?.(i, plan);
    const executed = await execute(s, plan, {
      dropScale,
      ...(writes !== undefined && { statusWrites: writes }),
      ...(groupStatus && { groupStatus }),
    });
    groupStatus = executed.groupStatus;
    let next = executed.after;
    const target = next.target;
    const scaleApplied =
      plan.scale !== undefined && target?.found === true && target.replicas !== replicasBefore;
    if (plan.scale && scaleApplied) applied.push({ ...plan.scale });
    if (target?.found) {
      // kwok-like: instances added by this step are still unready at the next decision, ready after.
      const cap = o.capacity ?? Number.POSITIVE_INFINITY;
      next = {
        ...next,
        target: {
          ...target,
          readyReplicas: Math.min(target.replicas, o.readyAtOnce ? target.replicas : replicasBefore, cap),
        },
        shortfall:
          target.replicas > cap
            ? { message: `0/3 nodes are available: ${target.replicas - cap} Insufficient nvidia.com/gpu.` }
            : undefined,
      };
    }
    violations.push(...checkStep(s, plan, next).map((v) => `step ${i}: ${v}`));
    steps.push({ index: i, before: s, plan, after: next, scaleApplied });
    const changed = plan.requests.length > 0 || plan.scale !== undefined;
    next = { ...next, nowMs: next.nowMs + Math.max(SEC, plan.requeueAfterMs ?? SEC) };
    s = next;
    if (!changed && plan.requeueAfterMs === undefined) {
      quiet = true;
      break;
    }
  }
  return { steps, final: s, groupStatus, applied, quiet, violations };
}

export const byName = (s: GroupSnapshot, name: string): RequestView | undefined =>
  s.requests.find((r) => r.name === name);

export const replicasOf = (s: GroupSnapshot): number => (s.target?.found ? s.target.replicas : -1);

/**
 * A value as the API server returns it: Kubernetes serves custom resources from unstructured maps, so
 * object keys come back in alphabetical order whatever order they were written in.
 */
export function asServed<T>(value: T): T {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, x]) => [k, sort(x)]),
          )
        : v;
  return sort(value) as T;
}
