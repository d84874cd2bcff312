// A Kueue Job served from a FutureReservation, through the real Kueue (v0.17.0) on kwok Nodes: the
// ProvisioningRequestConfig of docs/kueue.md "Serving a request from a booking", as written there (pods
// pinned with podSetUpdates on compute.resize-operator.dev/resize-request, valued from the
// ResizeRequestName class detail), and a Job annotated provreq.kueue.x-k8s.io/futureReservation. The
// booking is approved for a window 80 s ahead on a group that counts its Nodes (a minute of lead time
// without an attempt to go by, so its delivery starts about 20 s in); the request waits naming the
// booking, is Provisioned once the booking is FULFILLED, the Job's pods run on the delivery's Nodes and
// no second ResizeRequest is made; at the window's end the request gets CapacityRevoked and the
// delivery request, the booking's, is still there although the provisioner's retention is 0s. A Job
// naming a booking that does not exist fails with FutureReservationNotFound and a Failed Event.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { REQUEST_LABEL } from "../../../src/api/instance-labels.js";
import { FUTURE_RESERVATION, GROUP, VERSION } from "../../../src/api/names.js";
import { rfc3339 } from "../../../src/api/time.js";
import { installApi, kubectl, repoRoot } from "../api/install.js";
import { getBooking, bookingApi, untilSized } from "../booking/support.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import type { OperatorProcess } from "../../support/operator.js";
import { custom, getRequest, listRequests } from "../../support/resize.js";
import {
  ClusterObjects,
  condition,
  createJob,
  createPoolAndGroup,
  gpuFlavor,
  gpuJob,
  isTrue,
  KUEUE,
  queueOver,
  readPr,
  readWorkload,
  runningPods,
  startKueueStack,
  startProvisioner,
  tearDown,
  untilProvisioningRequest,
  untilWorkload,
  type Obj,
} from "./support.js";

const POOL_LABEL = "example.com/pool";
const GPU_SHAPE = {
  allocatable: { cpu: "32", memory: "256Gi", "nvidia.com/gpu": "8", pods: "110" },
  taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }],
};
const SECTION = "### Serving a request from a booking";

let stack: Awaited<ReturnType<typeof startKueueStack>> | undefined;
let ns: Awaited<ReturnType<typeof createTestNamespace>> | undefined;
let operator: OperatorProcess | undefined;
const cluster = new ClusterObjects();
const name = (): string => ns?.name ?? "";

/** The ProvisioningRequestConfig the section of docs/kueue.md shows, parsed as written. */
function documentedConfig(): { metadata: { name: string }; spec: object; kind: string } {
  const doc = readFileSync(path.join(repoRoot, "docs/kueue.md"), "utf8");
  const section = doc.slice(doc.indexOf(SECTION));
  const block = /```yaml\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!block) throw new Error(`no yaml block in docs/kueue.md ${SECTION}`);
  return parse(block) as { metadata: { name: string }; spec: object; kind: string };
}

/** Events of the test's namespace regarding the ProvisioningRequest `objectName`, as `reason: note`. */
async function eventsFor(objectName: string): Promise<string[]> {
  const list = JSON.parse(await kubectl("get", "events.events.k8s.io", "-n", name(), "-o", "json")) as {
    items: { reason?: string; note?: string; regarding?: { kind?: string; name?: string } }[];
  };
  return list.items
    .filter((e) => e.regarding?.kind === "ProvisioningRequest" && e.regarding.name === objectName)
    .map((e) => `${e.reason ?? ""}: ${e.note ?? ""}`);
}

/** The ProvisioningRequest once `ready` says so of it. */
const untilPr = (pr: Obj, what: string, ready: (now: Obj) => boolean, timeoutMs = 60_000): Promise<Obj> =>
  eventually(
    what,
    async () => {
      const now = await readPr(name(), pr);
      return ready(now) ? now : undefined;
    },
    timeoutMs,
  );

beforeAll(async () => {
  await installApi();
  stack = await startKueueStack();
  ns = await createTestNamespace("kueue-booking");
  // A retention of 0s: the provisioner would delete at once any finished ResizeRequest it took for its own.
  operator = await startProvisioner(name(), ["--provisioning-resize-request-retention=0s"]);
  const nodes = { [POOL_LABEL]: `${name()}-gpu` };
  await createPoolAndGroup(name(), "gpu", { ...GPU_SHAPE, labels: nodes }, 4, {
    readiness: { nodeSelector: nodes },
  });
  const config = documentedConfig();
  expect(config.kind).toBe("ProvisioningRequestConfig");
  const check = config.metadata.name;
  await cluster.create("ResourceFlavor", "resourceflavors", `${name()}-gpu`, gpuFlavor(`${name()}-gpu`));
  await cluster.create("ProvisioningRequestConfig", "provisioningrequestconfigs", check, config.spec);
  await cluster.create("AdmissionCheck", "admissionchecks", check, {
    controllerName: "kueue.x-k8s.io/provisioning-request",
    parameters: { apiGroup: KUEUE.group, kind: "ProvisioningRequestConfig", name: check },
  });
  await queueOver(cluster, `${name()}-gpu`, check, name(), "booked");
}, 600_000);

afterAll(() => tearDown({ ns, cluster, operator, stack }), 600_000);

test("a Job naming a booking waits for its window, runs on the booking's Nodes, and no ResizeRequest of its own is made", async () => {
  await untilSized(name(), "gpu", 0);
  const start = Date.now() + 80_000;
  const end = start + 30_000;
  await custom.createNamespacedCustomObject({
    ...bookingApi,
    namespace: name(),
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: FUTURE_RESERVATION.kind,
      metadata: { name: "night" },
      spec: {
        instanceGroupManager: "gpu",
        totalCount: 2,
        timeWindow: { startTime: rfc3339(start), endTime: rfc3339(end) },
      },
    },
  });
  const approved = await eventually("night APPROVED", async () => {
    const fr = await getBooking(name(), "night");
    return fr.status?.procurementStatus === "APPROVED" ? fr : undefined;
  });
  const startTime = approved.status?.startTime ?? "";

  const job = await createJob(
    name(),
    gpuJob("train", 2, 8, "booked", { "provreq.kueue.x-k8s.io/futureReservation": "night" }),
  );
  const wl = await untilWorkload(name(), job.uid, "train");
  const pr = await untilProvisioningRequest(name(), wl, "train");
  const waiting = await untilPr(pr, "Provisioned=False naming the booking", (now) =>
    condition(now, "Provisioned")?.reason === "WaitingForFutureReservationWindow" ? true : false,
  );
  expect(waiting.spec?.parameters).toEqual({ futureReservation: "night" });
  expect(condition(waiting, "Accepted")).toMatchObject({ status: "True", reason: "SuccessfullyQueued" });
  expect(condition(waiting, "Accepted")?.message).toContain(`Served by FutureReservation ${name()}/night`);
  expect(condition(waiting, "Provisioned")?.status).toBe("False");
  expect(condition(waiting, "Provisioned")?.message).toContain(
    `Waiting for FutureReservation ${name()}/night`,
  );
  expect(condition(waiting, "Provisioned")?.message).toContain(`window starts at ${startTime}`);
  expect(waiting.status?.provisioningClassDetails).toMatchObject({
    ResizeRequestName: "fr-night",
    InstanceGroupManager: `${name()}/gpu`,
    SelectedZone: "local-a",
    FutureReservation: "night",
  });
  // Kueue shows the message on the Workload's admission check, and does not admit it yet.
  const pending = await eventually("the message on the Workload's admission check", async () => {
    const now = await readWorkload(name(), wl);
    return now.status?.admissionChecks?.some((c) => c.message?.includes("Waiting for FutureReservation"))
      ? now
      : undefined;
  });
  expect(isTrue(pending, "Admitted")).toBe(false);
  expect(Date.now()).toBeLessThan(start);

  await eventually(
    "night FULFILLED",
    async () => {
      const fr = await getBooking(name(), "night");
      if (fr.status?.procurementStatus === "FAILED") throw new Error(fr.status.message);
      return fr.status?.procurementStatus === "FULFILLED" ? true : undefined;
    },
    150_000,
  );
  const provisioned = await untilPr(pr, "Provisioned=True", (now) => isTrue(now, "Provisioned"));
  expect(condition(provisioned, "Provisioned")).toMatchObject({ reason: "Provisioned" });
  expect(condition(provisioned, "Failed")).toBeUndefined();
  await eventually("the Workload admitted", async () =>
    isTrue(await readWorkload(name(), wl), "Admitted") ? true : undefined,
  );
  const pods = await eventually("2 Running pods of train", () => runningPods(name(), "train", 2), 120_000);
  // Kueue put our node selector on the pods; they run on exactly the delivery's Nodes.
  const delivered = (await getRequest(name(), "fr-night")).status?.instances?.map((i) => i.name) ?? [];
  expect(delivered).toHaveLength(2);
  for (const p of pods) {
    expect(p.spec?.nodeSelector?.[REQUEST_LABEL]).toBe("fr-night");
    expect(delivered).toContain(p.spec?.nodeName);
  }
  // The booking's delivery is the only ResizeRequest: none was made for the ProvisioningRequest.
  expect((await listRequests(name())).map((rr) => rr.metadata.name)).toEqual(["fr-night"]);

  // The window's end: the booking's instances are released, the request's capacity revoked.
  const revoked = await untilPr(pr, "CapacityRevoked=True", (now) => isTrue(now, "CapacityRevoked"), 120_000);
  expect(condition(revoked, "CapacityRevoked")).toMatchObject({ reason: "CapacityRevoked" });
  expect(condition(revoked, "CapacityRevoked")?.message).toContain(
    `FutureReservation ${name()}/night ended (WindowEnded)`,
  );
  expect(await eventsFor(pr.metadata.name)).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^Accepted: Served by FutureReservation/),
      expect.stringMatching(/^Provisioned: The 2 instances of FutureReservation/),
      expect.stringMatching(/^CapacityRevoked: FutureReservation .*\/night ended/),
    ]),
  );
  // The request is finished and the retention 0s: the delivery request, the booking's, is left alone.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect((await listRequests(name())).map((rr) => rr.metadata.name)).toEqual(["fr-night"]);
}, 400_000);

test("a Job naming a booking that does not exist: Failed (FutureReservationNotFound) with an Event, nothing created", async () => {
  const job = await createJob(
    name(),
    gpuJob("lost", 1, 8, "booked", { "provreq.kueue.x-k8s.io/futureReservation": "absent" }),
  );
  const wl = await untilWorkload(name(), job.uid, "lost");
  const pr = await untilProvisioningRequest(name(), wl, "lost");
  const failed = await untilPr(pr, "Failed=True", (now) => isTrue(now, "Failed"));
  expect(condition(failed, "Failed")).toMatchObject({ reason: "FutureReservationNotFound" });
  expect(condition(failed, "Failed")?.message).toBe(
    `FutureReservation ${name()}/absent (parameter futureReservation) does not exist. A request is served only from a booking of its own namespace.`,
  );
  await eventually("the Failed Event", async () =>
    (await eventsFor(pr.metadata.name)).some((e) => e.startsWith("Failed: FutureReservation"))
      ? true
      : undefined,
  );
  expect((await listRequests(name())).map((rr) => rr.metadata.name)).toEqual(["fr-night"]);
}, 120_000);
