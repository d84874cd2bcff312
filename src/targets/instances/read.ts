// Reads a group's instances (view.ts decides what they mean): the Nodes its readiness counts, from the
// one cluster-wide Node informer, matched by the target's kind to its own objects where it tells them
// apart (kind.ts, nodeInstances: a NodePool's NodeClaims); for a workload whose instances are pods,
// those by its selector (one list call), and for a kind whose instances are objects of its own, those
// its module lists (kind.ts, memberObjects). Read only when a pass may claim or remove instances
// (controllers/resize/observe.ts).
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { GKE_PROVISIONING_REQUEST_LABEL } from "../../api/instance-labels.js";
import { readinessSource } from "../../api/readiness.js";
import { PODS, type Node, type ObjectCondition } from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import { targetKindOf } from "../index.js";
import type { MemberObject } from "../kind.js";
import type { NodeCounter } from "../node-informers.js";
import type { TargetRead } from "../scale-client.js";
import { isReadyInstance, type NodeReadinessRule } from "../node-readiness.js";
import { ownerOf, type InstancesView, type ObservedInstance, createdMs } from "./view.js";

/** The field of an instance that names its object, by what the group's instances are. */
const NAMED_AS = { Pod: "pod", Machine: "machine" } as const;

/** A pod or a kind's own object (a Machine): a namespaced object of the group whose Ready condition says it counts. */
function fromMember(field: "pod" | "machine", object: MemberObject): ObservedInstance {
  const m = object.metadata;
  return {
    [field]: m?.name,
    node: undefined,
    nodeClaim: undefined,
    owner: ownerOf(m?.labels),
    complete: true,
    gkeLabel: undefined,
    createdMs: createdMs(m?.creationTimestamp),
    ready: isReady(object.status?.conditions),
    deleting: m?.deletionTimestamp !== undefined,
  };
}

const isReady = (conditions: readonly ObjectCondition[] | undefined): boolean =>
  conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

function fromNode(node: Node, rule: NodeReadinessRule): ObservedInstance {
  const labels = node.metadata.labels;
  return {
    node: node.metadata.name,
    nodeClaim: undefined,
    owner: ownerOf(labels),
    complete: true,
    gkeLabel: labels?.[GKE_PROVISIONING_REQUEST_LABEL],
    createdMs: createdMs(node.metadata.creationTimestamp),
    ready: isReadyInstance(node, rule),
    deleting: node.metadata.deletionTimestamp !== undefined,
  };
}

/** The group's instances, or undefined for a group whose readiness is not counted from Nodes. */
export async function readInstances(
  client: KubeClient,
  nodes: NodeCounter,
  group: InstanceGroupManager,
  target: TargetRead & { found: true },
): Promise<InstancesView | undefined> {
  const source = readinessSource(group.spec);
  const ref = group.spec.targetRef;
  const kind = targetKindOf(ref);
  if (source.kind !== "nodes") {
    const identity = kind.identity(ref, false);
    if (identity.instances === "Untracked" || identity.instances === "Node" || target.selector === undefined)
      return undefined;
    const { instances, mechanism } = identity;
    const q = { client, namespace: group.metadata.namespace ?? "", ref, selector: target.selector };
    // Pods stay here rather than in apps.ts: a /scale selector selects pods whatever the kind, and a
    // pod is core/v1's; only a kind whose instances are objects of its own lists them (a Machine).
    const objects =
      instances === "Pod"
        ? (await client.resource(PODS).list({ namespace: q.namespace, labelSelector: q.selector })).items
        : await kind.memberObjects?.(q);
    return objects && { mechanism, items: objects.map((o) => fromMember(NAMED_AS[instances], o)) };
  }
  const rule = { nodeSelector: source.nodeSelector, declaredTaints: group.spec.instanceShape?.taints ?? [] };
  const selected = nodes.selected(source.nodeSelector);
  const countOnly = (): InstancesView => ({
    mechanism: "CountOnly",
    items: selected.map((n) => fromNode(n, rule)),
  });
  // Where the kind tells its Nodes apart (a NodePool's NodeClaims), its own read; otherwise count-only.
  const own = await kind.nodeInstances?.({ client, ref, selected, rule });
  return own ?? countOnly();
}
