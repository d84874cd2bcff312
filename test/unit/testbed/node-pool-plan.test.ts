// The testbed node-pool controller's decisions (testbed/node-pool-plan.ts): which kwok Nodes to
// create and delete, and which statuses to write, from the NodePools and Nodes observed.
import type { V1Node } from "@kubernetes/client-node";
import { nodePool, POOL_LABEL, type NodePool, type NodePoolSpec } from "../../../testbed/node-pool.js";
import { planNodePools, poolNode, poolSelector } from "../../../testbed/node-pool-plan.js";

const SPEC: NodePoolSpec = { replicas: 0, allocatable: { cpu: "32", memory: "256Gi" } };

function pool(
  name: string,
  spec: Partial<NodePoolSpec>,
  extra: Partial<NodePool["metadata"]> = {},
): NodePool {
  const p = nodePool("team", name, { ...SPEC, ...spec });
  return { ...p, metadata: { ...p.metadata, generation: 1, ...extra } };
}

/** A node of pool `team/<name>` as the API would list it. */
function node(name: string, index: number, opts: { ready?: boolean; deleting?: boolean } = {}): V1Node {
  // A fresh object, so set in place (spreading client-node's model classes is not their idiom).
  const n = poolNode(pool(name, {}), index);
  if (opts.deleting && n.metadata) n.metadata.deletionTimestamp = new Date();
  if (n.status) n.status.conditions = [{ type: "Ready", status: opts.ready === false ? "False" : "True" }];
  return n;
}

/** `p` with the status of one ready node written at generation `observedGeneration`. */
function reported(p: NodePool, observedGeneration: number): NodePool {
  const name = p.metadata.name;
  return {
    ...p,
    status: { replicas: 1, readyReplicas: 1, selector: poolSelector("team", name), observedGeneration },
  };
}

const foreign = (name: string): V1Node => ({ metadata: { name, labels: { type: "kwok" } } });

interface Row {
  readonly what: string;
  readonly pools: readonly NodePool[];
  readonly nodes: readonly V1Node[];
  readonly create: readonly string[];
  readonly delete: readonly string[];
  /** [replicas, readyReplicas] of the status written, or undefined when none is written. */
  readonly status?: readonly [number, number];
}

const ROWS: readonly Row[] = [
  {
    what: "scale-up from nothing creates the lowest indices",
    pools: [pool("gpu", { replicas: 2 })],
    nodes: [],
    create: ["team-gpu-0", "team-gpu-1"],
    delete: [],
    status: [0, 0],
  },
  {
    what: "scale-up fills the lowest free index first",
    pools: [pool("gpu", { replicas: 3 })],
    nodes: [node("gpu", 1), node("gpu", 3, { ready: false })],
    create: ["team-gpu-0"],
    delete: [],
    status: [2, 1],
  },
  {
    what: "a name held by another node is skipped, not fought over",
    pools: [pool("gpu", { replicas: 2 })],
    nodes: [foreign("team-gpu-0")],
    create: ["team-gpu-1", "team-gpu-2"],
    delete: [],
    status: [0, 0],
  },
  {
    what: "scale-down deletes the highest indices first",
    pools: [pool("gpu", { replicas: 1 })],
    nodes: [node("gpu", 2), node("gpu", 0), node("gpu", 10)],
    create: [],
    delete: ["team-gpu-10", "team-gpu-2"],
    status: [3, 3],
  },
  {
    what: "a node being deleted counts in status but is neither deleted again nor kept",
    pools: [pool("gpu", { replicas: 1 })],
    nodes: [node("gpu", 0, { deleting: true }), node("gpu", 1)],
    create: [],
    delete: [],
    status: [2, 2],
  },
  {
    what: "the nodes of a deleted pool go; other nodes stay",
    pools: [pool("cpu", { replicas: 1 }, { deletionTimestamp: "2026-01-01T00:00:00Z" })],
    nodes: [node("gone", 0), node("gone", 1), node("cpu", 0), foreign("kwok-node-0")],
    create: [],
    delete: ["team-gone-0", "team-gone-1", "team-cpu-0"],
  },
  {
    what: "nothing to do and an unchanged status writes nothing",
    pools: [reported(pool("gpu", { replicas: 1 }), 1)],
    nodes: [node("gpu", 0)],
    create: [],
    delete: [],
  },
  {
    what: "a new generation is reported even when the counts are unchanged",
    pools: [reported(pool("gpu", { replicas: 1 }, { generation: 2 }), 1)],
    nodes: [node("gpu", 0)],
    create: [],
    delete: [],
    status: [1, 1],
  },
];

test.each(ROWS)("$what", (row) => {
  const plan = planNodePools(row.pools, row.nodes);
  expect(plan.create.map((c) => c.node.metadata?.name)).toEqual(row.create);
  expect(plan.delete.map((d) => d.node)).toEqual(row.delete);
  expect(plan.status.map((s) => [s.status.replicas, s.status.readyReplicas])).toEqual(
    row.status ? [row.status] : [],
  );
  expect(plan.problems).toEqual([]);
});

test("status carries the selector of the pool's nodes and the generation acted on", () => {
  const plan = planNodePools([pool("gpu", { replicas: 1 }, { generation: 7 })], []);
  expect(plan.status).toEqual([
    {
      namespace: "team",
      name: "gpu",
      status: {
        replicas: 0,
        readyReplicas: 0,
        selector: `${POOL_LABEL}=team.gpu`,
        observedGeneration: 7,
      },
    },
  ]);
});

test("deletions say why", () => {
  const plan = planNodePools([pool("gpu", { replicas: 0 })], [node("gpu", 0), node("old", 0)]);
  expect(plan.delete).toEqual([
    { pool: "team/gpu", node: "team-gpu-0", reason: "scaled down" },
    { pool: "team/old", node: "team-old-0", reason: "pool deleted" },
  ]);
});

test("a node carries the declared labels, taints and allocatable, and what kwok and the pool need", () => {
  const p = pool("gpu", {
    replicas: 1,
    allocatable: { cpu: 32, memory: "256Gi", pods: "110", "nvidia.com/gpu": "8" },
    labels: { "kubernetes.io/arch": "arm64", accelerator: "h100", "kubernetes.io/hostname": "spoof" },
    taints: [
      { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" },
      { key: "spot", effect: "NoExecute" },
    ],
  });
  const [created] = planNodePools([p], []).create;
  const allocatable = { cpu: "32", memory: "256Gi", pods: "110", "nvidia.com/gpu": "8" };
  expect(created?.node).toEqual({
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: "team-gpu-0",
      annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        accelerator: "h100",
        "kubernetes.io/arch": "arm64", // a declared label overrides a default
        "kubernetes.io/os": "linux",
        type: "kwok",
        "kubernetes.io/hostname": "team-gpu-0", // but never the hostname or the pool label
        [POOL_LABEL]: "team.gpu",
      },
    },
    spec: {
      taints: [
        { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" },
        { key: "spot", effect: "NoExecute" },
      ],
    },
    status: { allocatable, capacity: allocatable },
  });
});

test("a pool without taints makes nodes without a spec", () => {
  const [created] = planNodePools([pool("cpu", { replicas: 1 })], []).create;
  expect(created?.node.spec).toBeUndefined();
  expect(created?.node.metadata?.labels).toMatchObject({ "kubernetes.io/arch": "amd64" });
});

test("a pool whose label value would be too long is reported and gets no nodes", () => {
  const long = "p".repeat(60);
  const plan = planNodePools([pool(long, { replicas: 2 })], []);
  expect(plan.create).toEqual([]);
  expect(plan.status).toEqual([]);
  expect(plan.problems).toEqual([
    { pool: `team/${long}`, message: expect.stringContaining("at most 63 characters") as unknown },
  ]);
});
