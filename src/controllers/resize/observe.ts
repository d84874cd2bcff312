// Gathers a group's snapshot for the decision: the group and its requests from the informer caches;
// the target from its kind's informer where the operator may list and watch it (target-informers.ts),
// otherwise with GETs of the object and its /scale (target.ts); the ready count from the target or from
// the Nodes cache (node-informers.ts); and, only while an attempt is Applied and not all ready, which
// pods the scheduler cannot place and what a cluster autoscaler (or, for a Karpenter NodePool,
// Karpenter) said about them.
//
// A cached target may be a moment behind the API server, and that is safe. A scale change is written
// under the resourceVersion of the object it was decided on: if the object moved on, the write
// conflicts and goes ahead only when a fresh read of /scale still shows the replicas it was decided
// on (ScaleClient.scale). Our own write, until the cache delivers it, is laid over the cached object
// (own-writes.ts), so a pass right after it never takes the change for undone. Crash safety is
// unchanged: a change is recorded on the request's status before it is made, an absolute value made
// twice is harmless, and a restarted operator starts from a fresh list.
import type { FutureReservation } from "../../api/future-reservation.js";
import { groupDurations, type InstanceGroupManager } from "../../api/instance-group-manager.js";
import { groupLocation } from "../../api/location.js";
import { DEFAULT_READY_REPLICAS_FIELD, isKarpenterNodePool, readinessSource } from "../../api/readiness.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import {
  CORE_EVENTS,
  lastPosted,
  PODS,
  type CoreEvent,
  type Pod,
  type Unstructured,
} from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import type { Lister } from "../../runtime/store.js";
import { BOOKINGS_BY_GROUP } from "../../cache/bookings.js";
import { IN_PLAY_BY_GROUP } from "../../cache/indexes.js";
import { identityOf } from "../../targets/instances/kinds.js";
import { nodeLimitOfPool } from "../../targets/karpenter/node-limit.js";
import { readInstances } from "../../targets/instances/read.js";
import type { KarpenterView } from "../../targets/karpenter/launches.js";
import { readKarpenter } from "../../targets/karpenter/read.js";
import type { NodeCounter } from "../../targets/node-informers.js";
import { NODE_READINESS_FORBIDDEN } from "../../targets/node-readiness.js";
import { type AutoscalerEvent, type GroupSnapshot, type UnschedulablePod } from "./snapshot.js";
import { requestView } from "../../cache/request-view.js";
import { type TargetView } from "../../targets/view.js";
import type { ScaleClient, TargetRead } from "../../targets/scale-client.js";
import { policyMissingMessage } from "./admission-guard.js";

export interface ObserveDeps {
  readonly groups: Lister<InstanceGroupManager>;
  readonly requests: Lister<ResizeRequest>;
  /** The FutureReservations cache, where the API server serves them (booking-informer.ts). */
  readonly bookings?: Lister<FutureReservation>;
  readonly scale: ScaleClient;
  readonly client: KubeClient;
  /** Counts ready Nodes for groups with spec.readiness.nodeSelector. */
  readonly nodes: NodeCounter;
  readonly now: () => number;
  /** Why no target may be scaled now (admission-guard.ts); absent only in tests of other rules. */
  readonly admission?: { problem(): string | undefined };
}

/** A StatefulSet's spec.ordinals.start (named instances are checked against its next ordinals). */
function firstOrdinalOf(object: Unstructured): { firstOrdinal?: number } {
  if (object.apiVersion !== "apps/v1" || object.kind !== "StatefulSet") return {};
  const ordinals = (object as { spec?: { ordinals?: { start?: unknown } } }).spec?.ordinals;
  return { firstOrdinal: typeof ordinals?.start === "number" ? ordinals.start : 0 };
}

/** The target as the decision sees it: its ready count from the target itself or from Nodes. */
async function targetViewOf(
  deps: ObserveDeps,
  group: InstanceGroupManager,
  read: TargetRead,
): Promise<TargetView> {
  if (!read.found) return read;
  const view = {
    found: true as const,
    replicas: read.replicas,
    readyReplicas: read.readyReplicas,
    settled: read.settled,
    ...firstOrdinalOf(read.object),
  };
  const source = readinessSource(group.spec);
  if (source.kind === "field") return view;
  const counted = await deps.nodes.count({
    nodeSelector: source.nodeSelector,
    declaredTaints: group.spec.instanceShape?.taints ?? [],
  });
  if ("ready" in counted) return { ...view, readyReplicas: counted.ready, heldBack: counted.heldBack };
  return {
    ...view,
    readyReplicas: 0,
    readinessUnavailable: { reason: NODE_READINESS_FORBIDDEN, message: counted.forbidden },
  };
}

export interface Observation {
  readonly snapshot: GroupSnapshot;
  readonly group: InstanceGroupManager | undefined;
  readonly requests: ReadonlyMap<string, ResizeRequest>;
  readonly target: TargetRead | undefined;
}

/**
 * The component name cluster-autoscaler posts its pod events under: client-go's recorder writes it as
 * source.component (the `source` field selector of core/v1 events).
 */
export const CLUSTER_AUTOSCALER = "cluster-autoscaler";

const isVerdict = (reason: string | undefined): reason is AutoscalerEvent["reason"] =>
  reason === "NotTriggerScaleUp" || reason === "TriggeredScaleUp";

export interface Stuck {
  /** The scheduler's message, summarised for attempt errors; undefined when no pod is stuck. */
  readonly summary: string | undefined;
  readonly pods: readonly UnschedulablePod[];
}

/**
 * Pure: the pods the scheduler could not place (Pending, PodScheduled=False with reason Unschedulable),
 * each with the cluster autoscaler's scale-up events about it (matched by uid: a pod recreated under the
 * same name is another pod, and the autoscaler's word on the old one does not count).
 */
export function stuckPods(pods: readonly Pod[], events: readonly CoreEvent[]): Stuck {
  const stuck = pods.flatMap((pod) => {
    const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
    return pod.status?.phase === "Pending" &&
      scheduled?.status === "False" &&
      scheduled.reason === "Unschedulable"
      ? [{ pod, scheduled }]
      : [];
  });
  const verdicts = new Map<string, AutoscalerEvent[]>();
  for (const e of events) {
    const uid = e.involvedObject?.uid;
    if (uid === undefined || !isVerdict(e.reason)) continue;
    const verdict = { reason: e.reason, atMs: lastPosted(e), message: e.message ?? "" };
    verdicts.set(uid, [...(verdicts.get(uid) ?? []), verdict]);
  }
  const first = stuck[0];
  return {
    summary: first && `${stuck.length} pod(s) Unschedulable: ${first.scheduled.message ?? "no message"}`,
    pods: stuck.map(({ pod, scheduled }) => ({
      name: pod.metadata?.name ?? "",
      sinceMs: Date.parse(scheduled.lastTransitionTime ?? "") || 0,
      autoscalerEvents: verdicts.get(pod.metadata?.uid ?? "") ?? [],
    })),
  };
}

/**
 * The target's stuck pods: one list of its pods and, only when some are stuck and `autoscaler`
 * (clusterAutoscaler Detect), one list of the cluster autoscaler's pod events in the namespace.
 */
async function unschedulable(
  client: KubeClient,
  namespace: string,
  selector: string,
  autoscaler: boolean,
): Promise<Stuck> {
  const pods = (await client.resource(PODS).list({ namespace, labelSelector: selector })).items;
  const stuck = stuckPods(pods, []);
  if (!autoscaler || stuck.pods.length === 0) return stuck;
  const events = await client
    .resource(CORE_EVENTS)
    .list({ namespace, fieldSelector: `involvedObject.kind=Pod,source=${CLUSTER_AUTOSCALER}` });
  return stuckPods(pods, events.items);
}

/**
 * Whether a pass may claim instances (an attempt whose target is all ready may succeed now, from
 * Applying as well as Applied) or remove them (a rollback, a release due or being applied): only then
 * are the group's instances read (instances/read.ts), not on every poll of an attempt still waiting.
 */
function mayClaimOrRemove(
  requests: readonly ResizeRequest[],
  target: TargetView | undefined,
  nowMs: number,
): boolean {
  const allReady = target?.found === true && target.readyReplicas >= target.replicas;
  return requests.some((r) => {
    const s = r.status;
    const phase = s?.provisioning?.phase;
    if (phase === "RollingBack") return true;
    if (phase === "Applying" || phase === "Applied") return allReady;
    if (s?.state !== "SUCCEEDED" || s.release?.phase === "Applied") return false;
    return s.release !== undefined || (s.runUntil !== undefined && Date.parse(s.runUntil) <= nowMs);
  });
}

export async function observeGroup(
  deps: ObserveDeps,
  namespace: string,
  groupName: string,
): Promise<Observation> {
  const group = deps.groups.get(`${namespace}/${groupName}`);
  // Only the requests in play: a finished request with nothing left to do costs the pass nothing.
  const requests = deps.requests.byIndex(IN_PLAY_BY_GROUP, `${namespace}/${groupName}`);
  const nowMs = deps.now();
  let target: TargetRead | undefined;
  let targetView: TargetView | undefined;
  let stuck: Stuck | undefined;
  let karpenter: KarpenterView | undefined;
  if (group) {
    const ref = group.spec.targetRef;
    const source = readinessSource(group.spec);
    const unguarded = deps.admission?.problem();
    target = unguarded
      ? { found: false, reason: "AdmissionPolicyMissing", message: policyMissingMessage(unguarded) }
      : await deps.scale.read(
          namespace,
          ref,
          source.kind === "field" ? source.path : DEFAULT_READY_REPLICAS_FIELD,
        );
    targetView = await targetViewOf(deps, group, target);
    // Only an Applied attempt that is not all ready uses what the pods say (its timeout, its fast rollback);
    // a cluster-scoped target's selector names no pods of the group's namespace.
    const waiting = requests.some((r) => r.status?.provisioning?.phase === "Applied");
    const rollingBack = requests.some((r) => r.status?.provisioning?.phase === "RollingBack");
    if (rollingBack && target.found && isKarpenterNodePool(ref))
      // Before a rollback lowers the pool: is Karpenter still launching? (karpenter.ts, rollbackWait)
      karpenter = await readKarpenter(deps.client, ref.name, target.object);
    else if (waiting && target.found && targetView.found && targetView.readyReplicas < target.replicas) {
      if (target.served.namespaced && target.selector)
        stuck = await unschedulable(
          deps.client,
          namespace,
          target.selector,
          group.spec.clusterAutoscaler === "Detect",
        );
      // A Karpenter NodePool's instances are Nodes: Karpenter's own objects say why they are missing.
      if (isKarpenterNodePool(ref)) karpenter = await readKarpenter(deps.client, ref.name, target.object);
    }
  }
  const instances =
    group && target?.found && mayClaimOrRemove(requests, targetView, nowMs)
      ? await readInstances(deps.client, deps.nodes, group, target)
      : undefined;
  const snapshot: GroupSnapshot = {
    nowMs,
    namespace,
    groupName,
    group: group && {
      name: groupName,
      uid: group.metadata.uid ?? "",
      generation: group.metadata.generation ?? 0,
      location: groupLocation(group.spec),
      maxSize: group.spec.maxSize,
      minSize: group.spec.minSize,
      ...groupDurations(group.spec),
      targetApiVersion: group.spec.targetRef.apiVersion,
      targetKind: group.spec.targetRef.kind,
      targetName: group.spec.targetRef.name,
      clusterAutoscaler: group.spec.clusterAutoscaler,
      identity: identityOf(group.spec.targetRef, readinessSource(group.spec).kind === "nodes"),
    },
    target: targetView,
    unschedulable: stuck?.summary,
    ...(stuck && { unschedulablePods: stuck.pods }),
    ...(karpenter && { karpenter }),
    ...(instances && { instances }),
    ...(group &&
      target?.found &&
      isKarpenterNodePool(group.spec.targetRef) && {
        nodeLimit: nodeLimitOfPool(target.object),
      }),
    requests: requests.map(requestView),
    ...(deps.bookings && { bookings: deps.bookings.byIndex(BOOKINGS_BY_GROUP, `${namespace}/${groupName}`) }),
  };
  return {
    snapshot,
    group,
    requests: new Map(requests.map((r) => [r.metadata.name ?? "", r])),
    target,
  };
}
