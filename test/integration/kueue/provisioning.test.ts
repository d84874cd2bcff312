// End to end with the real Kueue (v0.17.0) and real Jobs: Kueue holds a Job until the ProvisioningRequest
// it made for it is Provisioned; the operator serves that request with a ResizeRequest on a group whose
// target is a testbed NodePool (kwok Nodes standing in for a cloud's node pool). Figures: the time from a
// Job's creation to its pods Running, and the time a plain ResizeRequest of the same size takes.
import { installApi, kubectl } from "../api/install.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { report } from "../../support/reliability.js";
import { createGroup, createRequest, untilState } from "../../support/resize.js";
import {
  batch,
  ClusterObjects,
  ourAdmissionCheck,
  queueOver,
  KUEUE,
  PROVISIONING,
  condition,
  createJob as createJobIn,
  custom,
  gpuJob,
  isTrue,
  reader,
  removeNamespace,
  runningPods,
  startKueueStack,
  untilProvisioningRequest,
  untilResizeRequestFor,
  untilServingProvisioningRequests,
  untilWorkload,
  type Obj,
} from "./support.js";

const POOL_LABEL = "example.com/pool";
const SHAPE = {
  allocatable: { cpu: "32", memory: "256Gi", "nvidia.com/gpu": "8", pods: "110" },
  taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }],
};

let stack: Awaited<ReturnType<typeof startKueueStack>> | undefined;
let ns: Awaited<ReturnType<typeof createTestNamespace>> | undefined;
let operator: OperatorProcess | undefined;
const cluster = new ClusterObjects();
const name = (): string => ns?.name ?? "";

/** A NodePool and a group over it whose instances carry `POOL_LABEL=<label>`, serving this namespace's requests. */
async function poolAndGroup(pool: string, label: string, maxSize: number): Promise<void> {
  const labels = { [POOL_LABEL]: label };
  await custom.createNamespacedCustomObject({
    group: "testbed.resize-operator.dev",
    version: "v1",
    plural: "nodepools",
    namespace: name(),
    body: {
      apiVersion: "testbed.resize-operator.dev/v1",
      kind: "NodePool",
      metadata: { name: pool },
      spec: { replicas: 0, ...SHAPE, labels },
    },
  });
  await createGroup(name(), pool, {
    zone: "local-a",
    targetRef: { apiVersion: "testbed.resize-operator.dev/v1", kind: "NodePool", name: pool },
    maxSize,
    instanceShape: { ...SHAPE, labels },
    provisioningRequests: { namespaces: "Same" },
  });
}

const createJob = (job: ReturnType<typeof gpuJob>) => createJobIn(name(), job);
const workload = (jobUid: string, what: string): Promise<Obj> => untilWorkload(name(), jobUid, what);
const provisioningRequest = (wl: Obj, what: string): Promise<Obj> =>
  untilProvisioningRequest(name(), wl, what);
const readPr = (o: Obj): Promise<Obj> => reader(name(), PROVISIONING)(o);
const readWorkload = (o: Obj): Promise<Obj> => reader(name(), { ...KUEUE, plural: "workloads" })(o);
const resizeRequestFor = (pr: Obj) => untilResizeRequestFor(name(), pr);

beforeAll(async () => {
  await installApi();
  stack = await startKueueStack(); // installs the ProvisioningRequest CRD before Kueue, and before the operator
  ns = await createTestNamespace("kueue-e2e");
  operator = startOperator({ namespace: name(), name: "provisioner" });
  await untilServingProvisioningRequests(operator);
  await poolAndGroup("gpu", `${name()}-gpu`, 8);
  await poolAndGroup("plain", `${name()}-plain`, 4);
  await cluster.create("ResourceFlavor", "resourceflavors", name(), {
    nodeLabels: { [POOL_LABEL]: `${name()}-gpu` },
    tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
  });
  await ourAdmissionCheck(cluster, name());
  await queueOver(cluster, name(), name(), name(), "gpu");
}, 600_000);

afterAll(async () => {
  // Kueue's objects carry its finalizers: the namespace (Jobs, Workloads) and the cluster-scoped
  // objects go while Kueue still runs; the pools' nodes go while their controller still runs.
  if (ns) await removeNamespace(ns);
  await cluster.deleteAll();
  if (operator) await stopAll([operator]);
  await stack?.stop();
}, 600_000);

test("a plain ResizeRequest of 4 instances (the baseline)", async () => {
  const started = Date.now();
  await createRequest(name(), "plain-4", {
    instanceGroupManager: "plain",
    resizeBy: 4,
    requestedRunDuration: { seconds: "5" },
  });
  await untilState(name(), "plain-4", ["SUCCEEDED"]);
  report("kueue e2e", { plainResizeRequestSeconds: ((Date.now() - started) / 1000).toFixed(1) });
});

let first: { uid: string; created: number; pr: Obj; wl: Obj } | undefined;

test("a Job of 4 pods × 8 GPUs stays suspended until its ResizeRequest succeeds, then runs on the new nodes", async () => {
  const job = await createJob(
    gpuJob("train", 4, 8, "gpu", { "provreq.kueue.x-k8s.io/maxRunDurationSeconds": "40" }),
  );
  const wl = await workload(job.uid, "train");
  const pr = await provisioningRequest(wl, "train");
  const rr = await resizeRequestFor(pr);
  expect(rr.spec).toMatchObject({
    instanceGroupManager: "gpu",
    resizeBy: 4,
    requestedRunDuration: { seconds: "40" },
  });
  expect(rr.metadata.annotations?.["compute.resize-operator.dev/workload"]).toBe(
    `${name()}/${wl.metadata.name}`,
  );
  const succeeded = await untilState(name(), rr.metadata.name ?? "", ["SUCCEEDED"]);
  const provisioned = await eventually("Provisioned=True", async () => {
    const fresh = await readPr(pr);
    return isTrue(fresh, "Provisioned") ? fresh : undefined;
  });
  expect(provisioned.status?.provisioningClassDetails).toEqual({
    ResizeRequestName: rr.metadata.name,
    InstanceGroupManager: `${name()}/gpu`,
    Zone: "local-a",
  });
  expect(condition(provisioned, "Accepted")?.message).toContain("for 4 instances (4 pods)");
  const admitted = await eventually("the Workload admitted", async () => {
    const fresh = await readWorkload(wl);
    return isTrue(fresh, "Admitted") ? fresh : undefined;
  });
  // Held until the capacity existed: admitted no earlier than the ResizeRequest succeeded (whole seconds).
  const admittedAt = Date.parse(condition(admitted, "Admitted")?.lastTransitionTime ?? "");
  expect(admittedAt).toBeGreaterThanOrEqual(
    Math.floor(Date.parse(succeeded.status?.succeededTime ?? "") / 1000) * 1000,
  );
  const pods = await eventually("4 Running pods of train", () => runningPods(name(), "train", 4), 120_000);
  const running = Date.now();
  // On the nodes the pool added for this request, and only there.
  const nodes = pods.map((p) => p.spec?.nodeName ?? "");
  for (const node of nodes) expect(node.startsWith(`${name()}-gpu-`)).toBe(true);
  expect(new Set(nodes).size).toBe(4);
  report("kueue e2e", {
    jobToProvisionedSeconds: (
      (Date.parse(condition(provisioned, "Provisioned")?.lastTransitionTime ?? "") - job.created) /
      1000
    ).toFixed(1),
    jobToRunningSeconds: ((running - job.created) / 1000).toFixed(1),
  });
  // Each condition change is an Event on the ProvisioningRequest.
  const events = await kubectl("events", "-n", name(), "--for", `provisioningrequest/${pr.metadata.name}`);
  for (const reason of ["Accepted", "Provisioned"]) expect(events).toContain(reason);
  first = { ...job, pr, wl };
});

test("a second Job waits behind it with our ETA on its Workload, and is admitted when the ETA says", async () => {
  if (!first) throw new Error("needs the first Job");
  const job = await createJob(
    gpuJob("train-2", 8, 8, "gpu", { "provreq.kueue.x-k8s.io/maxRunDurationSeconds": "20" }),
  );
  const wl = await workload(job.uid, "train-2");
  const message = await eventually("an ETA on the Workload's admission check", async () => {
    const check = (await readWorkload(wl)).status?.admissionChecks?.find((c) => c.name === name());
    return check?.message?.includes("ETA") ? check.message : undefined;
  });
  expect(message).toMatch(
    /^Queued at position 1 of 1 for 8 instances of InstanceGroupManager .*\/gpu; waiting for room under maxSize/,
  );
  const eta = Date.parse(/ETA (\S+Z) \(exact\)/.exec(message)?.[1] ?? "");
  expect(Number.isNaN(eta)).toBe(false);

  // Meanwhile: a Workload whose capacity is still queued is deleted with its Job → its ResizeRequest is cancelled.
  const doomed = await createJob(gpuJob("doomed", 8, 8, "gpu"));
  const doomedPr = await provisioningRequest(await workload(doomed.uid, "doomed"), "doomed");
  const doomedRr = await resizeRequestFor(doomedPr);
  expect(doomedRr.status?.state).not.toBe("SUCCEEDED");
  await batch.deleteNamespacedJob({ name: "doomed", namespace: name(), propagationPolicy: "Background" });
  await untilState(name(), doomedRr.metadata.name ?? "", ["CANCELLED"]);

  // The first Job's run duration ends: CapacityRevoked=True, and Kueue deactivates its Workload.
  const revoked = await eventually(
    "CapacityRevoked on the first request",
    async () => {
      const fresh = await readPr(first?.pr ?? wl);
      return isTrue(fresh, "CapacityRevoked") ? fresh : undefined;
    },
    120_000,
  );
  expect(condition(revoked, "CapacityRevoked")?.reason).toBe("RunDurationElapsed");
  await eventually("the first Workload deactivated", async () =>
    (await readWorkload(first?.wl ?? wl)).spec?.active === false ? true : undefined,
  );

  const admitted = await eventually(
    "the second Workload admitted",
    async () => {
      const fresh = await readWorkload(wl);
      return isTrue(fresh, "Admitted") ? fresh : undefined;
    },
    120_000,
  );
  const admittedAt = Date.parse(condition(admitted, "Admitted")?.lastTransitionTime ?? "");
  report("kueue e2e", { etaMissSeconds: ((admittedAt - eta) / 1000).toFixed(1) });
  // Admission follows the ResizeRequest's success within Kueue's own reaction time (seconds).
  expect(Math.abs(admittedAt - eta)).toBeLessThanOrEqual(30_000);
  await eventually("8 Running pods of train-2", () => runningPods(name(), "train-2", 8), 120_000);
});

test("an infeasible Job's request is Failed with the reason, and Kueue rejects it and deactivates the Workload (retryStrategy: no retries)", async () => {
  const job = await createJob(gpuJob("too-big", 1, 16, "gpu"));
  const wl = await workload(job.uid, "too-big");
  const pr = await provisioningRequest(wl, "too-big");
  const failed = await eventually("Failed=True", async () => {
    const fresh = await readPr(pr);
    return isTrue(fresh, "Failed") ? fresh : undefined;
  });
  expect(condition(failed, "Failed")?.reason).toBe("NoMatchingGroup");
  expect(condition(failed, "Failed")?.message).toMatch(
    /one pod requests 16 nvidia.com\/gpu and an instance has 8 \(8 short\)/,
  );
  // Kueue rejects the check (no retries left) and deactivates the Workload; the Job never starts.
  const deactivated = await eventually("the Workload deactivated", async () => {
    const fresh = await readWorkload(wl);
    return fresh.spec?.active === false ? fresh : undefined;
  });
  expect(condition(deactivated, "Evicted")).toMatchObject({
    status: "True",
    reason: "DeactivatedDueToAdmissionCheck",
  });
  expect((await batch.readNamespacedJob({ name: "too-big", namespace: name() })).spec?.suspend).toBe(true);
});
