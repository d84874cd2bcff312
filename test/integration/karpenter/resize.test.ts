// End to end on the real Karpenter (testbed/karpenter.ts, its kwok provider) and the real kube-scheduler:
// a group over a static NodePool (karpenter.sh/v1, cluster-scoped) that counts its ready instances from
// the pool's Nodes. A ResizeRequest for 4 gets 4 NodeClaims and 4 Ready Nodes, then SUCCEEDED; when its
// run duration ends the pool shrinks back by 4 and Karpenter removes 4 of its 6 Nodes, a pod running on
// one of the new ones (recorded: which Nodes went, whether the busy one stayed, what became of the pod).
// Creation → SUCCEEDED is timed and reported. What goes wrong (a stockout, a cancel, the pool deleted)
// is in failures.test.ts.
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

const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const POOL = "e2e-cpu";
/** The pool's size before the request: the shrink must then choose which 4 of 6 Nodes go. */
const BASE = 2;

let e2e: KarpenterE2e;
let ns: { name: string };

const poolNodes = (): Promise<k8s.V1Node[]> => nodesOf(POOL);
const nodeClaims = (): Promise<unknown[]> => nodeClaimsOf(poolSelector(POOL));
const poolReplicas = (): Promise<number | undefined> => replicasOf(POOL);

beforeAll(async () => {
  e2e = await setUpKarpenterE2e("karpenter-e2e", {
    [POOL]: { instanceType: "cpu-32x", replicas: BASE, maxNodes: 8 },
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

  // A pod on one of the new Nodes (bound by name, as the scheduler would), before the run duration ends:
  // if Karpenter takes empty Nodes first, it keeps this one and removes one of the older, empty ones.
  const oldNames = before.map((n) => n.metadata?.name ?? "");
  const busy = nodes.map((n) => n.metadata?.name ?? "").find((n) => !oldNames.includes(n)) ?? "";
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

  // The run duration ends: the operator shrinks the pool by 4; Karpenter chooses which 4 Nodes go.
  const removed: string[] = [];
  const left = await eventually(
    "Karpenter removed 4 Nodes",
    async () => {
      const now = await poolNodes();
      for (const n of now)
        if (n.metadata?.deletionTimestamp && !removed.includes(n.metadata.name ?? ""))
          removed.push(n.metadata.name ?? "");
      for (const n of nodes) {
        const name = n.metadata?.name ?? "";
        if (!removed.includes(name) && !now.some((l) => l.metadata?.name === name)) removed.push(name);
      }
      return now.length === BASE ? now : undefined;
    },
    180_000,
  );
  const keptBusy = left.some((n) => n.metadata?.name === busy);
  const pod = await core.readNamespacedPod({ namespace: ns.name, name: "worker" }).catch(() => undefined);
  process.stderr.write(
    `[karpenter-e2e] removed ${JSON.stringify(removed)}; older Nodes ${JSON.stringify(oldNames)}; ` +
      `busy node ${busy} ${keptBusy ? "kept" : "removed"}; its pod afterwards: ` +
      `${pod ? `${pod.status?.phase ?? "?"} on ${pod.spec?.nodeName ?? "?"}${pod.metadata?.deletionTimestamp ? " (terminating)" : ""}` : "deleted"}\n`,
  );
  report("karpenter e2e: scale-down by 4 with a pod on one new Node", {
    keptBusy: String(keptBusy),
    podAfter: pod ? (pod.status?.phase ?? "?") : "deleted",
  });
  expect(removed).toHaveLength(4);
  // Karpenter takes empty Nodes first: the busy one stays, its pod undisturbed; which 4 of the 5 empty
  // ones go (older or new) varies from run to run.
  expect(keptBusy).toBe(true);
  expect(pod?.status?.phase).toBe("Running");
  expect(removed).not.toContain(busy);
  expect(await poolReplicas()).toBe(BASE);
  await eventually(`${BASE} NodeClaims left`, async () =>
    (await nodeClaims()).length === BASE ? true : undefined,
  );
  expect((await resize.getRequest(ns.name, "four")).status?.state).toBe("SUCCEEDED");
  await eventually("the group's target back to its size", async () =>
    (await resize.getGroup(ns.name, "pool")).status?.targetSize === BASE ? true : undefined,
  );
}, 420_000);
