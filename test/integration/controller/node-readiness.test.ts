// Readiness counted from Nodes on the local cluster, without Karpenter: a group whose target (a
// StatefulSet, whose own ready count would say "ready" as soon as its pods run) declares
// spec.readiness.nodeSelector. The test makes the Nodes itself — kwok Nodes (the testbed's kwok makes
// Nodes annotated kwok.x-k8s.io/node=fake Ready) labelled with the selector — and a request succeeds only
// once as many of them as the target has replicas are Ready and untainted. Then the operator as a
// ServiceAccount holding exactly the chart's default rules: it may not read Nodes, so the group says so
// (condition and event) and holds its queue, until the chart's rbac.nodeReadiness rules are granted.
// Nodes are cluster-scoped and other files count them: every Node made here is deleted.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { InstanceGroupManagerCondition as GC } from "../../../src/api/conditions.js";
import { INSTANCE_GROUP_MANAGERS } from "../../../src/api/kinds.js";
import { GROUP, VERSION } from "../../../src/api/names.js";
import { ALL_PERMISSIONS } from "../../../src/rbac/index.js";
import { ruleOf } from "../../../src/rbac/permissions.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { serviceAccountToken } from "../../support/rest.js";
import * as resize from "../../support/resize.js";
import { installApi } from "../api/install.js";
import { listEvents } from "../events/support.js";
import { kubectl, tokenKubeconfig } from "../packaging/helm.js";

const rbac = kubeConfig().makeApiClient(k8s.RbacAuthorizationV1Api);
const strategic = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch);
const merge = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
const POOL_LABEL = "readiness-test.resize-operator.dev/pool";
const UNREGISTERED = { key: "karpenter.sh/unregistered", effect: "NoExecute" } as const;

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let dir: string;
const operators: OperatorProcess[] = [];
/** Cluster-scoped objects made here: Nodes, ClusterRoles and their bindings. */
const nodes: string[] = [];
const clusterRoles: string[] = [];

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("node-readiness");
  dir = mkdtempSync(path.join(tmpdir(), "node-readiness-"));
});
afterAll(async () => {
  await stopAll(operators);
  for (const name of nodes) await resize.core.deleteNode({ name }).catch(() => undefined);
  for (const name of clusterRoles) {
    await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
    await rbac.deleteClusterRole({ name }).catch(() => undefined);
  }
  await ns.remove();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** A Node kwok makes Ready, labelled into `pool`. */
async function createNode(name: string, pool: string, taints: readonly k8s.V1Taint[] = []): Promise<void> {
  nodes.push(name);
  await resize.core.createNode({
    body: {
      metadata: {
        name,
        annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
        labels: { "kubernetes.io/hostname": name, type: "kwok", [POOL_LABEL]: pool },
      },
      ...(taints.length > 0 && { spec: { taints: [...taints] } }),
      status: { allocatable: { cpu: "8", memory: "32Gi", pods: "110" } },
    },
  });
}

const isReadyCondition = (n: k8s.V1Node): boolean =>
  n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

async function untilNodesReady(names: readonly string[]): Promise<void> {
  await eventually(`nodes ${names.join(", ")} Ready`, async () => {
    const all = await Promise.all(names.map((name) => resize.core.readNode({ name })));
    return all.every(isReadyCondition) ? true : undefined;
  });
}

async function readyInstances(group: string): Promise<number | undefined> {
  return (await resize.getGroup(ns.name, group)).status?.readyInstances;
}

test("a request succeeds only once its group's Nodes are Ready and untainted, whatever the target says", async () => {
  const pool = `${ns.name}-a`;
  const operator = startOperator({ namespace: ns.name, name: "node-readiness-op" });
  operators.push(operator);
  try {
    await requestSucceedsOnReadyNodes(pool);
  } finally {
    // The next test runs its own operator in this namespace.
    await stopAll([operator]);
  }
}, 180_000);

async function requestSucceedsOnReadyNodes(pool: string): Promise<void> {
  await resize.createWorkers(ns.name, "workers", 0);
  await resize.createGroup(ns.name, "workers", {
    maxSize: 4,
    provisioningTimeout: "5m",
    readiness: { nodeSelector: { [POOL_LABEL]: pool } },
  });
  await resize.createRequest(ns.name, "two", { instanceGroupManager: "workers", resizeBy: 2 });

  // The StatefulSet reports both pods ready (they run on the testbed's kwok nodes): its own count would
  // have said SUCCEEDED by now. No Node of the pool exists, so the request waits.
  await eventually("the target at 2 replicas, both ready", async () => {
    const r = await resize.replicasOf(ns.name, "workers");
    return r.replicas === 2 && r.ready === 2 ? true : undefined;
  });
  await sleep(2_000);
  expect(await resize.getRequest(ns.name, "two")).toMatchObject({
    status: { state: "ACCEPTED", reason: "WaitingForInstances" },
  });
  expect(await readyInstances("workers")).toBe(0);

  // One Ready Node, one Ready but still tainted as Karpenter registers it, one Ready of another pool.
  await createNode(`${pool}-1`, pool);
  await createNode(`${pool}-2`, pool, [UNREGISTERED]);
  await createNode(`${ns.name}-other-1`, `${ns.name}-other`);
  await untilNodesReady([`${pool}-1`, `${pool}-2`, `${ns.name}-other-1`]);
  await eventually("the group counts 1 ready instance", async () =>
    (await readyInstances("workers")) === 1 ? true : undefined,
  );
  expect((await resize.getRequest(ns.name, "two")).status?.state).toBe("ACCEPTED");

  // The taint goes: both Nodes count, and the request succeeds.
  await resize.core.patchNode({ name: `${pool}-2`, body: { spec: { taints: [] } } }, strategic);
  const done = await resize.untilState(ns.name, "two", ["SUCCEEDED", "FAILED"]);
  expect(done.status?.state).toBe("SUCCEEDED");
  expect(done.status?.conditions?.find((c) => c.type === "Succeeded")?.message).toBe(
    "All 2 instances are ready (target at 2 replicas, 2 ready).",
  );
  await eventually("the group counts 2 ready instances", async () =>
    (await readyInstances("workers")) === 2 ? true : undefined,
  );

  // A cordoned Node no longer counts, and the group's status follows the Node (a Node event, not a poll
  // of the target, brings the pass).
  await resize.core.patchNode({ name: `${pool}-1`, body: { spec: { unschedulable: true } } }, strategic);
  await eventually("the group counts 1 ready instance again", async () =>
    (await readyInstances("workers")) === 1 ? true : undefined,
  );
}

test("Ready Nodes with a taint the group does not declare: the request, the group's condition and an Event say which and why", async () => {
  const pool = `${ns.name}-t`;
  const operator = startOperator({ namespace: ns.name, name: "node-readiness-taint-op" });
  operators.push(operator);
  try {
    await undeclaredTaintIsNamed(pool);
  } finally {
    // The next test runs its own operator in this namespace.
    await stopAll([operator]);
  }
}, 180_000);

async function undeclaredTaintIsNamed(pool: string): Promise<void> {
  // The pool's Nodes carry a taint by design (as a GPU NodePool's do); the group leaves instanceShape
  // out, as a group for ResizeRequests alone once could.
  const taint = { key: "example.com/dedicated", value: "x", effect: "NoSchedule" } as const;
  const names = [`${pool}-1`, `${pool}-2`];
  for (const name of names) await createNode(name, pool, [taint]);
  await untilNodesReady(names);
  await resize.createWorkers(ns.name, "tainted", 0);
  await resize.createGroup(ns.name, "tainted", {
    maxSize: 4,
    provisioningTimeout: "5m",
    readiness: { nodeSelector: { [POOL_LABEL]: pool } },
  });
  await resize.createRequest(ns.name, "held", { instanceGroupManager: "tainted", resizeBy: 2 });

  const why = `2 selected Nodes do not count: ${names.join(", ")} carry the taint example.com/dedicated=x:NoSchedule that spec.instanceShape.taints does not declare.`;
  const waiting = await eventually("the waiting request names the Nodes and the taint", async () => {
    const rr = await resize.getRequest(ns.name, "held");
    const provisioning = rr.status?.conditions?.find((c) => c.type === "Provisioning");
    return provisioning?.message.includes("do not count") === true ? provisioning : undefined;
  });
  expect(waiting).toMatchObject({
    status: "True",
    reason: "WaitingForInstances",
    message: `Waiting for 2 instances to be ready (0 are). ${why}`,
  });
  expect(await readyInstances("tainted")).toBe(0);

  const held = await eventually("the group's InstancesHeldBack condition", async () =>
    (await resize.getGroup(ns.name, "tainted")).status?.conditions?.find(
      (c) => c.type === GC.InstancesHeldBack && c.status === "True",
    ),
  );
  expect(held).toMatchObject({ reason: "UndeclaredTaint", message: why });
  const event = await eventually("a Warning event regarding the group", async () =>
    (await listEvents(ns.name)).find(
      (e) => e.reason === "InstancesHeldBack" && e.regarding?.kind === "InstanceGroupManager",
    ),
  );
  expect(event).toMatchObject({ type: "Warning", regarding: { name: "tainted" }, note: why });

  // Declared, as docs/karpenter.md says a tainted pool's group must: both Nodes count, the request
  // succeeds, and the condition turns False.
  await resize.custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace: ns.name,
      plural: INSTANCE_GROUP_MANAGERS.resource,
      name: "tainted",
      body: { spec: { instanceShape: { allocatable: { cpu: "8" }, taints: [taint] } } },
    },
    merge,
  );
  const done = await resize.untilState(ns.name, "held", ["SUCCEEDED", "FAILED"]);
  expect(done.status?.state).toBe("SUCCEEDED");
  await eventually("the group's InstancesHeldBack condition False", async () => {
    const c = (await resize.getGroup(ns.name, "tainted")).status?.conditions?.find(
      (x) => x.type === GC.InstancesHeldBack,
    );
    return c?.status === "False" ? c : undefined;
  });
  // One Event: the condition turned True once.
  const events = (await listEvents(ns.name)).filter(
    (e) => e.reason === "InstancesHeldBack" && e.regarding?.name === "tainted",
  );
  expect(events).toHaveLength(1);
  expect(events[0]?.series?.count ?? 1).toBe(1);
}

/** A ClusterRole with `rules`, bound to the ServiceAccount `sa` of the test namespace. */
async function bindClusterRole(name: string, sa: string, rules: readonly k8s.V1PolicyRule[]): Promise<void> {
  clusterRoles.push(name);
  await rbac.createClusterRole({ body: { metadata: { name }, rules: [...rules] } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name: sa, namespace: ns.name }],
    },
  });
}

const rulesOf = (select: (p: (typeof ALL_PERMISSIONS)[number]) => boolean): k8s.V1PolicyRule[] =>
  ALL_PERMISSIONS.filter(select).map((p) => ruleOf(p) as k8s.V1PolicyRule);

test("without permission on Nodes the group says so and holds its queue; granted, the request goes on", async () => {
  const pool = `${ns.name}-b`;
  // Exactly the chart's default rules (rbac.nodeReadiness off): the Role in the operator's namespace
  // and the ClusterRole.
  const sa = "operator";
  await serviceAccountToken(
    ns.name,
    sa,
    rulesOf((p) => p.scope === "operator-namespace"),
  );
  // A token for the API server's own audience: the operator calls the API server with it.
  const token = (await kubectl("create", "token", sa, "-n", ns.name, "--duration=1h")).trim();
  await bindClusterRole(
    `${ns.name}-operator`,
    sa,
    rulesOf((p) => p.scope === "cluster" && p.optIn === undefined),
  );
  const kubeconfig = tokenKubeconfig(path.join(dir, "operator.kubeconfig"), token);
  operators.push(
    startOperator({ namespace: ns.name, name: "node-readiness-sa", args: [`--kubeconfig=${kubeconfig}`] }),
  );
  await createNode(`${pool}-1`, pool);
  await resize.createWorkers(ns.name, "gpus", 0);
  await resize.createGroup(ns.name, "gpus", {
    maxSize: 4,
    readiness: { nodeSelector: { [POOL_LABEL]: pool } },
  });
  await resize.createRequest(ns.name, "one", { instanceGroupManager: "gpus", resizeBy: 1 });

  const held = await eventually("the group's Ready condition says why", async () => {
    const ready = (await resize.getGroup(ns.name, "gpus")).status?.conditions?.find(
      (c) => c.type === GC.Ready,
    );
    return ready?.reason === "NodeReadinessForbidden" ? ready : undefined;
  });
  expect(held.status).toBe("False");
  expect(held.message).toContain("rbac.nodeReadiness=true");
  // Every group of the namespace that counts Nodes is told (the tainted one of the test before too):
  // this group's own Event is the one looked for.
  const event = await eventually("a Warning event regarding the group", async () =>
    (await listEvents(ns.name)).find(
      (e) =>
        e.reason === "NodeReadinessForbidden" &&
        e.regarding?.kind === "InstanceGroupManager" &&
        e.regarding.name === "gpus",
    ),
  );
  expect(event).toMatchObject({ type: "Warning", regarding: { name: "gpus" } });
  expect(event.note).toContain("may not list and watch Nodes");
  const waiting = await eventually("the request held at the head of the queue", async () => {
    const rr = await resize.getRequest(ns.name, "one");
    return rr.status?.reason === "NodeReadinessForbidden" ? rr : undefined;
  });
  expect(waiting.status?.state).toBe("ACCEPTED");
  expect((await resize.replicasOf(ns.name, "gpus")).replicas).toBe(0);

  // The chart's rbac.nodeReadiness rules: the check is repeated, the group counts, the request succeeds.
  await bindClusterRole(
    `${ns.name}-operator-nodes`,
    sa,
    rulesOf((p) => p.optIn === "nodeReadiness"),
  );
  const done = await resize.untilState(ns.name, "one", ["SUCCEEDED", "FAILED"], 90_000);
  expect(done.status?.state).toBe("SUCCEEDED");
  const ready = (await resize.getGroup(ns.name, "gpus")).status?.conditions?.find((c) => c.type === GC.Ready);
  expect(ready).toMatchObject({ status: "True", reason: "TargetScalable" });
}, 180_000);
