// TEST INFRASTRUCTURE. The decisions of the testbed's node-pool controller (node-pool-controller.ts),
// kept pure so that a table test covers them: from the NodePools and Nodes it observed, which kwok
// Nodes to create and delete and which NodePool statuses to write. The controller only performs them.
import type { V1Node } from "@kubernetes/client-node";
import { POOL_LABEL, type NodePool, type NodePoolStatus } from "./node-pool.js";

/** What the controller must do this pass. `pool` is `<namespace>/<name>`, for its log lines. */
export interface NodePoolPlan {
  readonly create: readonly { readonly pool: string; readonly node: V1Node }[];
  readonly delete: readonly {
    readonly pool: string;
    readonly node: string;
    readonly reason: "scaled down" | "pool deleted";
  }[];
  readonly status: readonly {
    readonly namespace: string;
    readonly name: string;
    readonly status: Required<NodePoolStatus>;
  }[];
  /** Pools that cannot be served as declared; they get no nodes (and no status) until fixed. */
  readonly problems: readonly { readonly pool: string; readonly message: string }[];
}

/** The value of POOL_LABEL on a pool's nodes: a label value holds at most 63 characters. */
export const poolKey = (namespace: string, name: string): string => `${namespace}.${name}`;

/** The label selector (status.selector, and so the Scale's) that matches a pool's nodes. */
export const poolSelector = (namespace: string, name: string): string =>
  `${POOL_LABEL}=${poolKey(namespace, name)}`;

const nodePrefix = (namespace: string, name: string): string => `${namespace}-${name}-`;

/** `<namespace>-<pool>-<index>`: namespaces and custom-resource names are already lowercase DNS names. */
export const poolNodeName = (namespace: string, name: string, index: number): string =>
  `${nodePrefix(namespace, name)}${index}`;

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** The Node a pool's replica `index` is: a kwok node with the pool's labels, taints and allocatable. */
export function poolNode(pool: NodePool, index: number): V1Node {
  const { namespace, name } = pool.metadata;
  const nodeName = poolNodeName(namespace, name, index);
  // Quantities may be declared as YAML integers (`cpu: 32`); a Node carries them as strings.
  const allocatable = Object.fromEntries(
    Object.entries(pool.spec.allocatable).map(([resource, q]) => [resource, String(q)]),
  );
  const taints = (pool.spec.taints ?? []).map((t) => ({
    key: t.key,
    ...(t.value !== undefined && { value: t.value }),
    effect: t.effect,
  }));
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: nodeName,
      // kwok in this testbed manages only nodes carrying this annotation (cluster.ts); ttl 0 as kwok's own nodes.
      annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        // Defaults a pool may override (an arm64 pool declares kubernetes.io/arch: arm64).
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        type: "kwok",
        ...pool.spec.labels,
        // Never overridden: the hostname is the node's, and the pool label is how nodes are owned.
        "kubernetes.io/hostname": nodeName,
        [POOL_LABEL]: poolKey(namespace, name),
      },
    },
    ...(taints.length > 0 && { spec: { taints } }),
    status: { allocatable, capacity: allocatable },
  };
}

const isReady = (node: V1Node): boolean =>
  node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** The replica index in a member's name; a name that does not parse sorts above every index. */
function indexOf(node: V1Node, prefix: string): number {
  const name = node.metadata?.name ?? "";
  const digits = name.startsWith(prefix) ? name.slice(prefix.length) : "";
  return /^(0|[1-9][0-9]*)$/.test(digits) ? Number(digits) : Number.POSITIVE_INFINITY;
}

const sameStatus = (current: NodePoolStatus | undefined, wanted: Required<NodePoolStatus>): boolean =>
  current?.replicas === wanted.replicas &&
  current.readyReplicas === wanted.readyReplicas &&
  current.selector === wanted.selector &&
  current.observedGeneration === wanted.observedGeneration;

/**
 * Scale-up creates the lowest free indices (a name another node already has is skipped, so two pools
 * whose names collide, `a-b`/`c` and `a`/`b-c`, never fight over one node); scale-down deletes the
 * highest indices first; the nodes of a pool that no longer exists (or is being deleted) are deleted.
 * Status counts the pool's nodes as observed, and is planned only when it differs from the current one.
 */
export function planNodePools(pools: readonly NodePool[], nodes: readonly V1Node[]): NodePoolPlan {
  const create: NodePoolPlan["create"][number][] = [];
  const remove: NodePoolPlan["delete"][number][] = [];
  const status: NodePoolPlan["status"][number][] = [];
  const problems: NodePoolPlan["problems"][number][] = [];
  const taken = new Set(nodes.map((n) => n.metadata?.name ?? ""));
  const members = new Map<string, V1Node[]>();
  for (const node of nodes) {
    const key = node.metadata?.labels?.[POOL_LABEL];
    if (key !== undefined) members.set(key, [...(members.get(key) ?? []), node]);
  }
  const served = new Set<string>();

  for (const pool of pools) {
    const { namespace, name } = pool.metadata;
    const id = `${namespace}/${name}`;
    const key = poolKey(namespace, name);
    if (key.length > 63 || !LABEL_VALUE.test(key)) {
      problems.push({
        pool: id,
        message: `"${key}" is not a valid label value (at most 63 characters): shorten the namespace or pool name`,
      });
      continue;
    }
    if (pool.metadata.deletionTimestamp !== undefined) continue; // its nodes go with the unserved below
    served.add(key);
    const prefix = nodePrefix(namespace, name);
    const own = [...(members.get(key) ?? [])].sort((a, b) => indexOf(a, prefix) - indexOf(b, prefix));
    // A node being deleted still exists (it counts in status) but is neither kept nor deleted again.
    const live = own.filter((n) => n.metadata?.deletionTimestamp === undefined);
    const wanted = pool.spec.replicas ?? 0;
    for (const node of live.slice(wanted).reverse())
      remove.push({ pool: id, node: node.metadata?.name ?? "", reason: "scaled down" });
    for (let index = 0, missing = wanted - live.length; missing > 0; index++) {
      const nodeName = poolNodeName(namespace, name, index);
      if (taken.has(nodeName)) continue;
      taken.add(nodeName);
      create.push({ pool: id, node: poolNode(pool, index) });
      missing--;
    }
    const observed: Required<NodePoolStatus> = {
      replicas: own.length,
      readyReplicas: own.filter(isReady).length,
      selector: poolSelector(namespace, name),
      observedGeneration: pool.metadata.generation ?? 0,
    };
    if (!sameStatus(pool.status, observed)) status.push({ namespace, name, status: observed });
  }

  for (const [key, own] of members) {
    if (served.has(key)) continue;
    for (const node of own) {
      if (node.metadata?.deletionTimestamp !== undefined) continue;
      remove.push({ pool: key.replace(".", "/"), node: node.metadata?.name ?? "", reason: "pool deleted" });
    }
  }
  return { create, delete: remove, status, problems };
}

/** Whether an object listed as a NodePool has the fields the plan reads (the CRD's schema ensures it). */
export function isNodePool(item: unknown): item is NodePool {
  const o = item as Partial<NodePool> | undefined;
  return (
    typeof o?.metadata?.name === "string" &&
    typeof o.metadata.namespace === "string" &&
    typeof o.spec?.allocatable === "object"
  );
}
