// Gathers a group's snapshot for the decision: the group and its requests from the informer caches,
// the target fresh from the API server (its replicas decide crash recovery, so a cache will not do),
// and, only when an attempt's deadline has passed, why new pods are not running.
import { parseKubeDuration } from "../api/duration.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { groupLocation } from "../api/location.js";
import { FINALIZER } from "../api/names.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { PODS } from "../runtime/builtin-kinds.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { Lister } from "../runtime/store.js";
import { IN_PLAY_BY_GROUP } from "./in-play.js";
import type { GroupSnapshot, RequestView, TargetView } from "./snapshot.js";
import type { ScaleClient, TargetRead } from "./target.js";

/** Index of the ResizeRequest cache: "namespace/group" of the group a request names (all of them). */
export const BY_GROUP = "byGroup";
export const groupKeyOf = (rr: ResizeRequest): string =>
  `${rr.metadata.namespace ?? ""}/${rr.spec.instanceGroupManager}`;

export interface ObserveDeps {
  readonly groups: Lister<InstanceGroupManager>;
  readonly requests: Lister<ResizeRequest>;
  readonly scale: ScaleClient;
  readonly client: KubeClient;
  readonly now: () => number;
}

export interface Observation {
  readonly snapshot: GroupSnapshot;
  readonly group: InstanceGroupManager | undefined;
  readonly requests: ReadonlyMap<string, ResizeRequest>;
  readonly target: TargetRead | undefined;
}

export function requestView(rr: ResizeRequest): RequestView {
  const m = rr.metadata;
  return {
    name: m.name ?? "",
    uid: m.uid ?? "",
    generation: m.generation ?? 0,
    creationTimestamp: m.creationTimestamp ?? new Date(0).toISOString(),
    deleting: m.deletionTimestamp !== undefined,
    hasFinalizer: m.finalizers?.includes(FINALIZER) ?? false,
    spec: rr.spec,
    status: rr.status ?? {},
  };
}

/** The scheduler's message for the target's Pending-as-Unschedulable pods, if any. */
async function unschedulable(
  client: KubeClient,
  namespace: string,
  selector: string,
): Promise<string | undefined> {
  const pods = await client.resource(PODS).list({ namespace, labelSelector: selector });
  const stuck = pods.items.flatMap((p) =>
    p.status?.phase === "Pending"
      ? (p.status.conditions ?? []).filter(
          (c) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable",
        )
      : [],
  );
  const first = stuck[0];
  if (!first) return undefined;
  return `${stuck.length} pod(s) Unschedulable: ${first.message ?? "no message"}`;
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
  let stuck: string | undefined;
  if (group) {
    target = await deps.scale.read(namespace, group.spec.targetRef, group.spec.readyReplicasField);
    const overdue = requests.some((r) => {
      const deadline = r.status?.provisioning?.deadline;
      return deadline !== undefined && Date.parse(deadline) <= nowMs;
    });
    if (overdue && target.found && target.selector)
      stuck = await unschedulable(deps.client, namespace, target.selector);
  }
  const targetView: TargetView | undefined =
    target === undefined
      ? undefined
      : target.found
        ? { found: true, replicas: target.replicas, readyReplicas: target.readyReplicas }
        : target;
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
      provisioningTimeoutMs: parseKubeDuration(group.spec.provisioningTimeout) ?? 600_000,
      targetKind: group.spec.targetRef.kind,
      targetName: group.spec.targetRef.name,
    },
    target: targetView,
    unschedulable: stuck,
    requests: requests.map(requestView),
  };
  return {
    snapshot,
    group,
    requests: new Map(requests.map((r) => [r.metadata.name ?? "", r])),
    target,
  };
}
