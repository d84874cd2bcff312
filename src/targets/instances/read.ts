// Reads a group's instances (view.ts decides what they mean): the Nodes its readiness counts, from the
// one cluster-wide Node informer, and for a Karpenter NodePool the pool's NodeClaims by label (one list
// call), each matched to the Node it registered; for an apps/v1 workload, its pods by its selector (one
// list call). Read only when a pass may claim or remove instances (observe.ts). Without permission on
// NodeClaims the pool's Nodes are still labelled and listed, but a release is count-only: Karpenter
// chooses what goes.
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { GKE_PROVISIONING_REQUEST_LABEL } from "../../api/instance-labels.js";
import { isKarpenterNodePool, KARPENTER, readinessSource } from "../../api/readiness.js";
import { isForbidden } from "../../runtime/api-errors.js";
import { PODS, type Node, type ObjectCondition, type Pod } from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import { NODE_CLAIMS, type NodeClaim } from "../karpenter/launches.js";
import { identityOf } from "../index.js";
import { machinesAt, type Machine } from "./machines.js";
import type { NodeCounter } from "../node-informers.js";
import type { TargetRead } from "../scale-client.js";
import { isReadyInstance, type NodeReadinessRule } from "../node-readiness.js";
import {
  ownerOf,
  type InstancesView,
  type ObservedInstance,
  type ReleaseMechanism,
  type RequestKey,
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

const createdMs = (timestamp: string | undefined): number => Date.parse(timestamp ?? "") || 0;

const sameOwner = (a: RequestKey | undefined, b: RequestKey | undefined): boolean =>
  a?.namespace === b?.namespace && a?.name === b?.name;

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

function fromClaim(claim: NodeClaim, node: Node | undefined, rule: NodeReadinessRule): ObservedInstance {
  const owner = ownerOf(claim.metadata.labels);
  const nodeOwner = ownerOf(node?.metadata.labels);
  return {
    node: claim.status?.nodeName ?? node?.metadata.name,
    nodeClaim: claim.metadata.name,
    owner: owner ?? nodeOwner,
    // A pass that labelled the NodeClaim may have ended before its Node: the next one finishes.
    complete: node === undefined ? owner !== undefined : sameOwner(owner, nodeOwner),
    gkeLabel: node?.metadata.labels?.[GKE_PROVISIONING_REQUEST_LABEL],
    createdMs: createdMs(claim.metadata.creationTimestamp),
    ready: node !== undefined && isReadyInstance(node, rule),
    deleting:
      claim.metadata.deletionTimestamp !== undefined || node?.metadata.deletionTimestamp !== undefined,
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
  if (!isKarpenterNodePool(ref)) return countOnly();
  let claims: readonly NodeClaim[];
  try {
    claims = (
      await client.resource(NODE_CLAIMS).list({ labelSelector: `${KARPENTER.nodePoolLabel}=${ref.name}` })
    ).items;
  } catch (err) {
    if (isForbidden(err)) return countOnly();
    throw err;
  }
  // Karpenter names a NodeClaim's Node (status.nodeName) a moment after the Node registered: until
  // then the cloud's instance id (providerID), set at launch, matches them.
  const byName = new Map(selected.map((n) => [n.metadata.name ?? "", n]));
  const byProvider = new Map(selected.flatMap((n) => (n.spec?.providerID ? [[n.spec.providerID, n]] : [])));
  const nodeOf = (c: NodeClaim): Node | undefined =>
    byName.get(c.status?.nodeName ?? "") ?? byProvider.get(c.status?.providerID ?? "");
  return {
    mechanism: "DeleteNodeClaims",
    items: claims.map((c) => fromClaim(c, nodeOf(c), rule)),
  };
}
