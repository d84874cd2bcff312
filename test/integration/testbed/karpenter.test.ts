// The real Karpenter (v1.14.1, its kwok provider: testbed/karpenter.ts) beside the test cluster: a static
// NodePool scaled with `kubectl scale` gets that many Nodes, Ready and registered (no
// karpenter.sh/unregistered taint), with the zone, instance-type, os and arch labels, GPUs and taint the
// real kube-scheduler places pods by; `limits.nodes` caps growth below `replicas`; scaling to 0 removes
// them. Each scale-up is timed from `kubectl scale` to N Ready Nodes, and the testbed's own NodePool
// (testbed/node-pool.ts) is timed the same way for comparison. Nodes are cluster-scoped and other files
// count them, so none of this file's is left behind, and Karpenter's CRDs go too (the cluster is left as
// this file found it: its `nodepools` would otherwise share kubectl's short name with the testbed's).
import * as k8s from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { ZONE } from "../../../testbed/cluster.js";
import { removeKarpenterCrds, startKarpenter, type Karpenter } from "../../../testbed/karpenter.js";
import {
  KARPENTER,
  NODEPOOL_LABEL,
  staticNodePool,
  UNREGISTERED_TAINT,
} from "../../../testbed/karpenter-manifests.js";
import {
  NODE_POOL,
  nodePool,
  startNodePoolController,
  type NodePoolController,
} from "../../../testbed/node-pool.js";
import { poolSelector } from "../../../testbed/node-pool-plan.js";
import { ensureTools, type Toolchain } from "../../../testbed/tools.js";
import { kubectl } from "../api/install.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { isReadyNode, nodeClaimsOf, testbedEnv } from "../../support/karpenter.js";
import { report } from "../../support/reliability.js";

const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
const POOL = "testbed-gpu";
const SELECTOR = `${NODEPOOL_LABEL}=${POOL}`;
const MAX_NODES = 3;
const GPU_TAINT = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" } as const;
const NODEPOOL = `nodepool.${KARPENTER.group}/${POOL}`;

let tools: Toolchain;
let karpenter: Karpenter | undefined;
let startedInMs = 0;

/**
 * Registered and past start-up: neither Karpenter's unregistered taint nor the node lifecycle
 * controller's `node.kubernetes.io/not-ready`, which it removes a moment after the Ready condition.
 */
const registered = (n: k8s.V1Node): boolean =>
  !(n.spec?.taints ?? []).some(
    (t) => t.key === UNREGISTERED_TAINT || t.key === "node.kubernetes.io/not-ready",
  );
const nodesOf = async (selector: string): Promise<k8s.V1Node[]> =>
  (await core.listNode({ labelSelector: selector })).items;
const nodeClaims = (): Promise<unknown[]> => nodeClaimsOf(SELECTOR);

/**
 * Runs `kubectl scale` on `target` and resolves with the milliseconds until exactly `count` Nodes match
 * `selector`, every one Ready and registered (what a group counts as ready instances).
 */
async function timeScale(target: string[], count: number, selector: string): Promise<number> {
  const started = Date.now();
  await kubectl("scale", ...target, `--replicas=${count}`);
  await eventually(
    `${count} Ready registered nodes (${selector})`,
    async () => {
      const nodes = await nodesOf(selector);
      return nodes.length === count && nodes.every((n) => isReadyNode(n) && registered(n)) ? true : undefined;
    },
    120_000,
  );
  return Date.now() - started;
}

beforeAll(async () => {
  tools = await ensureTools();
  const started = Date.now();
  karpenter = await startKarpenter({
    dir: testbedEnv("TESTBED_DIR"),
    kubeconfig: testbedEnv("KUBECONFIG"),
    tools,
    log: (m) => process.stderr.write(`[karpenter] ${m}\n`),
  });
  startedInMs = Date.now() - started;
}, 180_000);

afterAll(async () => {
  // Deletes the NodePools and waits for Karpenter to remove their nodes before it stops.
  await karpenter?.stop();
  await removeKarpenterCrds(testbedEnv("KUBECONFIG"), tools);
}, 180_000);

test("Karpenter starts, and its NodePool has the /scale subresource a group scales through", async () => {
  report("karpenter start", { readyMs: startedInMs });
  expect(karpenter?.process.pid).toBeGreaterThan(0);
  const scale = JSON.parse(
    await kubectl(
      "get",
      "crd",
      `nodepools.${KARPENTER.group}`,
      "-o",
      `jsonpath={.spec.versions[?(@.name=="${KARPENTER.version}")].subresources.scale}`,
    ),
  ) as unknown;
  expect(scale).toEqual({ specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.nodes" });
});

describe("a static NodePool", () => {
  beforeAll(async () => {
    const body = staticNodePool(POOL, {
      instanceType: "gpu-8x",
      replicas: 0,
      maxNodes: MAX_NODES,
      taints: [GPU_TAINT],
    });
    await custom.createClusterCustomObject({ ...KARPENTER, body });
  });

  test("scaled with kubectl scale gets that many Ready Nodes without the unregistered taint", async () => {
    const ms = await timeScale([NODEPOOL], 2, SELECTOR);
    report("karpenter static NodePool scale-up 0→2 (kubectl scale → 2 Ready registered nodes)", { ms });

    const nodes = await nodesOf(SELECTOR);
    expect(nodes).toHaveLength(2);
    for (const node of nodes) {
      // The labels the scheduler, kwok and a group's zone rely on.
      expect(node.metadata?.labels).toMatchObject({
        "topology.kubernetes.io/zone": ZONE,
        "node.kubernetes.io/instance-type": "gpu-8x",
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "karpenter.sh/capacity-type": "on-demand",
        [NODEPOOL_LABEL]: POOL,
      });
      expect(node.metadata?.labels?.["kubernetes.io/hostname"]).toBeTruthy();
      expect(node.metadata?.annotations).toMatchObject({ "kwok.x-k8s.io/node": "fake" });
      expect(node.spec?.taints).toEqual([expect.objectContaining(GPU_TAINT)]);
      expect(node.status?.allocatable).toMatchObject({ "nvidia.com/gpu": "8", pods: "110" });
    }
    // What the operator reads: the Scale subresource (Karpenter's count of its nodes; no ready count).
    const scale = JSON.parse(
      await kubectl("get", "--raw", `/apis/${KARPENTER.group}/${KARPENTER.version}/nodepools/${POOL}/scale`),
    ) as { spec: { replicas: number }; status: { replicas: number } };
    expect(scale.spec.replicas).toBe(2);
    await eventually("status.nodes 2", async () => {
      const s = JSON.parse(
        await kubectl(
          "get",
          "--raw",
          `/apis/${KARPENTER.group}/${KARPENTER.version}/nodepools/${POOL}/scale`,
        ),
      ) as { status: { replicas?: number } };
      return s.status.replicas === 2 ? true : undefined;
    });
  });

  test("the real scheduler places a pod that selects the pool, tolerates its taint and asks for 8 GPUs", async () => {
    const ns = await createTestNamespace("karpenter");
    try {
      await core.createNamespacedPod({
        namespace: ns.name,
        body: {
          metadata: { name: "trainer" },
          spec: {
            nodeSelector: { [NODEPOOL_LABEL]: POOL },
            tolerations: [{ ...GPU_TAINT, operator: "Equal" }],
            containers: [
              {
                name: "main",
                image: "registry.invalid/trainer:1", // kwok runs no containers: never pulled
                resources: { requests: { "nvidia.com/gpu": "8" }, limits: { "nvidia.com/gpu": "8" } },
              },
            ],
          },
        },
      });
      const pod = await eventually("the pod Ready on a Karpenter node", async () => {
        const p = await core.readNamespacedPod({ name: "trainer", namespace: ns.name });
        return p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ? p : undefined;
      });
      const names = (await nodesOf(SELECTOR)).map((n) => n.metadata?.name);
      expect(names).toContain(pod.spec?.nodeName);
    } finally {
      await core.deleteNamespacedPod({ name: "trainer", namespace: ns.name, gracePeriodSeconds: 0 });
      await ns.remove();
    }
  });

  test("limits.nodes caps growth: replicas 5 with limits.nodes 3 gets 3 Nodes and no more", async () => {
    const started = Date.now();
    await kubectl("scale", NODEPOOL, "--replicas=5");
    await eventually(
      `${MAX_NODES} Ready nodes`,
      async () => {
        const nodes = await nodesOf(SELECTOR);
        return nodes.length === MAX_NODES && nodes.every(isReadyNode) ? true : undefined;
      },
      120_000,
    );
    report("karpenter static NodePool 2→5 capped at 3", { ms: Date.now() - started });
    // Karpenter would have made the other two by now (a node takes ~3 s): it must not, for a while.
    for (let i = 0; i < 10; i++) {
      await sleep(1000);
      expect([(await nodesOf(SELECTOR)).length, (await nodeClaims()).length]).toEqual([MAX_NODES, MAX_NODES]);
    }
    const scale = JSON.parse(
      await kubectl("get", "--raw", `/apis/${KARPENTER.group}/${KARPENTER.version}/nodepools/${POOL}/scale`),
    ) as { spec: { replicas: number }; status: { replicas: number } };
    expect([scale.spec.replicas, scale.status.replicas]).toEqual([5, MAX_NODES]);
  });

  test("scaled to 0, its Nodes and NodeClaims are removed", async () => {
    const started = Date.now();
    await kubectl("scale", NODEPOOL, "--replicas=0");
    await eventually(
      "no node and no NodeClaim left",
      async () => ((await nodesOf(SELECTOR)).length + (await nodeClaims()).length === 0 ? true : undefined),
      120_000,
    );
    report("karpenter static NodePool scale-down 3→0 (nodes gone)", { ms: Date.now() - started });
  });
});

describe("for comparison, the testbed's own NodePool", () => {
  let controller: NodePoolController | undefined;
  let ns: Awaited<ReturnType<typeof createTestNamespace>> | undefined;
  const pools = (namespace: string) => ({
    group: NODE_POOL.group,
    version: NODE_POOL.version,
    plural: NODE_POOL.plural,
    namespace,
  });

  afterAll(async () => {
    if (ns) {
      const name = ns.name;
      await custom.deleteNamespacedCustomObject({ ...pools(name), name: POOL }).catch(() => undefined);
      await eventually("the pool's nodes gone", async () =>
        (await nodesOf(poolSelector(name, POOL))).length === 0 ? true : undefined,
      ).catch(() => undefined);
      await ns.remove();
    }
    await controller?.stop();
    await kubectl("delete", "crd", `${NODE_POOL.plural}.${NODE_POOL.group}`, "--ignore-not-found", "--wait");
  }, 120_000);

  test("scaled the same way 0→2, measured the same way", async () => {
    controller = await startNodePoolController({
      dir: testbedEnv("TESTBED_DIR"),
      kubeconfig: testbedEnv("KUBECONFIG"),
    });
    ns = await createTestNamespace("karpenter-compare");
    const allocatable = { cpu: "32", memory: "256Gi", pods: "110", "nvidia.com/gpu": "8" };
    const body = nodePool(ns.name, POOL, { replicas: 0, allocatable, taints: [GPU_TAINT] });
    await custom.createNamespacedCustomObject({ ...pools(ns.name), body });
    const target = ["-n", ns.name, `${NODE_POOL.plural}.${NODE_POOL.group}/${POOL}`];
    const ms = await timeScale(target, 2, poolSelector(ns.name, POOL));
    report("testbed NodePool scale-up 0→2 (kubectl scale → 2 Ready nodes)", { ms });
  });
});
