// End to end on the real Karpenter (testbed/karpenter.ts, its kwok provider) and the real kube-scheduler:
// a group over a static NodePool (karpenter.sh/v1, cluster-scoped) that counts its ready instances from
// the pool's Nodes. A ResizeRequest for 4 gets 4 NodeClaims and 4 Ready Nodes, labelled with its name,
// then SUCCEEDED; when its run duration ends exactly those 4 go (one of them busy), never the pool's 2
// older ones. Two requests on one tainted pool whose releases interleave (the earlier one ends first,
// then a later one ends before an earlier one): each release removes only its own Nodes, whether they
// or the others are the empty ones Karpenter would pick itself. Creation → SUCCEEDED is timed and
// reported. What goes wrong (a stockout, a cancel, the pool deleted) is in failures.test.ts.
import * as k8s from "@kubernetes/client-node";
import { eventually, kubeConfig } from "../../support/kube.js";
import {
  isReadyNode,
  nodeClaimsOf,
  nodePoolGroup,
  poolNodes as nodesOf,
  poolReplicas as replicasOf,
  poolSelector,
  setUpKarpenterE2e,
  type KarpenterE2e,
} from "../../support/karpenter.js";
import { report } from "../../support/reliability.js";
import * as resize from "../../support/resize.js";
import { REQUEST_LABEL, REQUEST_NAMESPACE_LABEL } from "../../../src/api/instance-labels.js";

const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const POOL = "e2e-cpu";
/** The pool's size before the request: the shrink must then choose which 4 of 6 Nodes go. */
const BASE = 2;
/** A second pool, tainted as GPU pools are, for the interleaved releases. */
const OWN = "e2e-own";
const TAINT = { key: "example.com/dedicated", value: "batch", effect: "NoSchedule" as const };

let e2e: KarpenterE2e;
let ns: { name: string };

const poolNodes = (): Promise<k8s.V1Node[]> => nodesOf(POOL);
const nodeClaims = (): Promise<unknown[]> => nodeClaimsOf(poolSelector(POOL));
const poolReplicas = (): Promise<number | undefined> => replicasOf(POOL);

beforeAll(async () => {
  e2e = await setUpKarpenterE2e("karpenter-e2e", {
    [POOL]: { instanceType: "cpu-32x", replicas: BASE, maxNodes: 8 },
    [OWN]: { instanceType: "cpu-32x", replicas: 0, maxNodes: 8, taints: [TAINT] },
  });
  ns = { name: e2e.namespace };
}, 240_000);

afterAll(async () => {
  await e2e.tearDown();
}, 240_000);

test("resizeBy 4: 4 more Ready Karpenter Nodes, SUCCEEDED; the run duration ends and Karpenter removes 4", async () => {
  const before = await eventually(`the pool's ${BASE} Nodes Ready`, async () => {
    const nodes = await poolNodes();
    return nodes.length === BASE && nodes.every(isReadyNode) ? nodes : undefined;
  });
  await resize.createGroup(ns.name, "pool", nodePoolGroup(POOL, { maxSize: 8 }));
  // Karpenter names its NodeClaims (and so their Nodes) with a random suffix: named instances are
  // refused with the reason, never accepted and ignored (docs/lifecycle.md "Named instances").
  await resize.createRequest(ns.name, "named", {
    instanceGroupManager: "pool",
    instances: [{ name: "node-a" }, { name: "node-b" }],
  });
  const named = await resize.untilState(ns.name, "named", ["SUCCEEDED", "FAILED"], 60_000);
  expect(named.status).toMatchObject({ state: "FAILED", reason: "InstanceNamesRefused" });
  expect(named.status?.error?.errors[0]?.message).toContain("Nodes are named by what provisions them");
  const started = Date.now();
  await resize.createRequest(ns.name, "four", {
    instanceGroupManager: "pool",
    resizeBy: 4,
    requestedRunDuration: { seconds: "20" },
  });
  const done = await eventually(
    "the request SUCCEEDED",
    async () => {
      const rr = await resize.getRequest(ns.name, "four");
      if (rr.status?.state === "FAILED") throw new Error(`FAILED: ${JSON.stringify(rr.status)}`);
      return rr.status?.state === "SUCCEEDED" ? rr : undefined;
    },
    120_000,
  );
  const ms = Date.now() - started;
  report("karpenter e2e: ResizeRequest created → 4 more Karpenter Nodes Ready (SUCCEEDED)", { ms });
  process.stderr.write(`[karpenter-e2e] creation → SUCCEEDED with 4 more Ready Nodes: ${ms} ms\n`);
  expect(done.status?.state).toBe("SUCCEEDED");
  const nodes = await poolNodes();
  expect(nodes).toHaveLength(BASE + 4);
  expect(nodes.every(isReadyNode)).toBe(true);
  expect(await nodeClaims()).toHaveLength(BASE + 4);
  expect(await poolReplicas()).toBe(BASE + 4);
  await eventually("the group counts 6 ready instances", async () => {
    const st = (await resize.getGroup(ns.name, "pool")).status;
    return st?.targetSize === BASE + 4 && st.readyInstances === BASE + 4 ? true : undefined;
  });

  // The request's Nodes carry its name: `kubectl get nodes -l` finds exactly the 4 new ones.
  const oldNames = before.map((n) => n.metadata?.name ?? "");
  const mine = (
    await core.listNode({ labelSelector: `${REQUEST_LABEL}=four,${REQUEST_NAMESPACE_LABEL}=${ns.name}` })
  ).items.map((n) => n.metadata?.name ?? "");
  expect(mine.sort()).toEqual(
    nodes
      .map((n) => n.metadata?.name ?? "")
      .filter((n) => !oldNames.includes(n))
      .sort(),
  );
  expect(done.status?.instances?.map((i) => i.name).sort()).toEqual(mine);
  // A pod on one of the request's Nodes (bound by name, as the scheduler would), before the run duration
  // ends: left to itself Karpenter would remove empty Nodes first (the pool's older ones among them).
  const busy = mine[0] ?? "";
  await core.createNamespacedPod({
    namespace: ns.name,
    body: {
      metadata: { name: "worker" },
      spec: { nodeName: busy, containers: [{ name: "w", image: "busybox" }] },
    },
  });
  await eventually("the pod Running on its node", async () =>
    (await core.readNamespacedPod({ namespace: ns.name, name: "worker" })).status?.phase === "Running"
      ? true
      : undefined,
  );

  // The run duration ends: the operator deletes the request's 4 NodeClaims and lowers the pool by 4.
  const removed = await removalsUntil(POOL, (now) => (now.length === BASE ? now : undefined), 180_000);
  const left = removed.result;
  process.stderr.write(
    `[karpenter-e2e] removed ${JSON.stringify(removed.names)}; the request's ${JSON.stringify(mine)}; ` +
      `older Nodes ${JSON.stringify(oldNames)}\n`,
  );
  report("karpenter e2e: release of a request's 4 Nodes (one busy) on a pool of 6", {
    removedOwn: removed.names.filter((n) => mine.includes(n)).length,
    removedOthers: removed.names.filter((n) => !mine.includes(n)).length,
    replacements: removed.created.length,
  });
  expect(removed.names.sort()).toEqual(mine);
  expect(removed.created).toEqual([]);
  expect(left.map((n) => n.metadata?.name ?? "").sort()).toEqual([...oldNames].sort());
  expect(await poolReplicas()).toBe(BASE);
  await eventually(`${BASE} NodeClaims left`, async () =>
    (await nodeClaims()).length === BASE ? true : undefined,
  );
  expect((await resize.getRequest(ns.name, "four")).status?.state).toBe("SUCCEEDED");
  await eventually("the group's target back to its size", async () =>
    (await resize.getGroup(ns.name, "pool")).status?.targetSize === BASE ? true : undefined,
  );
}, 420_000);

/**
 * Watches `pool` until `done` (given its Nodes not being deleted) says so: which of the Nodes serving at
 * the start were deleted or went, and which NodeClaims appeared meanwhile (a replacement by Karpenter).
 */
async function removalsUntil<T>(
  pool: string,
  done: (now: k8s.V1Node[]) => T | undefined,
  timeoutMs: number,
): Promise<{ names: string[]; created: string[]; result: T }> {
  const claimNames = async (): Promise<string[]> =>
    ((await nodeClaimsOf(poolSelector(pool))) as { metadata?: { name?: string } }[]).map(
      (c) => c.metadata?.name ?? "",
    );
  const serving = (await nodesOf(pool))
    .filter((n) => !n.metadata?.deletionTimestamp)
    .map((n) => n.metadata?.name ?? "");
  const claimsBefore = new Set(await claimNames());
  const names: string[] = [];
  const created = new Set<string>();
  const result = await eventually(
    `${pool}'s Nodes removed`,
    async () => {
      const now = await nodesOf(pool);
      for (const c of await claimNames()) if (!claimsBefore.has(c)) created.add(c);
      for (const name of serving) {
        const node = now.find((n) => n.metadata?.name === name);
        if ((!node || node.metadata?.deletionTimestamp) && !names.includes(name)) names.push(name);
      }
      return done(now.filter((n) => !n.metadata?.deletionTimestamp));
    },
    timeoutMs,
  );
  return { names, created: [...created], result };
}

/** Creates request `name` on the `own` group and waits for SUCCEEDED: its Nodes (status.instances). */
async function succeeded(name: string, runSeconds: number): Promise<string[]> {
  await resize.createRequest(ns.name, name, {
    instanceGroupManager: "own",
    resizeBy: 2,
    requestedRunDuration: { seconds: String(runSeconds) },
  });
  const rr = await eventually(
    `${name} SUCCEEDED`,
    async () => {
      const r = await resize.getRequest(ns.name, name);
      if (r.status?.state === "FAILED") throw new Error(`FAILED: ${JSON.stringify(r.status)}`);
      return r.status?.state === "SUCCEEDED" ? r : undefined;
    },
    120_000,
  );
  const listed = (rr.status?.instances ?? []).map((i) => i.name).sort();
  expect(listed).toHaveLength(2);
  return listed;
}

/** `count` pods placed by the scheduler on the Nodes of request `owner` (its label), tolerating the pool's taint. */
async function workloadOn(owner: string, prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await core.createNamespacedPod({
      namespace: ns.name,
      body: {
        metadata: { name: `${prefix}-${i}` },
        spec: {
          nodeSelector: { [REQUEST_LABEL]: owner, [REQUEST_NAMESPACE_LABEL]: ns.name },
          tolerations: [{ key: TAINT.key, operator: "Equal", value: TAINT.value, effect: TAINT.effect }],
          containers: [{ name: "w", image: "busybox", resources: { requests: { cpu: "20" } } }],
        },
      },
    });
}

/** The nodes of the Running pods named `prefix-*`, once `count` of them run. */
async function runningOn(prefix: string, count: number): Promise<string[]> {
  return eventually(`${count} ${prefix} pods Running`, async () => {
    const pods = (await core.listNamespacedPod({ namespace: ns.name })).items.filter(
      (p) => p.metadata?.name?.startsWith(`${prefix}-`) && p.status?.phase === "Running",
    );
    return pods.length === count ? pods.map((p) => p.spec?.nodeName ?? "").sort() : undefined;
  });
}

test("interleaved releases on one pool: each takes exactly its own Nodes, whichever ends first", async () => {
  await resize.createGroup(
    ns.name,
    "own",
    nodePoolGroup(OWN, {
      maxSize: 6,
      instanceShape: { allocatable: { cpu: "32", memory: "128Gi", pods: "110" }, taints: [TAINT] },
    }),
  );
  // The earlier request ends first, its Nodes busy, the later one's still empty: Karpenter, left to
  // itself, removes empty Nodes first (the later request's).
  const a = await succeeded("a", 40);
  await workloadOn("a", "wa", 2);
  expect(await runningOn("wa", 2)).toEqual(a);
  const b = await succeeded("b", 600);
  const first = await removalsUntil(OWN, (now) => (now.length === 2 ? now : undefined), 180_000);
  expect(first.names.sort()).toEqual(a);
  expect(first.created).toEqual([]);
  // b's capacity is whole: its own 2-pod workload lands on its 2 Nodes.
  await workloadOn("b", "wb", 2);
  expect(await runningOn("wb", 2)).toEqual(b);

  // The later request ends first, its Nodes busy, the earlier one's empty.
  const c = await succeeded("c", 600);
  const d = await succeeded("d", 20);
  await workloadOn("d", "wd", 2);
  expect(await runningOn("wd", 2)).toEqual(d);
  const second = await removalsUntil(OWN, (now) => (now.length === 4 ? now : undefined), 180_000);
  expect(second.names.sort()).toEqual(d);
  expect(second.created).toEqual([]);
  const left = second.result.map((n) => n.metadata?.name ?? "").sort();
  expect(left).toEqual([...b, ...c].sort());
  expect(await replicasOf(OWN)).toBe(4);
  report("karpenter e2e: interleaved releases on one pool", {
    earlierFirstRemovedOwn: first.names.filter((n) => a.includes(n)).length,
    earlierFirstRemovedOthers: first.names.filter((n) => !a.includes(n)).length,
    laterFirstRemovedOwn: second.names.filter((n) => d.includes(n)).length,
    laterFirstRemovedOthers: second.names.filter((n) => !d.includes(n)).length,
    replacements: first.created.length + second.created.length,
  });
}, 480_000);
