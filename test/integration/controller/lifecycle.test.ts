// The resize controller end to end on the local cluster (kwok nodes with 8 GPUs each): admission,
// FIFO queueing, all-or-nothing provisioning, cancel, quota, and run-duration release.
import { ApiException } from "@kubernetes/client-node";
import { ErrorCode } from "../../../src/api/errors.js";
import { installApi, kubectl } from "../api/install.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createDeployment, deployment } from "../../support/regional.js";
import { REQUEST_LABEL } from "../../../src/api/instance-labels.js";
import { listEvents } from "../events/support.js";
import {
  apps,
  cancelRequest,
  core,
  createGroup,
  createRequest,
  createWorkers,
  getGroup,
  getRequest,
  replicasOf,
  untilState,
} from "../../support/resize.js";

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("lifecycle");
  operator = startOperator({ namespace: ns.name, name: "lifecycle-op" });
});
afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
});

test("a. resizeBy 4 on the sample StatefulSet succeeds with 4 new Ready pods", async () => {
  await kubectl(
    "apply",
    "-n",
    ns.name,
    "-f",
    "manifests/samples/gpu-workers.yaml",
    "-f",
    "manifests/samples/instancegroupmanager.yaml",
  );
  await createRequest(ns.name, "four", { instanceGroupManager: "gpu-workers", resizeBy: 4 });
  const rr = await untilState(ns.name, "four", ["SUCCEEDED", "FAILED"]);
  expect(rr.status?.state).toBe("SUCCEEDED");
  expect(rr.status?.lastAttempt).toBeUndefined();
  expect(rr.status?.kind).toBe("compute#instanceGroupManagerResizeRequest");
  expect(rr.status?.id).toMatch(/^\d+$/);
  expect(rr.status?.selfLink).toMatch(
    new RegExp(`/projects/${ns.name}/zones/local-a/instanceGroupManagers/gpu-workers/resizeRequests/four$`),
  );
  // The sample leaves replicas unset, so the StatefulSet starts at 1: four new instances make five.
  expect(await replicasOf(ns.name, "gpu-workers")).toEqual({ replicas: 5, ready: 5 });
  const pods = await core.listNamespacedPod({
    namespace: ns.name,
    labelSelector: "app.kubernetes.io/name=gpu-workers",
  });
  expect(
    pods.items.filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")),
  ).toHaveLength(5);
  const table = await kubectl("get", "rr", "-n", ns.name);
  expect(table).toMatch(/four\s+gpu-workers\s+4\s+SUCCEEDED\s+Provisioned/);
});

test("c. three requests on one group are served in FIFO order", async () => {
  await createWorkers(ns.name, "fifo");
  await createGroup(ns.name, "fifo", { maxSize: 10 });
  for (const name of ["fifo-a", "fifo-b", "fifo-c"]) {
    await createRequest(ns.name, name, { instanceGroupManager: "fifo", resizeBy: 2 });
  }
  const done = await Promise.all(
    ["fifo-a", "fifo-b", "fifo-c"].map((n) => untilState(ns.name, n, ["SUCCEEDED"])),
  );
  const times = done.map((rr) => Date.parse(rr.status?.succeededTime ?? ""));
  expect(times[0]).toBeLessThan(times[1] ?? 0);
  expect(times[1]).toBeLessThan(times[2] ?? 0);
  expect((await replicasOf(ns.name, "fifo")).replicas).toBe(6);
});

test("d. cancel during provisioning rolls back; cancel after SUCCEEDED is refused", async () => {
  // Pods asking for 9 GPUs never schedule (nodes have 8), so the attempt stays in progress.
  await createWorkers(ns.name, "stuck", 9, 1);
  await createGroup(ns.name, "stuck", { provisioningTimeout: "10m" });
  await createRequest(ns.name, "cancel-me", { instanceGroupManager: "stuck", resizeBy: 3 });
  await eventually("the attempt to raise replicas", async () => {
    const rr = await getRequest(ns.name, "cancel-me");
    const { replicas } = await replicasOf(ns.name, "stuck");
    return rr.status?.provisioning && replicas === 4 ? true : undefined;
  });
  await cancelRequest(ns.name, "cancel-me");
  const cancelled = await untilState(ns.name, "cancel-me", ["CANCELLED"]);
  expect(cancelled.status?.provisioning).toBeUndefined();
  // The final status and the finalizer's removal are two writes of the same pass, made concurrently.
  await eventually("the finalizer of the cancelled request to be removed", async () => {
    const rr = await getRequest(ns.name, "cancel-me");
    return (rr.metadata.finalizers ?? []).includes("compute.resize-operator.dev/finalizer")
      ? undefined
      : true;
  });
  expect((await replicasOf(ns.name, "stuck")).replicas).toBe(1);

  await cancelRequest(ns.name, "four");
  const refused = await eventually("the CancelRefused condition", async () => {
    const rr = await getRequest(ns.name, "four");
    return rr.status?.conditions?.find((c) => c.type === "Cancelled" && c.reason === "CancelRefused");
  });
  expect(refused.status).toBe("False");
  expect((await getRequest(ns.name, "four")).status?.state).toBe("SUCCEEDED");
  expect((await replicasOf(ns.name, "gpu-workers")).replicas).toBe(5);
});

test("e. resizeBy above maxSize fails with QUOTA_EXCEEDED and quotaInfo", async () => {
  await createWorkers(ns.name, "small");
  await createGroup(ns.name, "small", { maxSize: 3 });
  await createRequest(ns.name, "too-many", { instanceGroupManager: "small", resizeBy: 4 });
  const rr = await untilState(ns.name, "too-many", ["FAILED", "SUCCEEDED"]);
  expect(rr.status?.state).toBe("FAILED");
  const error = rr.status?.error?.errors[0];
  expect(error?.code).toBe(ErrorCode.QUOTA_EXCEEDED);
  const quota = error?.errorDetails?.find((d) => d.quotaInfo)?.quotaInfo;
  expect(quota).toMatchObject({
    limitName: "maxSize",
    limit: 3,
    dimensions: { zone: "local-a", instanceGroupManager: "small" },
  });
  expect(quota?.metricName).toBeTruthy();
  expect((await replicasOf(ns.name, "small")).replicas).toBe(0);
});

test("a request for a missing group fails after the admission grace period", async () => {
  await createRequest(ns.name, "orphan", { instanceGroupManager: "no-such-group", resizeBy: 1 });
  const creating = await untilState(ns.name, "orphan", ["CREATING", "FAILED"]);
  expect(creating.status?.reason).toBe("GroupNotFound");
  const failed = await untilState(ns.name, "orphan", ["FAILED"]);
  expect(failed.status?.error?.errors[0]?.code).toBe(ErrorCode.RESOURCE_NOT_FOUND);
});

test("run duration: instances are released when it elapses, state stays SUCCEEDED", async () => {
  await createWorkers(ns.name, "short");
  await createGroup(ns.name, "short", { minSize: 1 });
  await createRequest(ns.name, "brief", {
    instanceGroupManager: "short",
    resizeBy: 3,
    requestedRunDuration: { seconds: "3" },
  });
  const ok = await untilState(ns.name, "brief", ["SUCCEEDED"]);
  expect(Date.parse(ok.status?.runUntil ?? "") - Date.parse(ok.status?.succeededTime ?? "")).toBe(3000);
  const released = await eventually("the release", async () => {
    const rr = await getRequest(ns.name, "brief");
    return rr.status?.release?.phase === "Applied" ? rr : undefined;
  });
  expect(released.status?.state).toBe("SUCCEEDED");
  expect(released.status?.conditions?.find((c) => c.type === "Released")?.status).toBe("True");
  // 3 − 3 = 0 would go below minSize 1.
  expect((await replicasOf(ns.name, "short")).replicas).toBe(1);
  // The group's status follows the target down once the released pods are gone, with no request left
  // to drive a pass.
  await eventually("the group's status to show the released target", async () => {
    const status = (await getGroup(ns.name, "short")).status;
    return status?.targetSize === 1 && status.readyInstances === 1 ? true : undefined;
  });
  const events = await kubectl("events", "-n", ns.name, "--for", "resizerequest/brief");
  // Alone in its group: admitted and started in one pass, told by one ProvisioningStarted event.
  for (const reason of ["ProvisioningStarted", "Admitted to the queue", "Succeeded", "RunDurationElapsed"])
    expect(events).toContain(reason);
});

test("deleting a namespace during an attempt: the running operator lets the request go", async () => {
  // The namespace controller deletes the group and the target along with the request: the attempt
  // has nothing left to roll back, and the request must not keep the namespace Terminating for ever.
  const doomed = await createTestNamespace("ns-delete");
  const op = startOperator({ namespace: doomed.name, name: "ns-delete-op" });
  try {
    await createWorkers(doomed.name, "stuck", 9, 1);
    await createGroup(doomed.name, "stuck", { provisioningTimeout: "10m" });
    await createRequest(doomed.name, "held", { instanceGroupManager: "stuck", resizeBy: 2 });
    await eventually("the attempt, holding the finalizer", async () => {
      const rr = await getRequest(doomed.name, "held");
      return rr.status?.provisioning &&
        (rr.metadata.finalizers ?? []).includes("compute.resize-operator.dev/finalizer")
        ? true
        : undefined;
    });
    await core.deleteNamespace({ name: doomed.name });
    await eventually(
      "the namespace to be gone",
      async () => {
        const gone = await core.readNamespace({ name: doomed.name }).then(
          () => false,
          (err: unknown) => err instanceof ApiException && err.code === 404,
        );
        return gone ? true : undefined;
      },
      120_000,
    );
  } finally {
    await stopAll([op]);
  }
});

/** The Events regarding request `request` (they may take a moment to be written). */
async function eventsOf(namespace: string, request: string) {
  return (await listEvents(namespace)).filter(
    (e) => e.regarding?.kind === "ResizeRequest" && e.regarding.name === request,
  );
}

/** Creates request `name` of 2 on `group` and waits for SUCCEEDED: the pods it lists as its own. */
async function twoMore(group: string, name: string, runSeconds: number): Promise<string[]> {
  await createRequest(ns.name, name, {
    instanceGroupManager: group,
    resizeBy: 2,
    requestedRunDuration: { seconds: String(runSeconds) },
  });
  const rr = await untilState(ns.name, name, ["SUCCEEDED", "FAILED"], 90_000);
  expect(rr.status?.state).toBe("SUCCEEDED");
  const pods = (rr.status?.instances ?? []).map((i) => `${i.kind}/${i.name}`).sort();
  expect(pods).toHaveLength(2);
  return pods.map((p) => p.slice("Pod/".length));
}

/** The pods of `app` not being deleted, once there are `count` of them. */
function podsSettledAt(app: string, count: number): Promise<string[]> {
  return eventually(
    `${count} pods of ${app}`,
    async () => {
      const pods = (
        await core.listNamespacedPod({ namespace: ns.name, labelSelector: `app=${app}` })
      ).items.filter((p) => !p.metadata?.deletionTimestamp);
      return pods.length === count ? pods.map((p) => p.metadata?.name ?? "").sort() : undefined;
    },
    90_000,
  );
}

test("interleaved releases: a Deployment's take exactly their own pods; a StatefulSet's take its highest ordinals", async () => {
  await createDeployment(ns.name, "web", 2);
  await createGroup(ns.name, "web", { targetRef: deployment("web"), maxSize: 10 });
  const base = await podsSettledAt("web", 2);
  // Creation times have a resolution of one second: the base pods are older than any an attempt adds
  // (docs/lifecycle.md "Whose instances", Limits).
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  // The earlier request ends first: left to itself the ReplicaSet would delete the newest pods (b's).
  const a = await twoMore("web", "a", 15);
  const b = await twoMore("web", "b", 600);
  expect(await podsSettledAt("web", 4)).toEqual([...base, ...b].sort());
  // A later request ends first, an earlier one's pods older.
  const c = await twoMore("web", "c", 600);
  const d = await twoMore("web", "d", 15);
  expect(await podsSettledAt("web", 6)).toEqual([...base, ...b, ...c].sort());
  expect([...a, ...d].every((p) => !base.includes(p))).toBe(true);
  const identity = async (group: string) =>
    (await getGroup(ns.name, group)).status?.conditions?.find((c) => c.type === "InstanceIdentity");
  expect(await identity("web")).toMatchObject({ status: "True", reason: "OwnInstances" });

  // A StatefulSet removes its highest ordinals whatever a pod's cost: an earlier request ending first
  // takes the later one's pods, and hands its own surviving pods to it, told on both
  // (docs/lifecycle.md "Whose instances").
  await createWorkers(ns.name, "sts", 0, 1);
  await createGroup(ns.name, "sts", { maxSize: 10 });
  await podsSettledAt("sts", 1);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const e = await twoMore("sts", "e", 15);
  const f = await twoMore("sts", "f", 600);
  expect(e).toEqual(["sts-1", "sts-2"]);
  expect(f).toEqual(["sts-3", "sts-4"]);
  expect(await podsSettledAt("sts", 3)).toEqual(["sts-0", "sts-1", "sts-2"]);
  const handedOver = await eventually(
    "f lists the pods handed over",
    async () => {
      const rr = await getRequest(ns.name, "f");
      return rr.status?.instances?.some((i) => i.name === "sts-1") ? rr : undefined;
    },
    60_000,
  );
  expect(handedOver.status?.instances).toEqual([
    { kind: "Pod", name: "sts-1" },
    { kind: "Pod", name: "sts-2" },
  ]);
  expect(handedOver.status?.conditions?.find((c) => c.type === "InstancesReplaced")).toMatchObject({
    status: "True",
    reason: "HighestOrdinalsFirst",
  });
  const labelled = await core.listNamespacedPod({
    namespace: ns.name,
    labelSelector: `${REQUEST_LABEL}=f`,
  });
  expect(labelled.items.map((p) => p.metadata?.name).sort()).toEqual(["sts-1", "sts-2"]);
  const notes = (request: string) =>
    eventually(`the InstancesHandedOver Event on ${request}`, async () => {
      const found = (await eventsOf(ns.name, request)).filter((ev) => ev.reason === "InstancesHandedOver");
      return found.length > 0 ? found.map((ev) => ev.note) : undefined;
    });
  expect(await notes("f")).toEqual([
    expect.stringContaining("this request's sts-3, sts-4 went, and e's sts-1, sts-2 took their place"),
  ]);
  expect(await notes("e")).toEqual([expect.stringContaining("took sts-3, sts-4 of request f")]);
  expect(await identity("sts")).toMatchObject({ status: "False", reason: "LastInFirstOut" });
  expect((await identity("sts"))?.message).toContain("removes its highest ordinals first");
}, 300_000);

test("named instances: a StatefulSet's next pods are honoured; a Deployment's, or names that are not next, fail with the reason", async () => {
  await createWorkers(ns.name, "named", 0, 1);
  await createGroup(ns.name, "named", { maxSize: 10 });
  await podsSettledAt("named", 1);
  await createRequest(ns.name, "next", {
    instanceGroupManager: "named",
    instances: [{ name: "named-2" }, { name: "named-1" }],
  });
  const next = await untilState(ns.name, "next", ["SUCCEEDED", "FAILED"], 90_000);
  expect(next.status?.state).toBe("SUCCEEDED");
  expect(next.status?.instances).toEqual([
    { kind: "Pod", name: "named-1" },
    { kind: "Pod", name: "named-2" },
  ]);
  // Not the next ordinals any more (the StatefulSet has 3): refused when it reaches the head.
  await createRequest(ns.name, "behind", { instanceGroupManager: "named", instances: [{ name: "named-1" }] });
  const behind = await untilState(ns.name, "behind", ["SUCCEEDED", "FAILED"], 60_000);
  expect(behind.status).toMatchObject({ state: "FAILED", reason: "InstanceNamesRefused" });
  expect(behind.status?.error?.errors[0]?.message).toContain("so its next pod is named-3");
  expect((await replicasOf(ns.name, "named")).replicas).toBe(3);

  await createDeployment(ns.name, "api", 1);
  await createGroup(ns.name, "api", { targetRef: deployment("api"), maxSize: 10 });
  await createRequest(ns.name, "api-named", { instanceGroupManager: "api", instances: [{ name: "api-a" }] });
  const refused = await untilState(ns.name, "api-named", ["SUCCEEDED", "FAILED"], 60_000);
  expect(refused.status).toMatchObject({ state: "FAILED", reason: "InstanceNamesRefused" });
  expect(refused.status?.error?.errors[0]?.code).toBe(ErrorCode.UNSUPPORTED_OPERATION);
  expect(refused.status?.error?.errors[0]?.message).toContain("Deployment/api names its instances itself");
  await eventually("the AdmissionFailed Event on api-named", async () =>
    (await eventsOf(ns.name, "api-named")).find((ev) => ev.reason === "AdmissionFailed"),
  );
  expect((await apps.readNamespacedDeployment({ namespace: ns.name, name: "api" })).spec?.replicas).toBe(1);
}, 240_000);
