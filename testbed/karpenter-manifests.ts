// What testbed/karpenter.ts gives Karpenter's kwok provider: its settings, the instance types its "cloud"
// offers, the one KWOKNodeClass its NodePools name, and static NodePools over them. Pure, so the unit
// tests check them without a cluster.
import { NODE_ALLOCATABLE, NODE_INSTANCE_TYPE, ZONE } from "./cluster.js";

export const KARPENTER = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;
/** Karpenter labels each of its Nodes with its NodePool's name. */
export const NODEPOOL_LABEL = "karpenter.sh/nodepool";
/** On a Karpenter Node until Karpenter has registered it (matched it to its NodeClaim). */
export const UNREGISTERED_TAINT = "karpenter.sh/unregistered";
/** Every NodePool of the testbed names this KWOKNodeClass. */
export const NODE_CLASS = { group: "karpenter.kwok.sh", kind: "KWOKNodeClass", name: "testbed" } as const;
/** Static NodePools (`spec.replicas`, and their /scale subresource) are behind this alpha gate. */
export const FEATURE_GATES = "StaticCapacity=true";

export interface KarpenterPorts {
  readonly metrics: number;
  readonly health: number;
}

/**
 * Karpenter's settings, as its Helm chart passes them (environment variables; it takes its kubeconfig
 * from KUBECONFIG only, its own flag set refuses controller-runtime's `--kubeconfig`). Why each one:
 * - leader election off: one replica, no Lease to wait for when it is restarted;
 * - metrics and health on free ports instead of 8080/8081, which `npm run dev`'s operator may hold;
 * - the instance types below instead of the kwok provider's built-in list of ~500 AWS-like shapes.
 */
export function karpenterEnvironment(
  kubeconfig: string,
  ports: KarpenterPorts,
  instanceTypesFile: string,
): Record<string, string> {
  return {
    KUBECONFIG: kubeconfig,
    FEATURE_GATES,
    DISABLE_LEADER_ELECTION: "true",
    METRICS_PORT: String(ports.metrics),
    HEALTH_PROBE_PORT: String(ports.health),
    INSTANCE_TYPES_FILE_PATH: instanceTypesFile,
  };
}

export interface InstanceType {
  readonly name: string;
  /** The machine's capacity; Karpenter's Node gets it less a small kube-reserved (100m CPU, 10Mi). */
  readonly resources: Readonly<Record<string, string>>;
}

/** What the testbed's Karpenter offers: the fixed nodes' GPU shape, and a CPU-only one. */
export const INSTANCE_TYPES: readonly InstanceType[] = [
  { name: NODE_INSTANCE_TYPE, resources: NODE_ALLOCATABLE },
  {
    name: "cpu-32x",
    resources: { cpu: "32", memory: "128Gi", pods: "110", "ephemeral-storage": "500Gi" },
  },
];

/**
 * The kwok provider's instance-types file: each shape offered on demand, for Linux on amd64, in the
 * testbed's zone only, so Karpenter's Nodes carry the zone label the fixed nodes and the groups use.
 */
export function instanceTypesFile(types: readonly InstanceType[] = INSTANCE_TYPES): string {
  return JSON.stringify(
    types.map((t) => ({
      name: t.name,
      architecture: "amd64",
      operatingSystems: ["linux"],
      resources: t.resources,
      offerings: [
        {
          Price: 1,
          Available: true,
          Requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            { key: "topology.kubernetes.io/zone", operator: "In", values: [ZONE] },
          ],
        },
      ],
    })),
    null,
    2,
  );
}

/** The KWOKNodeClass: Ready by its CRD's default status, its Nodes registered without delay. */
export function kwokNodeClass(): object {
  return {
    apiVersion: `${NODE_CLASS.group}/v1alpha1`,
    kind: NODE_CLASS.kind,
    metadata: { name: NODE_CLASS.name },
    spec: {},
  };
}

export interface StaticNodePoolSpec {
  /** One of INSTANCE_TYPES. */
  readonly instanceType: string;
  /** Defaults to 0. */
  readonly replicas?: number;
  /** `limits.nodes`: Karpenter makes no more Nodes than this, whatever `replicas` says. */
  readonly maxNodes?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly { key: string; value?: string; effect: "NoSchedule" | "NoExecute" }[];
}

/** A static NodePool (`spec.replicas` set): that many Nodes of one instance type, scaled through /scale. */
export function staticNodePool(name: string, spec: StaticNodePoolSpec): object {
  return {
    apiVersion: `${KARPENTER.group}/${KARPENTER.version}`,
    kind: "NodePool",
    metadata: { name },
    spec: {
      replicas: spec.replicas ?? 0,
      ...(spec.maxNodes !== undefined && { limits: { nodes: String(spec.maxNodes) } }),
      template: {
        ...(spec.labels && { metadata: { labels: spec.labels } }),
        spec: {
          nodeClassRef: NODE_CLASS,
          requirements: [
            { key: "node.kubernetes.io/instance-type", operator: "In", values: [spec.instanceType] },
          ],
          ...(spec.taints && { taints: spec.taints }),
        },
      },
    },
  };
}
