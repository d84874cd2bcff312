// What the Karpenter test files share: the testbed's folder and kubeconfig, Nodes' Ready condition, a
// pool's NodeClaims, Nodes and replicas (label-selected), a group over a pool, a recorder of a pool's
// replicas over time, and the end-to-end set-up (the real Karpenter, the API, a namespace, an operator
// scoped to it, the files' static NodePools) with its teardown.
import * as k8s from "@kubernetes/client-node";
import { removeKarpenterCrds, startKarpenter, type Karpenter } from "../../testbed/karpenter.js";
import {
  KARPENTER,
  NODEPOOL_LABEL,
  staticNodePool,
  UNREGISTERED_TAINT,
  type StaticNodePoolSpec,
} from "../../testbed/karpenter-manifests.js";
import { ensureTools, type Toolchain } from "../../testbed/tools.js";
import { installApi } from "../integration/api/install.js";
import { createTestNamespace, kubeConfig } from "./kube.js";
import { startOperator, stopAll, type OperatorProcess } from "./operator.js";

const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
const core = kubeConfig().makeApiClient(k8s.CoreV1Api);

export function testbedEnv(name: "TESTBED_DIR" | "KUBECONFIG"): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is set by the jest global setup`);
  return value;
}

export const isReadyNode = (n: k8s.V1Node): boolean =>
  n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** The NodeClaims matching `selector` (e.g. karpenter.sh/nodepool=<pool>). */
export async function nodeClaimsOf(selector: string): Promise<unknown[]> {
  const list = (await custom.listClusterCustomObject({
    ...KARPENTER,
    plural: "nodeclaims",
    labelSelector: selector,
  })) as { items: unknown[] };
  return list.items;
}

/** The label selector of a pool's NodeClaims and Nodes. */
export const poolSelector = (pool: string): string => `${NODEPOOL_LABEL}=${pool}`;

export async function poolNodes(pool: string): Promise<k8s.V1Node[]> {
  return (await core.listNode({ labelSelector: poolSelector(pool) })).items;
}

export async function getNodePool(pool: string): Promise<{ spec?: { replicas?: number } }> {
  return (await custom.getClusterCustomObject({ ...KARPENTER, name: pool })) as {
    spec?: { replicas?: number };
  };
}

export async function poolReplicas(pool: string): Promise<number | undefined> {
  return (await getNodePool(pool)).spec?.replicas;
}

/** Sets the pool's limits.nodes (what a cloud's quota or an administrator would raise). */
export async function setNodeLimit(pool: string, nodes: number): Promise<void> {
  await custom.patchClusterCustomObject(
    { ...KARPENTER, name: pool, body: { spec: { limits: { nodes: String(nodes) } } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
}

/** A group's spec over the static NodePool `pool`, its ready instances counted from the pool's Nodes. */
export function nodePoolGroup(pool: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    targetRef: { apiVersion: `${KARPENTER.group}/${KARPENTER.version}`, kind: "NodePool", name: pool },
    readiness: { nodeSelector: { [NODEPOOL_LABEL]: pool } },
    ...spec,
  };
}

/** A pool's spec.replicas as seen every 50 ms: each change with when it was seen (ms since epoch). */
export interface ReplicasRecorder {
  readonly changes: readonly { readonly atMs: number; readonly replicas: number | undefined }[];
  /** The highest value seen. */
  max(): number;
  stop(): Promise<void>;
}

export function recordReplicas(pool: string): ReplicasRecorder {
  const changes: { atMs: number; replicas: number | undefined }[] = [];
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      const replicas = await poolReplicas(pool).catch(() => undefined);
      if (changes.at(-1)?.replicas !== replicas || changes.length === 0)
        changes.push({ atMs: Date.now(), replicas });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    changes,
    max: () => Math.max(0, ...changes.map((c) => c.replicas ?? 0)),
    stop: async () => {
      state.running = false;
      await loop;
    },
  };
}

export interface KarpenterE2e {
  /** The test namespace the operator watches. */
  readonly namespace: string;
  readonly tools: Toolchain;
  /** Stops the operator, removes the namespace, deletes the pools (Karpenter removes their Nodes), stops Karpenter. */
  tearDown(): Promise<void>;
}

/**
 * The real Karpenter (testbed/karpenter.ts) with `pools` created, the API installed, a namespace named
 * from `name`, and an operator scoped to it (`operatorArgs` added to the test defaults).
 */
export async function setUpKarpenterE2e(
  name: string,
  pools: Readonly<Record<string, StaticNodePoolSpec>>,
  operatorArgs: readonly string[] = [],
): Promise<KarpenterE2e> {
  const tools = await ensureTools();
  await installApi();
  let karpenter: Karpenter | undefined = await startKarpenter({
    dir: testbedEnv("TESTBED_DIR"),
    kubeconfig: testbedEnv("KUBECONFIG"),
    tools,
    log: (m) => process.stderr.write(`[karpenter] ${m}\n`),
  });
  for (const [pool, spec] of Object.entries(pools))
    await custom.createClusterCustomObject({ ...KARPENTER, body: staticNodePool(pool, spec) });
  const ns = await createTestNamespace(name);
  const operators: OperatorProcess[] = [startOperator({ namespace: ns.name, name, args: operatorArgs })];
  return {
    namespace: ns.name,
    tools,
    tearDown: async () => {
      await stopAll(operators);
      await ns.remove();
      // Deletes the NodePools and waits for Karpenter to remove their nodes before it stops.
      await karpenter?.stop();
      karpenter = undefined;
      await removeKarpenterCrds(testbedEnv("KUBECONFIG"), tools);
    },
  };
}

/**
 * Ready, registered (no `karpenter.sh/unregistered` taint) and not being deleted: a Node pods can be
 * placed on. The testbed's own pool's Nodes carry no such taint, so the same test reads both.
 */
export const isServingNode = (n: k8s.V1Node): boolean =>
  isReadyNode(n) &&
  !n.metadata?.deletionTimestamp &&
  !(n.spec?.taints ?? []).some((t) => t.key === UNREGISTERED_TAINT);
