// The testbed's NodePool (testbed/node-pool.ts), the stand-in for a cloud node pool: scaled through
// the real /scale subresource (kubectl scale), its controller makes kwok Nodes with the declared
// labels, taints and allocatable that the real kube-scheduler places pods on; scaling down removes the
// highest index, and deleting the pool removes its nodes. Nodes are cluster-scoped and other files
// count them, so none of this file's is left behind.
import * as k8s from "@kubernetes/client-node";
import {
  NODE_POOL,
  nodePool,
  POOL_LABEL,
  startNodePoolController,
  type NodePool,
  type NodePoolController,
} from "../../../testbed/node-pool.js";
import { poolSelector } from "../../../testbed/node-pool-plan.js";
import { kubectl } from "../api/install.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { report } from "../../support/reliability.js";

const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
const POOL = "gpu";
const ALLOCATABLE = { cpu: "32", memory: "256Gi", pods: "110", "nvidia.com/gpu": "8" };
const TAINT = { key: "testbed.resize-operator.dev/dedicated", value: "gpu", effect: "NoSchedule" } as const;

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let controller: NodePoolController | undefined;

function env(name: "TESTBED_DIR" | "KUBECONFIG"): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is set by the jest global setup`);
  return value;
}

const api = (): { group: string; version: string; plural: string; namespace: string } => ({
  group: NODE_POOL.group,
  version: NODE_POOL.version,
  plural: NODE_POOL.plural,
  namespace: ns.name,
});
const readPool = async (): Promise<NodePool> =>
  (await custom.getNamespacedCustomObject({ ...api(), name: POOL })) as NodePool;
const poolNodes = async (): Promise<k8s.V1Node[]> =>
  (await core.listNode({ labelSelector: poolSelector(ns.name, POOL) })).items;
const names = (nodes: readonly k8s.V1Node[]): string[] => nodes.map((n) => n.metadata?.name ?? "").sort();
const nodeName = (index: number): string => `${ns.name}-${POOL}-${index}`;

/** This file's nodes, whatever pool they belong to (also after a failed test). */
async function ownNodes(): Promise<k8s.V1Node[]> {
  const all = (await core.listNode({ labelSelector: POOL_LABEL })).items;
  return all.filter((n) => (n.metadata?.labels?.[POOL_LABEL] ?? "").startsWith(`${ns.name}.`));
}

beforeAll(async () => {
  ns = await createTestNamespace("node-pool");
  controller = await startNodePoolController({
    dir: env("TESTBED_DIR"),
    kubeconfig: env("KUBECONFIG"),
    log: (m) => process.stderr.write(`[node-pool] ${m}\n`),
  });
});

afterAll(async () => {
  await custom.deleteNamespacedCustomObject({ ...api(), name: POOL }).catch(() => undefined);
  // The controller deletes the pool's nodes; without it (a failed start) they are deleted here.
  await eventually(
    "the pool's nodes gone",
    async () => ((await ownNodes()).length === 0 ? true : undefined),
    20_000,
  ).catch(() => undefined);
  await controller?.stop();
  for (const node of await ownNodes())
    await core.deleteNode({ name: node.metadata?.name ?? "" }).catch(() => undefined);
  // The CRD too, and until it is gone: the cluster is left as this file found it.
  await kubectl("delete", "crd", `${NODE_POOL.plural}.${NODE_POOL.group}`, "--ignore-not-found", "--wait");
  await ns.remove();
}, 120_000);

test("a pool scaled through /scale gets Ready nodes with its labels, taints and allocatable", async () => {
  // `cpu: 32` as a YAML author writes it (an integer): the node carries "32".
  const spec = {
    replicas: 0,
    allocatable: { ...ALLOCATABLE, cpu: 32 },
    labels: { pool: POOL },
    taints: [TAINT],
  };
  await custom.createNamespacedCustomObject({ ...api(), body: nodePool(ns.name, POOL, spec) });
  await eventually("the controller to report the empty pool", async () => {
    const { status } = await readPool();
    return status?.observedGeneration === 1 && status.replicas === 0 ? true : undefined;
  });

  const started = Date.now();
  // Qualified: Karpenter's NodePool (karpenter.sh), when installed, shares the short name `nodepool`.
  await kubectl("scale", "-n", ns.name, `${NODE_POOL.plural}.${NODE_POOL.group}/${POOL}`, "--replicas=2");
  const created = await eventually("both nodes created", async () =>
    (await poolNodes()).length === 2 ? Date.now() : undefined,
  );
  const pool = await eventually("readyReplicas 2", async () => {
    const p = await readPool();
    return p.status?.readyReplicas === 2 ? p : undefined;
  });
  const ready = Date.now();
  report("node pool scale-up 0→2", {
    nodesCreatedMs: created - started,
    readyReplicasMs: ready - started,
  });
  expect(pool.status).toEqual({
    replicas: 2,
    readyReplicas: 2,
    selector: `${POOL_LABEL}=${ns.name}.${POOL}`,
    observedGeneration: 2,
  });

  // What the operator reads: the Scale subresource.
  const scale = JSON.parse(
    await kubectl(
      "get",
      "--raw",
      `/apis/${NODE_POOL.group}/${NODE_POOL.version}/namespaces/${ns.name}/nodepools/${POOL}/scale`,
    ),
  ) as { spec: { replicas: number }; status: { replicas: number; selector: string } };
  expect(scale.spec.replicas).toBe(2);
  expect(scale.status).toEqual({ replicas: 2, selector: `${POOL_LABEL}=${ns.name}.${POOL}` });

  const nodes = await poolNodes();
  expect(names(nodes)).toEqual([nodeName(0), nodeName(1)]);
  for (const node of nodes) {
    expect(node.metadata?.labels).toMatchObject({
      pool: POOL,
      type: "kwok",
      "kubernetes.io/hostname": node.metadata?.name,
      "kubernetes.io/os": "linux",
      "kubernetes.io/arch": "amd64",
      [POOL_LABEL]: `${ns.name}.${POOL}`,
    });
    expect(node.metadata?.annotations).toMatchObject({ "kwok.x-k8s.io/node": "fake" });
    expect(node.spec?.taints).toEqual(expect.arrayContaining([expect.objectContaining(TAINT)]));
    expect(node.status?.allocatable).toEqual(ALLOCATABLE);
    expect(node.status?.capacity).toEqual(ALLOCATABLE);
  }
});

describe("the real scheduler", () => {
  const selector = { pool: POOL };
  const gpuPod = (name: string, tolerate: boolean): k8s.V1Pod => ({
    metadata: { name },
    spec: {
      nodeSelector: selector,
      ...(tolerate && { tolerations: [{ ...TAINT, operator: "Equal" }] }),
      containers: [
        {
          name: "main",
          image: "registry.invalid/trainer:1", // kwok runs no containers: never pulled
          resources: { requests: { cpu: "1", "nvidia.com/gpu": "8" }, limits: { "nvidia.com/gpu": "8" } },
        },
      ],
    },
  });
  afterAll(async () => {
    for (const name of ["trainer", "intolerant"])
      await core
        .deleteNamespacedPod({ name, namespace: ns.name, gracePeriodSeconds: 0 })
        .catch(() => undefined);
  });

  test("places a pod that selects and tolerates the pool and asks for 8 GPUs on one of its nodes", async () => {
    await core.createNamespacedPod({ namespace: ns.name, body: gpuPod("trainer", true) });
    const pod = await eventually("the pod running on a pool node", async () => {
      const p = await core.readNamespacedPod({ name: "trainer", namespace: ns.name });
      return p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ? p : undefined;
    });
    expect([nodeName(0), nodeName(1)]).toContain(pod.spec?.nodeName);
  });

  test("leaves a pod that does not tolerate the pool's taint Pending", async () => {
    await core.createNamespacedPod({ namespace: ns.name, body: gpuPod("intolerant", false) });
    const scheduled = await eventually("the scheduler's verdict", async () => {
      const p = await core.readNamespacedPod({ name: "intolerant", namespace: ns.name });
      return p.status?.conditions?.find((c) => c.type === "PodScheduled");
    });
    expect(scheduled).toMatchObject({ status: "False", reason: "Unschedulable" });
    expect(scheduled.message).toMatch(/untolerated taint/);
  });
});

test("scaling down removes the highest index first", async () => {
  await kubectl("scale", "-n", ns.name, `${NODE_POOL.plural}.${NODE_POOL.group}/${POOL}`, "--replicas=1");
  await eventually("one node left", async () => ((await poolNodes()).length === 1 ? true : undefined));
  expect(names(await poolNodes())).toEqual([nodeName(0)]);
  const pool = await eventually("status of 1 node", async () => {
    const p = await readPool();
    return p.status?.replicas === 1 ? p : undefined;
  });
  expect(pool.status).toMatchObject({ replicas: 1, readyReplicas: 1, observedGeneration: 3 });
});

test("deleting the pool deletes its nodes", async () => {
  await custom.deleteNamespacedCustomObject({ ...api(), name: POOL });
  await eventually("the pool's nodes gone", async () =>
    (await poolNodes()).length === 0 ? true : undefined,
  );
  expect(await ownNodes()).toEqual([]);
});
