// Gathers a group's snapshot for the decision (with the time, the settings and when the controller last
// wrote the group's status, which the reconciler remembers): the group and its requests from the informer caches;
// the target from its kind's informer where the operator may list and watch it (targets/informers.ts),
// otherwise with GETs of the object and its /scale (targets/scale-client.ts); the ready count from the target or from
// the Nodes cache (node-informers.ts); and, only while an attempt is in flight, what the target's kind
// says of its capacity (targets/kind.ts: why an Applied attempt's instances are missing, what lowering
// the target to roll one back must wait for) and of a limit the operator holds while instances go.
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
import { DEFAULT_READY_REPLICAS_FIELD, readinessSource } from "../../api/readiness.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import type { Lister } from "../../runtime/store.js";
import { BOOKINGS_BY_GROUP } from "../../cache/bookings.js";
import { IN_PLAY_BY_GROUP } from "../../cache/indexes.js";
import { identityOf, targetKindOf } from "../../targets/index.js";
import { readInstances } from "../../targets/instances/read.js";
import type { CapacityReading } from "../../targets/kind.js";
import type { NodeCounter } from "../../targets/node-informers.js";
import { NODE_READINESS_FORBIDDEN } from "../../targets/node-readiness.js";
import type { DecideConfig, GroupSnapshot } from "./snapshot.js";
import { requestView } from "../../cache/request-view.js";
import { type TargetView } from "../../targets/view.js";
import type { ScaleClient, TargetRead } from "../../targets/scale-client.js";
import { policyMissingMessage } from "./admission-guard.js";

export interface ObserveDeps {
  readonly groups: Lister<InstanceGroupManager>;
  readonly requests: Lister<ResizeRequest>;
  /** The FutureReservations cache, where the API server serves them (cache/bookings.ts). */
  readonly bookings?: Lister<FutureReservation>;
  readonly scale: ScaleClient;
  readonly client: KubeClient;
  /** Counts ready Nodes for groups with spec.readiness.nodeSelector. */
  readonly nodes: NodeCounter;
  readonly now: () => number;
  /** Why no target may be scaled now (admission-guard.ts); absent only in tests of other rules. */
  readonly admission?: { problem(): string | undefined };
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
    ...targetKindOf(group.spec.targetRef).details(read.object),
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

/**
 * The objects a snapshot was made from, as read (resourceVersions included): what the executor writes
 * over (execute.ts), each write guarded by the version read.
 */
export interface GroupObjects {
  readonly namespace: string;
  readonly groupName: string;
  readonly group: InstanceGroupManager | undefined;
  /** The requests in play, by name. */
  readonly requests: ReadonlyMap<string, ResizeRequest>;
  readonly target: TargetRead | undefined;
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

/**
 * One group's snapshot, read with the settings and what the controller remembers of the key (when it
 * last wrote the group's status), and the objects it was made from.
 */
export async function observeGroup(
  deps: ObserveDeps,
  namespace: string,
  groupName: string,
  config: DecideConfig,
  groupStatusWrittenMs?: number,
): Promise<{ readonly snapshot: GroupSnapshot; readonly objects: GroupObjects }> {
  const group = deps.groups.get(`${namespace}/${groupName}`);
  // Only the requests in play: a finished request with nothing left to do costs the pass nothing.
  const requests = deps.requests.byIndex(IN_PLAY_BY_GROUP, `${namespace}/${groupName}`);
  const nowMs = deps.now();
  let target: TargetRead | undefined;
  let targetView: TargetView | undefined;
  let capacity: CapacityReading = {};
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
    // The attempt in flight (one per group): what its kind says of the capacity it asked for.
    const attempt =
      requests.find((r) => r.status?.provisioning?.phase === "RollingBack") ??
      requests.find((r) => r.status?.provisioning?.phase === "Applied");
    if (attempt && target.found && targetView.found)
      capacity = await targetKindOf(ref).capacity({
        client: deps.client,
        namespace,
        ref,
        target,
        readyReplicas: targetView.readyReplicas,
        clusterAutoscaler: group.spec.clusterAutoscaler,
        attempt: attempt.status?.provisioning,
      });
  }
  const instances =
    group && target?.found && mayClaimOrRemove(requests, targetView, nowMs)
      ? await readInstances(deps.client, deps.nodes, group, target)
      : undefined;
  const limit =
    group && target?.found
      ? targetKindOf(group.spec.targetRef).capacityLimit?.(target.object, instances?.items.length)
      : undefined;
  const snapshot: GroupSnapshot = {
    nowMs,
    config,
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
    ...(capacity.shortfall && { shortfall: capacity.shortfall }),
    ...(capacity.lowering && { lowering: capacity.lowering }),
    ...(instances && { instances }),
    ...(limit && { limit }),
    requests: requests.map(requestView),
    ...(deps.bookings && { bookings: deps.bookings.byIndex(BOOKINGS_BY_GROUP, `${namespace}/${groupName}`) }),
    ...(group?.status && { groupStatus: group.status }),
    ...(group && groupStatusWrittenMs !== undefined && { groupStatusWrittenMs }),
  };
  const objects: GroupObjects = {
    namespace,
    groupName,
    group,
    requests: new Map(requests.map((r) => [r.metadata.name ?? "", r])),
    target,
  };
  return { snapshot, objects };
}
