// Reads what Karpenter says of a NodePool target (karpenter.ts decides what it means): its NodeClaims
// by the karpenter.sh/nodepool label, and Karpenter's insufficient-capacity Events on NodeClaims. Read
// only while an attempt on the pool waits for its instances, like the pods of other targets
// (observe.ts). Without permission on NodeClaims (the chart's rbac.karpenter) they say nothing, and the
// view says why.
import { KARPENTER } from "../../api/readiness.js";
import { isForbidden } from "../../runtime/api-errors.js";
import { CORE_EVENTS, type Unstructured } from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import {
  CLUSTER_SCOPED_EVENTS_NAMESPACE,
  INSUFFICIENT_CAPACITY,
  karpenterView,
  NODE_CLAIMS,
  nodeLimitOf,
  type KarpenterView,
  type NodeClaim,
} from "./launches.js";

export async function readKarpenter(
  client: KubeClient,
  pool: string,
  nodePool: Unstructured,
): Promise<KarpenterView> {
  let nodeClaims: readonly NodeClaim[] = [];
  let unreadable: string | undefined;
  try {
    nodeClaims = (
      await client.resource(NODE_CLAIMS).list({ labelSelector: `${KARPENTER.nodePoolLabel}=${pool}` })
    ).items;
  } catch (err) {
    if (!isForbidden(err)) throw err;
    unreadable = `the operator may not list NodeClaims (install the chart with rbac.karpenter=true): ${err instanceof Error ? err.message : String(err)}`;
  }
  const events = await client.resource(CORE_EVENTS).list({
    namespace: CLUSTER_SCOPED_EVENTS_NAMESPACE,
    fieldSelector: `involvedObject.kind=${KARPENTER.nodeClaim},reason=${INSUFFICIENT_CAPACITY}`,
  });
  const view = karpenterView({ pool, nodeClaims, events: events.items, nodeLimit: nodeLimitOf(nodePool) });
  return unreadable === undefined ? view : { ...view, unreadable };
}
