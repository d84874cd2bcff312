// Carries out a decision with the REAL executor (src/controllers/resize/execute.ts) and the real ScaleClient
// against an in-memory API server (test/support/fake-kube.ts): the snapshot the plan was decided on
// becomes objects (the group, its requests, the target Deployment), the plan is executed, optionally
// cut by an injected conflict or crash, and what landed is read back as the next snapshot.
import { FUTURE_RESERVATION_LABEL, WINDOW_END_ANNOTATION } from "../../../src/api/future-reservation.js";
import type { InstanceGroupManagerStatus } from "../../../src/api/instance-group-manager.js";
import { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../../../src/api/kinds.js";
import { API_VERSION, FINALIZER, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../../../src/api/names.js";
import { ResizeRequest } from "../../../src/api/resize-request.js";
import type { Plan } from "../../../src/controllers/resize/decide/index.js";
import { executePlan, type ExecuteOutcome } from "../../../src/controllers/resize/execute.js";
import type { GroupObjects } from "../../../src/controllers/resize/observe.js";
import type { GroupSnapshot, GroupView } from "../../../src/controllers/resize/snapshot.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import { ScaleClient, type TargetRead, type TargetRef } from "../../../src/targets/scale-client.js";
import type { EventRecorder } from "../../../src/events/recorder.js";
import type { ResourceLocation } from "../../../src/runtime/resource-kind.js";
import { conflictError, CrashError, FakeKube, type Injection } from "../../support/fake-kube.js";

/** Where an injected failure cuts a pass. */
export interface Cut {
  /**
   * A conflict at request status write number `statusWrites` (0-based, in the order the executor
   * writes them): finalizer additions and the earlier status writes land, nothing after.
   */
  readonly statusWrites?: number;
  /** A crash just before the /scale write: the statuses land; the scale and everything after do not. */
  readonly dropScale?: boolean;
}

export interface Executed {
  readonly after: GroupSnapshot;
  /** The group's status as stored after the pass. */
  readonly groupStatus: InstanceGroupManagerStatus | undefined;
  readonly outcome: ExecuteOutcome | "crashed";
  readonly emitted: readonly EmitRequest[];
  readonly fake: FakeKube;
}

const READY_FIELD = "status.readyReplicas";

type EmitRequest = Parameters<EventRecorder["emit"]>[0];

/** Collects what the executor emits. */
export class RecordingRecorder implements EventRecorder {
  readonly emitted: EmitRequest[] = [];
  emit(request: EmitRequest): void {
    this.emitted.push(request);
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
  stats(): ReturnType<EventRecorder["stats"]> {
    const emitted = this.emitted.length;
    return {
      emitted,
      invalid: 0,
      dropped: 0,
      failed: 0,
      written: emitted,
      retried: 0,
      buffered: 0,
      series: 0,
    };
  }
}

export function targetRefOf(s: GroupSnapshot): TargetRef | undefined {
  return s.group && { apiVersion: "apps/v1", kind: s.group.targetKind, name: s.group.targetName };
}

export function targetLocation(kind: string): ResourceLocation {
  return { apiVersion: "apps/v1", resource: `${kind.toLowerCase()}s`, namespaced: true };
}

/** The ResizeRequest a request view of the snapshot stands for. */
export function requestObject(s: GroupSnapshot, r: RequestView): ResizeRequest {
  return {
    apiVersion: API_VERSION,
    kind: RESIZE_REQUEST.kind,
    metadata: {
      name: r.name,
      namespace: s.namespace,
      uid: r.uid,
      generation: r.generation,
      creationTimestamp: r.creationTimestamp,
      ...(r.deleting && { deletionTimestamp: new Date(s.nowMs).toISOString() }),
      ...(r.hasFinalizer && { finalizers: [FINALIZER] }),
      ...(r.delivery && {
        labels: { [FUTURE_RESERVATION_LABEL]: r.delivery.booking },
        annotations: { [WINDOW_END_ANNOTATION]: new Date(r.delivery.windowEnd).toISOString() },
      }),
    },
    spec: r.spec,
    status: r.status,
  };
}

/** The InstanceGroupManager object the snapshot's group view stands for, as written (no defaults). */
export function groupObject(
  s: GroupSnapshot,
  g: GroupView,
  groupStatus?: InstanceGroupManagerStatus,
): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: INSTANCE_GROUP_MANAGER.kind,
    metadata: { name: g.name, namespace: s.namespace, uid: g.uid, generation: g.generation },
    spec: {
      ...(g.location.scope === "zones" ? { zone: g.location.name } : { region: g.location.name }),
      targetRef: { apiVersion: "apps/v1", kind: g.targetKind, name: g.targetName },
      ...(g.maxSize !== undefined && { maxSize: g.maxSize }),
      minSize: g.minSize,
      provisioningTimeout: `${g.provisioningTimeoutMs}ms`,
      readyReplicasField: READY_FIELD,
    },
    ...(groupStatus && { status: groupStatus }),
  };
}

/** A FakeKube holding the snapshot's group (with `groupStatus`), requests and target. */
export function clusterOf(s: GroupSnapshot, groupStatus?: InstanceGroupManagerStatus): FakeKube {
  const fake = new FakeKube(() => s.nowMs);
  const ref = targetRefOf(s);
  if (s.group && ref) {
    const where = targetLocation(ref.kind);
    fake.serve(ref.apiVersion, [
      { name: where.resource, kind: ref.kind, namespaced: true },
      { name: `${where.resource}/scale`, kind: "Scale", namespaced: true },
    ]);
    fake.seed(INSTANCE_GROUP_MANAGERS, groupObject(s, s.group, groupStatus));
    if (s.target?.found)
      fake.seed(where, {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name, namespace: s.namespace },
        spec: { replicas: s.target.replicas, selector: { matchLabels: { app: ref.name } } },
        status: { replicas: s.target.replicas, readyReplicas: s.target.readyReplicas },
      });
  }
  for (const r of s.requests) fake.seed(RESIZE_REQUESTS, requestObject(s, r));
  return fake;
}

/** The objects the observer would hand the executor, read from the cluster (with resourceVersions). */
export async function objectsOf(fake: FakeKube, s: GroupSnapshot, scale: ScaleClient): Promise<GroupObjects> {
  const raw = fake.peek(INSTANCE_GROUP_MANAGERS, { namespace: s.namespace, name: s.groupName });
  const group = raw && InstanceGroupManager.parse(raw);
  const requests = new Map<string, ResizeRequest>();
  for (const r of s.requests) {
    const stored = fake.peek(RESIZE_REQUESTS, { namespace: s.namespace, name: r.name });
    if (stored) requests.set(r.name, ResizeRequest.parse(stored));
  }
  const ref = targetRefOf(s);
  let target: TargetRead | undefined = s.target?.found === false ? s.target : undefined;
  if (s.target?.found && ref) target = await scale.read(s.namespace, ref, READY_FIELD);
  return { namespace: s.namespace, groupName: s.groupName, group, requests, target };
}

/** The snapshot after the pass: requests as stored (gone once deleted), the target's replicas. */
export function snapshotOf(fake: FakeKube, s: GroupSnapshot): GroupSnapshot {
  const requests: RequestView[] = [];
  for (const r of s.requests) {
    const raw = fake.peek(RESIZE_REQUESTS, { namespace: s.namespace, name: r.name });
    if (!raw) continue;
    const rr = ResizeRequest.parse(raw);
    const hasFinalizer = rr.metadata.finalizers?.includes(FINALIZER) ?? false;
    // The API server never keeps a deleted object without finalizers (a fixture may start that way).
    if (rr.metadata.deletionTimestamp !== undefined && !(rr.metadata.finalizers ?? []).length) continue;
    requests.push({ ...r, hasFinalizer, status: rr.status ?? {} });
  }
  let target = s.target;
  const ref = targetRefOf(s);
  if (target?.found && ref) {
    const stored = fake.peek(targetLocation(ref.kind), { namespace: s.namespace, name: ref.name });
    const replicas =
      stored?.spec && typeof stored.spec === "object" && "replicas" in stored.spec
        ? stored.spec.replicas
        : undefined;
    if (typeof replicas === "number") target = { ...target, replicas };
  }
  return { ...s, requests, target };
}

/** Runs the real executor on `plan`, decided on `s`, in a cluster holding `s`. */
export async function execute(
  s: GroupSnapshot,
  plan: Plan,
  options: Cut & { readonly groupStatus?: InstanceGroupManagerStatus; readonly inject?: Injection } = {},
): Promise<Executed> {
  const fake = clusterOf(s, options.groupStatus);
  const scale = new ScaleClient(fake);
  const objects = await objectsOf(fake, s, scale);
  if (options.inject) fake.inject(options.inject);
  if (options.statusWrites !== undefined)
    fake.inject({
      match: (c) => c.verb === "updateStatus" && c.resource === RESIZE_REQUESTS.resource,
      nth: options.statusWrites,
      when: "before",
      error: conflictError,
    });
  if (options.dropScale)
    fake.inject({
      match: (c) => c.verb === "update" && c.resource.endsWith("/scale"),
      when: "before",
      error: (c) => new CrashError(c),
    });
  const recorder = new RecordingRecorder();
  let outcome: Executed["outcome"];
  try {
    outcome = await executePlan({ client: fake, scale, recorder }, objects, plan);
  } catch (err) {
    if (!(err instanceof CrashError)) throw err;
    outcome = "crashed";
  }
  const group = fake.peek(INSTANCE_GROUP_MANAGERS, { namespace: s.namespace, name: s.groupName });
  return {
    after: snapshotOf(fake, s),
    groupStatus: group && InstanceGroupManager.parse(group).status,
    outcome,
    emitted: recorder.emitted,
    fake,
  };
}

/** The snapshot after the executor carried out `plan` on `s`, cut as asked (see `execute`). */
export async function afterExecuting(s: GroupSnapshot, plan: Plan, cut: Cut = {}): Promise<GroupSnapshot> {
  return (await execute(s, plan, cut)).after;
}
