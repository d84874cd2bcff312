// A NodePool's instances (kind.ts, nodeInstances): its NodeClaims by the karpenter.sh/nodepool label (one
// list call), each matched to the Node it registered among the Nodes the group's readiness selects.
// Without permission on NodeClaims the pool's Nodes are still labelled and listed, but a release is
// count-only: Karpenter chooses what goes.
import { GKE_PROVISIONING_REQUEST_LABEL } from "../../api/instance-labels.js";
import { KARPENTER } from "../../api/readiness.js";
import { isForbidden } from "../../runtime/api-errors.js";
import type { Node } from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import {
  createdMs,
  ownerOf,
  sameOwner,
  type InstancesView,
  type ObservedInstance,
} from "../instances/view.js";
import { isReadyInstance, type NodeReadinessRule } from "../node-readiness.js";
import { NODE_CLAIMS, type NodeClaim } from "./launches.js";

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

/** The pool's instances, or undefined (count-only) when the operator may not list its NodeClaims. */
export async function poolInstances(q: {
  readonly client: KubeClient;
  readonly ref: { readonly name: string };
  readonly selected: readonly Node[];
  readonly rule: NodeReadinessRule;
}): Promise<InstancesView | undefined> {
  const { client, ref, selected, rule } = q;
  let claims: readonly NodeClaim[];
  try {
    claims = (
      await client.resource(NODE_CLAIMS).list({ labelSelector: `${KARPENTER.nodePoolLabel}=${ref.name}` })
    ).items;
  } catch (err) {
    if (isForbidden(err)) return undefined;
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
