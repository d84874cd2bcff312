// End to end on the real Cluster API (testbed/cluster-api.ts: the core controller manager of
// sigs.k8s.io/cluster-api, with the testbed's kwok infrastructure provider standing in for a cloud): a
// group over a MachineDeployment (cluster.x-k8s.io/v1beta2, its /scale) whose instances are Machines.
// Two requests whose releases interleave — the earlier one ends while the later one's Machines are
// still there, and a later one ends before an earlier one — each release removes exactly its own
// Machines (annotated cluster.x-k8s.io/delete-machine, docs/lifecycle.md "Whose instances"), never the
// older ones nor the other request's; each request's Machines carry its label and are listed on its
// status. A request naming its instances is refused: a MachineSet names Machines itself.
import { ErrorCode } from "../../../src/api/errors.js";
import { REQUEST_LABEL } from "../../../src/api/instance-labels.js";
import { installApi } from "../api/install.js";
import {
  applyManifest,
  createWorkloadCluster,
  machineDeployment,
  machinesOf,
  startClusterApiForTests,
  stopClusterApiForTests,
  untilReadyMachines,
  type Machine,
} from "../../support/cluster-api.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { report } from "../../support/reliability.js";
import { createGroup, createRequest, getGroup, untilState } from "../../support/resize.js";
import * as k8s from "@kubernetes/client-node";

const MD = "workers";
const TARGET = { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "MachineDeployment", name: MD };
const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

beforeAll(async () => {
  await installApi();
  await startClusterApiForTests();
  ns = await createTestNamespace("capi");
  await createWorkloadCluster(ns.name, "wl");
  await applyManifest(machineDeployment(ns.name, MD, "wl", 1));
  await untilReadyMachines(ns.name, MD, 1, 240_000);
  operator = startOperator({ namespace: ns.name, name: "capi-op" });
  await createGroup(ns.name, MD, { targetRef: TARGET, maxSize: 10 });
}, 600_000);

afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
  await stopClusterApiForTests();
}, 300_000);

const live = (machines: readonly Machine[]): string[] =>
  machines
    .filter((m) => !m.metadata.deletionTimestamp)
    .map((m) => m.metadata.name)
    .sort();

/** The Machines of the MachineDeployment not being deleted, once there are `count` of them. */
function machinesSettledAt(count: number): Promise<string[]> {
  return eventually(
    `${count} Machines of ${MD}`,
    async () => {
      const names = live(await machinesOf(ns.name, MD));
      if (names.length !== count) throw new Error(`${names.length} Machines: ${names.join(", ")}`);
      return names;
    },
    180_000,
  );
}

/** Creates request `name` of 2 and waits for SUCCEEDED: the Machines it lists as its own. */
async function twoMore(name: string, runSeconds: number): Promise<string[]> {
  const started = Date.now();
  await createRequest(ns.name, name, {
    instanceGroupManager: MD,
    resizeBy: 2,
    requestedRunDuration: { seconds: String(runSeconds) },
  });
  const rr = await untilState(ns.name, name, ["SUCCEEDED", "FAILED"], 240_000);
  expect(rr.status?.state).toBe("SUCCEEDED");
  report("cluster-api resize", { request: name, machines: 2, succeededMs: Date.now() - started });
  const instances = rr.status?.instances ?? [];
  expect(instances.every((i) => i.kind === "Machine")).toBe(true);
  expect(instances).toHaveLength(2);
  return instances.map((i) => i.name).sort();
}

/** The Machines carrying request `request`'s label. */
async function labelled(request: string): Promise<string[]> {
  const list = (await custom.listNamespacedCustomObject({
    group: "cluster.x-k8s.io",
    version: "v1beta2",
    namespace: ns.name,
    plural: "machines",
    labelSelector: `${REQUEST_LABEL}=${request}`,
  })) as { items: Machine[] };
  return live(list.items);
}

test("interleaved releases on a MachineDeployment take exactly each request's own Machines", async () => {
  const base = await machinesSettledAt(1);
  // Creation times have a resolution of one second: the base Machine is older than any an attempt adds.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  // The earlier request ends first, while the later one's Machines are there: left to itself the
  // MachineSet (deletion order Random by default) could take any of them.
  const a = await twoMore("a", 20);
  const b = await twoMore("b", 900);
  expect(await labelled("a")).toEqual(a);
  expect(await labelled("b")).toEqual(b);
  expect(await machinesSettledAt(3)).toEqual([...base, ...b].sort());
  // A later request ends before an earlier one.
  const c = await twoMore("c", 900);
  const d = await twoMore("d", 20);
  expect(await machinesSettledAt(5)).toEqual([...base, ...b, ...c].sort());
  expect(new Set([...base, ...a, ...b, ...c, ...d]).size).toBe(9);
  report("cluster-api interleaved", {
    released: [...a, ...d].join(","),
    kept: [...base, ...b, ...c].join(","),
  });
  const identity = (await getGroup(ns.name, MD)).status?.conditions?.find(
    (c) => c.type === "InstanceIdentity",
  );
  expect(identity).toMatchObject({ status: "True", reason: "OwnInstances" });
  expect(identity?.message).toContain("cluster.x-k8s.io/delete-machine");
}, 900_000);

test("a request naming its Machines is refused: a MachineSet names them itself", async () => {
  await createRequest(ns.name, "named", { instanceGroupManager: MD, instances: [{ name: `${MD}-x` }] });
  const refused = await untilState(ns.name, "named", ["SUCCEEDED", "FAILED"], 60_000);
  expect(refused.status).toMatchObject({ state: "FAILED", reason: "InstanceNamesRefused" });
  expect(refused.status?.error?.errors[0]?.code).toBe(ErrorCode.UNSUPPORTED_OPERATION);
  expect(refused.status?.error?.errors[0]?.message).toContain(
    `MachineDeployment/${MD} names its instances itself`,
  );
}, 120_000);
