// Reads a group's instances (view.ts decides what they mean): the Nodes its readiness counts, from the
// one cluster-wide Node informer, matched by the target's kind to its own objects where it tells them
// apart (kind.ts, nodeInstances: a NodePool's NodeClaims); for a workload whose instances are pods or
// Machines, those by its selector (one list call). Read only when a pass may claim or remove instances
// (controllers/resize/observe.ts).
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { GKE_PROVISIONING_REQUEST_LABEL } from "../../api/instance-labels.js";
import { readinessSource } from "../../api/readiness.js";
import { isForbidden } from "../../runtime/api-errors.js";
import { PODS, type Node, type ObjectCondition, type Pod } from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import { identityOf, targetKindOf } from "../index.js";
import { machinesAt, type Machine } from "./machines.js";
import type { NodeCounter } from "../node-informers.js";
import type { TargetRead } from "../scale-client.js";
import { isReadyInstance, type NodeReadinessRule } from "../node-readiness.js";
import {
  ownerOf,
  type InstancesView,
  type ObservedInstance,
  type ReleaseMechanism,
  createdMs,
} from "./view.js";

/** A pod or a Machine: a namespaced object of the group whose Ready condition says it counts. */
function fromMember(kind: "pod" | "machine", object: Pod | Machine): ObservedInstance {
  const m = object.metadata;
  return {
    [kind]: m?.name,
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

/**
 * A workload's pods, or a Cluster API target's Machines, by the selector its /scale reports. Without
 * permission to list Machines (a chart without the Cluster API rules) the group stays count-only.
 */
async function membersOf(
  client: KubeClient,
  namespace: string,
  instances: "Pod" | "Machine",
  mechanism: ReleaseMechanism,
  apiVersion: string,
  selector: string,
): Promise<InstancesView | undefined> {
  const at = { namespace, labelSelector: selector };
  if (instances === "Pod")
    return {
      mechanism,
      items: (await client.resource(PODS).list(at)).items.map((p) => fromMember("pod", p)),
    };
  try {
    return {
      mechanism,
      items: (await client.resource(machinesAt(apiVersion)).list(at)).items.map((m) =>
        fromMember("machine", m),
      ),
    };
  } catch (err) {
    if (isForbidden(err)) return undefined;
    throw err;
  }
}

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
  if (source.kind !== "nodes") {
    const identity = identityOf(ref, false);
    if (identity.instances === "Untracked" || identity.instances === "Node" || target.selector === undefined)
      return undefined;
    const namespace = group.metadata.namespace ?? "";
    const { instances, mechanism } = identity;
    return membersOf(client, namespace, instances, mechanism, ref.apiVersion, target.selector);
  }
  const rule = { nodeSelector: source.nodeSelector, declaredTaints: group.spec.instanceShape?.taints ?? [] };
  const selected = nodes.selected(source.nodeSelector);
  const countOnly = (): InstancesView => ({
    mechanism: "CountOnly",
    items: selected.map((n) => fromNode(n, rule)),
  });
  // Where the kind tells its Nodes apart (a NodePool's NodeClaims), its own read; otherwise count-only.
  const own = await targetKindOf(ref).nodeInstances?.({ client, ref, selected, rule });
  return own ?? countOnly();
}
