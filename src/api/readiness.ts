// How a group counts its ready instances: from a field of its target (spec.readyReplicasField, the
// default), or from the Nodes its instances become (spec.readiness.nodeSelector), for targets that
// report no ready count of their own, such as Karpenter's static NodePools (their status.nodes counts
// NodeClaims once launched, Ready or not). One source per group; the model keeps them exclusive.
import { z } from "zod";
import { LabelValue, QUALIFIED_NAME, QUALIFIED_NAME_MAX, QualifiedName } from "./instance-shape.js";
import { boundedMap, celString, rule } from "./meta.js";

export const DEFAULT_READY_REPLICAS_FIELD = "status.readyReplicas";

/** Karpenter's API group, its NodePool kind and the label it puts on a pool's NodeClaims and Nodes. */
export const KARPENTER = {
  group: "karpenter.sh",
  nodePool: "NodePool",
  nodeClaim: "NodeClaim",
  nodePoolLabel: "karpenter.sh/nodepool",
} as const;

/** Whether a target reference names a Karpenter NodePool (any version of karpenter.sh). */
export function isKarpenterNodePool(ref: { readonly apiVersion: string; readonly kind: string }): boolean {
  return ref.apiVersion.startsWith(`${KARPENTER.group}/`) && ref.kind === KARPENTER.nodePool;
}

const NodeSelectorMap = rule(boundedMap(z.record(QualifiedName, LabelValue), 16), {
  // The API server checks only a map's values; its keys become a label selector, so CEL checks them.
  cel: `self.all(k, size(k) <= ${String(QUALIFIED_NAME_MAX)} && k.matches(${celString(QUALIFIED_NAME.source)}))`,
  message: "keys must be label keys such as karpenter.sh/nodepool",
  test: (selector) =>
    Object.keys(selector).every((k) => k.length <= QUALIFIED_NAME_MAX && QUALIFIED_NAME.test(k)),
});

export const NodeSelector = rule(
  NodeSelectorMap.meta({
    description:
      "Labels (key: value) that every Node of the group's instances carries, and no Node of anything else carries all of; for a Karpenter NodePool {karpenter.sh/nodepool: <pool name>}. An instance is ready when its Node is Ready, not cordoned, not being deleted, and carries no NoSchedule or NoExecute taint but those declared in spec.instanceShape.taints.",
  }),
  {
    cel: "size(self) > 0",
    message: "must name at least one label: an empty selector would count every Node of the cluster",
    test: (selector) => Object.keys(selector).length > 0,
  },
);

export const Readiness = z.object({ nodeSelector: NodeSelector }).meta({
  description:
    "Count the group's ready instances from Nodes instead of a field of the target, for targets that report no ready count (a Karpenter NodePool counts launched NodeClaims, Ready or not). The operator then needs to list and watch Nodes: install the chart with rbac.nodeReadiness=true (or rbac.karpenter=true).",
});

export type NodeSelector = z.infer<typeof NodeSelector>;
export type Readiness = z.infer<typeof Readiness>;

/** Where a group's ready count comes from. */
export type ReadinessSource =
  | { readonly kind: "field"; readonly path: string }
  | { readonly kind: "nodes"; readonly nodeSelector: NodeSelector };

/** The group's readiness source: its Nodes when it declares a selector, otherwise a field (default above). */
export function readinessSource(spec: {
  readonly readyReplicasField?: string | undefined;
  readonly readiness?: Readiness | undefined;
}): ReadinessSource {
  if (spec.readiness) return { kind: "nodes", nodeSelector: spec.readiness.nodeSelector };
  return { kind: "field", path: spec.readyReplicasField ?? DEFAULT_READY_REPLICAS_FIELD };
}
