// The real Cluster API (v1.14.2 core manager: testbed/cluster-api.ts) with the testbed's kwok providers
// beside the test cluster: a MachineDeployment scaled through /scale 0→3 gets three Machines that Cluster
// API itself reports Ready (nodeRef set, Node conditions mirrored) over three Ready kwok Nodes, and its
// status counts them; scaled down to 2 after one chosen Machine is annotated
// `cluster.x-k8s.io/delete-machine`, exactly that Machine and its Node go (Cluster API's deletion order);
// scaled to 0, every Machine and Node goes. Nodes are cluster-scoped and other files count them, so none
// of this file's is left behind, and the CRDs go too.
import { setTimeout as sleep } from "node:timers/promises";
import * as k8s from "@kubernetes/client-node";
import {
  applyManifest,
  createWorkloadCluster,
  DEPLOYMENT_NAME_LABEL,
  existingNodes,
  getMachineDeploymentStatus,
  getScale,
  machineDeployment,
  machinesOf,
  markForDeletion,
  setScale,
  startClusterApiForTests,
  stopClusterApiForTests,
  untilReadyMachines,
} from "../../support/cluster-api.js";
import { isReadyNode } from "../../support/karpenter.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { report } from "../../support/reliability.js";

const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const CLUSTER = "kwok";
const MD = "workers";

let ns: Awaited<ReturnType<typeof createTestNamespace>> | undefined;
let namespace = "";

beforeAll(async () => {
  const started = Date.now();
  await startClusterApiForTests();
  report("cluster-api start (CRDs, webhooks, manager and providers ready)", { ms: Date.now() - started });
  ns = await createTestNamespace("cluster-api");
  namespace = ns.name;
  const clusterStarted = Date.now();
  await createWorkloadCluster(namespace, CLUSTER);
  report("cluster-api workload cluster initialised and probed", { ms: Date.now() - clusterStarted });
  await applyManifest(machineDeployment(namespace, MD, CLUSTER, 0));
}, 300_000);

afterAll(async () => {
  // Deletes the Cluster (its Machines and Nodes go) before Cluster API stops, then the CRDs.
  await stopClusterApiForTests();
  await ns?.remove();
}, 300_000);

const nodesOf = async (names: readonly string[]): Promise<k8s.V1Node[]> =>
  (await core.listNode()).items.filter((n) => names.includes(n.metadata?.name ?? ""));

test("scaled 0→3 through /scale, the MachineDeployment gets 3 Ready Machines over 3 Ready kwok Nodes", async () => {
  const started = Date.now();
  await setScale(namespace, MD, 3);
  const machines = await untilReadyMachines(namespace, MD, 3);
  report("cluster-api MachineDeployment 0→3 (/scale → 3 Ready Machines)", { ms: Date.now() - started });

  const names = machines.map((m) => m.metadata.name);
  for (const m of machines) {
    expect(m.status?.nodeRef?.name).toBe(m.metadata.name);
    expect(m.spec.providerID).toBe(`kwok://${m.metadata.name}`);
  }
  const nodes = await nodesOf(names);
  expect(nodes).toHaveLength(3);
  for (const node of nodes) {
    expect(isReadyNode(node)).toBe(true);
    expect(node.metadata?.annotations).toMatchObject({
      "kwok.x-k8s.io/node": "fake",
      // Set by Cluster API on the Node it matched to the Machine.
      "cluster.x-k8s.io/machine": node.metadata?.name,
      "cluster.x-k8s.io/cluster-name": CLUSTER,
    });
  }
  const status = await getMachineDeploymentStatus(namespace, MD);
  expect(status).toMatchObject({ replicas: 3, readyReplicas: 3 });
  const scale = await getScale(namespace, MD);
  expect(scale.spec?.replicas).toBe(3);
  expect(scale.status?.replicas).toBe(3);
  // The selector a group's readiness would match the Machines by (labels, as a string).
  expect(scale.status?.selector).toContain(`${DEPLOYMENT_NAME_LABEL}=${MD}`);
});

test("scaled 3→2 after one Machine is annotated delete-machine, exactly that Machine and its Node go", async () => {
  const before = (await machinesOf(namespace, MD)).map((m) => m.metadata.name);
  expect(before).toHaveLength(3);
  // Not the first or last by name (nor, likely, by age): the annotation alone must pick it.
  const victim = before[1] ?? "";
  const kept = before.filter((n) => n !== victim);
  await markForDeletion(namespace, victim);
  const started = Date.now();
  await setScale(namespace, MD, 2);
  const after = await untilReadyMachines(namespace, MD, 2);
  await eventually("the annotated Machine's Node gone", async () =>
    (await existingNodes([victim])).length === 0 ? true : undefined,
  );
  report("cluster-api MachineDeployment 3→2 (annotated Machine and Node gone)", { ms: Date.now() - started });
  expect(after.map((m) => m.metadata.name)).toEqual(kept);
  expect(await existingNodes(kept)).toEqual(expect.arrayContaining(kept));
  // And it stays so: no replacement or second deletion follows.
  await sleep(3000);
  expect((await machinesOf(namespace, MD)).map((m) => m.metadata.name)).toEqual(kept);
  expect((await getScale(namespace, MD)).status?.replicas).toBe(2);
});

test("scaled to 0, every Machine and Node goes", async () => {
  const names = (await machinesOf(namespace, MD)).map((m) => m.metadata.name);
  const started = Date.now();
  await setScale(namespace, MD, 0);
  await eventually(
    "no Machine and no Node left",
    async () =>
      (await machinesOf(namespace, MD)).length + (await existingNodes(names)).length === 0 ? true : undefined,
    120_000,
  );
  report("cluster-api MachineDeployment 2→0 (Machines and Nodes gone)", { ms: Date.now() - started });
  // Its status follows on its next reconcile (the Machines' deletion has no further event for it).
  await eventually("status.replicas 0", async () =>
    (await getMachineDeploymentStatus(namespace, MD)).replicas === 0 ? true : undefined,
  );
  expect((await getScale(namespace, MD)).status?.replicas).toBe(0);
});
