// A Kueue set-up written for GKE's queued provisioning, moved to the operator by changing only the
// class name, through the real Kueue (v0.17.0): GKE's parameters (ValidUntilSeconds,
// maxRunDurationSeconds) and GKE's podSetUpdates (a nodeSelector on autoscaling.gke.io/provisioning-request
// valued from the ResizeRequestName class detail) in the ProvisioningRequestConfig, and a Job carrying
// one more provreq.kueue.x-k8s.io/ annotation that no provider knows. The Job's pods run on exactly the
// Nodes its ResizeRequest added, which carry GKE's label (the group counts its Nodes); a
// config with a tiny ValidUntilSeconds fails its requests with WaitTimeExceeded and Kueue retries as its
// retryStrategy says (one retry, then the Workload is deactivated). The ResizeRequests of the finished
// requests are deleted after the operator's --provisioning-resize-request-retention (2s here), while
// one still holding capacity is kept.
import { installApi, kubectl } from "../api/install.js";
import { GKE_PROVISIONING_REQUEST_LABEL } from "../../../src/api/instance-labels.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import type { OperatorProcess } from "../../support/operator.js";
import { createRequest, listRequests, untilState } from "../../support/resize.js";
import {
  ClusterObjects,
  condition,
  createJob,
  createKueueQueue,
  createPoolAndGroup,
  gpuFlavor,
  gpuJob,
  isTrue,
  provisioningRequestsOf,
  readPr,
  readWorkload,
  runningPods,
  startKueueStack,
  startProvisioner,
  tearDown,
  untilProvisioningRequest,
  untilResizeRequestFor,
  untilWorkload,
} from "./support.js";

const POOL_LABEL = "example.com/pool";
const GPU_SHAPE = {
  allocatable: { cpu: "32", memory: "256Gi", "nvidia.com/gpu": "8", pods: "110" },
  taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }],
};
const TPU_SHAPE = { allocatable: { cpu: "16", memory: "64Gi", "google.com/tpu": "4", pods: "110" } };
const PR_ANNOTATION = "compute.resize-operator.dev/provisioning-request";

let stack: Awaited<ReturnType<typeof startKueueStack>> | undefined;
let ns: Awaited<ReturnType<typeof createTestNamespace>> | undefined;
let operator: OperatorProcess | undefined;
const cluster = new ClusterObjects();
const name = (): string => ns?.name ?? "";
/** The two queues (each its own config, AdmissionCheck and ClusterQueue), named after the namespace. */
const gke = (): string => `${name()}-gke`;
const tight = (): string => `${name()}-tight`;

/** A Job whose pods each ask for `tpus` TPUs of the tpu pool (and nothing the GPU pool offers). */
function tpuJob(jobName: string, tpus: number, queue: string): ReturnType<typeof gpuJob> {
  const job = gpuJob(jobName, 1, 0, queue);
  const requests = { cpu: "4", memory: "16Gi", "google.com/tpu": String(tpus) };
  const container = job.spec?.template.spec?.containers[0];
  if (container) container.resources = { requests, limits: requests };
  return job;
}

/** Events of the test's namespace regarding `kind`/`objectName`, as `reason: note` lines. */
async function eventsFor(kind: string, objectName: string): Promise<string[]> {
  const list = JSON.parse(await kubectl("get", "events.events.k8s.io", "-n", name(), "-o", "json")) as {
    items: { reason?: string; note?: string; regarding?: { kind?: string; name?: string } }[];
  };
  return list.items
    .filter((e) => e.regarding?.kind === kind && e.regarding.name === objectName)
    .map((e) => `${e.reason ?? ""}: ${e.note ?? ""}`);
}

beforeAll(async () => {
  await installApi();
  stack = await startKueueStack();
  ns = await createTestNamespace("kueue-gke");
  operator = await startProvisioner(name(), ["--provisioning-resize-request-retention=2s"]);
  // The gpu group counts its instances from its Nodes: it knows which Nodes each request added.
  const gpuNodes = { [POOL_LABEL]: `${name()}-gpu` };
  await createPoolAndGroup(name(), "gpu", { ...GPU_SHAPE, labels: gpuNodes }, 8, {
    readiness: { nodeSelector: gpuNodes },
  });
  await createPoolAndGroup(name(), "tpu", { ...TPU_SHAPE, labels: { [POOL_LABEL]: `${name()}-tpu` } }, 2);
  // As GKE's documentation writes it, but for provisioningClassName (queued-provisioning.gke.io there).
  await createKueueQueue(cluster, name(), gke(), {
    flavor: gpuFlavor(`${name()}-gpu`),
    config: {
      managedResources: ["nvidia.com/gpu"],
      parameters: { ValidUntilSeconds: "600", maxRunDurationSeconds: "3600" },
      podSetUpdates: {
        nodeSelector: [
          { key: GKE_PROVISIONING_REQUEST_LABEL, valueFromProvisioningClassDetail: "ResizeRequestName" },
        ],
      },
      retryStrategy: { backoffLimitCount: 1, backoffBaseSeconds: 60, backoffMaxSeconds: 1800 },
    },
    quota: { cpu: "1024", memory: "8Ti", "nvidia.com/gpu": "64" },
  });
  // A request must be provisioned within 4 seconds of its creation; one retry a second later.
  await createKueueQueue(cluster, name(), tight(), {
    flavor: { nodeLabels: { [POOL_LABEL]: `${name()}-tpu` } },
    config: {
      managedResources: ["google.com/tpu"],
      parameters: { ValidUntilSeconds: "4", maxRunDurationSeconds: "3600" },
      retryStrategy: { backoffLimitCount: 1, backoffBaseSeconds: 1, backoffMaxSeconds: 1 },
    },
    quota: { cpu: "64", memory: "256Gi", "google.com/tpu": "16" },
  });
}, 600_000);

afterAll(() => tearDown({ ns, cluster, operator, stack }), 600_000);

let held: string | undefined;

test("a GKE config with only the class name changed: the Job runs on the new capacity, the stray annotation ignored with a Warning", async () => {
  const job = await createJob(
    name(),
    gpuJob("train", 2, 8, gke(), { "provreq.kueue.x-k8s.io/costCenter": "ml-research" }),
  );
  const wl = await untilWorkload(name(), job.uid, "train");
  const pr = await untilProvisioningRequest(name(), wl, "train");
  const fresh = await readPr(name(), pr);
  // Kueue copied the config's parameters and the Job's annotation.
  expect(fresh.spec?.parameters).toEqual({
    ValidUntilSeconds: "600",
    maxRunDurationSeconds: "3600",
    costCenter: "ml-research",
  });
  const rr = await untilResizeRequestFor(name(), pr);
  expect(rr.spec).toMatchObject({
    instanceGroupManager: "gpu",
    resizeBy: 2,
    requestedRunDuration: { seconds: "3600" },
  });
  const provisioned = await eventually(
    "Provisioned=True",
    async () => {
      const now = await readPr(name(), pr);
      return isTrue(now, "Provisioned") ? now : undefined;
    },
    120_000,
  );
  expect(condition(provisioned, "Failed")).toBeUndefined();
  expect(condition(provisioned, "Accepted")?.message).toContain('Ignored unknown parameter "costCenter"');
  await eventually("the Workload admitted", async () =>
    isTrue(await readWorkload(name(), wl), "Admitted") ? true : undefined,
  );
  const pods = await eventually("2 Running pods of train", () => runningPods(name(), "train", 2), 120_000);
  // Kueue put GKE's node selector on the pods; the Nodes the request added carry the label.
  const rrName = rr.metadata.name ?? "";
  const listed = (await untilState(name(), rrName, ["SUCCEEDED"])).status?.instances?.map((i) => i.name);
  expect(listed).toHaveLength(2);
  for (const p of pods) {
    expect(p.spec?.nodeSelector?.[GKE_PROVISIONING_REQUEST_LABEL]).toBe(rrName);
    expect(listed).toContain(p.spec?.nodeName);
  }
  const labelled = await kubectl(
    "get",
    "nodes",
    "-l",
    `${GKE_PROVISIONING_REQUEST_LABEL}=${rrName}`,
    "-o",
    "jsonpath={.items[*].metadata.name}",
  );
  expect(labelled.split(" ").sort()).toEqual([...(listed ?? [])].sort());
  expect(await eventsFor("ProvisioningRequest", pr.metadata.name)).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^UnknownParameters: Ignored unknown parameter "costCenter"/),
    ]),
  );
  held = rr.metadata.name;
});

test("a tiny ValidUntilSeconds: WaitTimeExceeded, one retry as the retryStrategy says, then the Workload is deactivated; the finished requests' ResizeRequests are deleted", async () => {
  // The tpu group is full (maxSize 2, both instances held): the request's ResizeRequest waits in its queue.
  await createRequest(name(), "hold", {
    instanceGroupManager: "tpu",
    resizeBy: 2,
    requestedRunDuration: { seconds: "3600" },
  });
  await untilState(name(), "hold", ["SUCCEEDED"]);

  const job = await createJob(name(), tpuJob("late", 4, tight()));
  const wl = await untilWorkload(name(), job.uid, "late");
  const first = await untilProvisioningRequest(name(), wl, "late");
  expect(first.metadata.name).toMatch(/-1$/);
  const firstRr = await untilResizeRequestFor(name(), first);
  // Kueue's second attempt, after the first failed and the backoff.
  const prefix = first.metadata.name.slice(0, -"1".length);
  const second = await eventually(
    "the second attempt's ProvisioningRequest",
    async () =>
      (await provisioningRequestsOf(name(), wl.metadata.uid ?? "")).find(
        (p) => p.metadata.name === `${prefix}2`,
      ),
    60_000,
  );
  const secondRr = await untilResizeRequestFor(name(), second);
  // Kueue counts the retry on the Workload's admission check while the second attempt runs.
  await eventually("retryCount 1 on the Workload's admission check", async () => {
    const checks = (await readWorkload(name(), wl)).status?.admissionChecks as
      { name: string; retryCount?: number }[] | undefined;
    return checks?.find((c) => c.name === tight())?.retryCount === 1 ? true : undefined;
  });
  const failed = await eventually("the second attempt Failed", async () => {
    const now = await readPr(name(), second);
    return isTrue(now, "Failed") ? now : undefined;
  });
  expect(condition(failed, "Failed")).toMatchObject({ reason: "WaitTimeExceeded" });
  expect(condition(failed, "Failed")?.message).toContain("ValidUntilSeconds parameter (4)");
  // The first failed the same way (its Event outlives it: Kueue deleted it when it made the second).
  expect(await eventsFor("ProvisioningRequest", first.metadata.name)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^Failed: Not provisioned by .*ValidUntilSeconds/)]),
  );

  // No retry left (backoffLimitCount 1): the check is Rejected after one retry, the Workload deactivated.
  const deactivated = await eventually(
    "the Workload deactivated",
    async () => {
      const now = await readWorkload(name(), wl);
      // Kueue writes spec.active and the Evicted condition one after the other.
      return now.spec?.active === false && isTrue(now, "Evicted") ? now : undefined;
    },
    60_000,
  );
  expect(condition(deactivated, "Evicted")).toMatchObject({
    status: "True",
    reason: "DeactivatedDueToAdmissionCheck",
  });
  expect(
    (await provisioningRequestsOf(name(), wl.metadata.uid ?? "")).map((p) => p.metadata.name),
  ).not.toContain(`${prefix}3`);

  // Both ResizeRequests were cancelled (nothing held), then deleted after the 2s retention; the one
  // still holding the first Job's capacity is kept.
  for (const rr of [firstRr, secondRr])
    await eventually(
      `${rr.metadata.name ?? ""} deleted`,
      async () =>
        (await listRequests(name())).some((x) => x.metadata.name === rr.metadata.name) ? undefined : true,
      60_000,
    );
  expect(await eventsFor("ResizeRequest", secondRr.metadata.name ?? "")).toEqual(
    expect.arrayContaining([
      expect.stringMatching(
        /^RetentionExpired: Deleted: CANCELLED since .* and its ProvisioningRequest is (Failed|gone), past the provisioner's --provisioning-resize-request-retention of 2s/,
      ),
    ]),
  );
  expect(await eventsFor("ResizeRequest", firstRr.metadata.name ?? "")).toEqual(
    expect.arrayContaining([
      expect.stringMatching(
        /^RetentionExpired: Deleted: CANCELLED since .* and its ProvisioningRequest is (Failed|gone)/,
      ),
    ]),
  );
  const remaining = (await listRequests(name())).map((x) => x.metadata.name);
  expect(remaining).toEqual(expect.arrayContaining(["hold", held]));
  expect(remaining.filter((n) => n !== "hold" && n !== held)).toEqual([]);
  // Everything served a request of this namespace carried our annotation; none is left for a finished one.
  expect((await listRequests(name())).filter((x) => x.metadata.annotations?.[PR_ANNOTATION]).length).toBe(1);
});
