// Group policies on the local cluster (kwok nodes with 8 GPUs each): a queue deadline fails a request
// still waiting for room, and an attempt whose pods cannot be placed is rolled back after the group's
// unschedulableGracePeriod instead of its 10-minute provisioningTimeout — when the group says nothing adds
// capacity (clusterAutoscaler: None), or when a cluster autoscaler said so on the pods (Detect).
import type { CoreV1Event, V1Pod } from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { ErrorCode } from "../../../src/api/errors.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import {
  cancelRequest,
  core,
  createGroup,
  createRequest,
  createWorkers,
  getRequest,
  replicasOf,
  untilState,
} from "../../support/resize.js";
import { installApi } from "../api/install.js";
import { listEvents } from "../events/support.js";

/** More GPUs per pod than any kwok node has (8): the scheduler can never place these pods. */
const TOO_MANY_GPUS = 9;

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: OperatorProcess;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("policies");
  operator = startOperator({ namespace: ns.name, name: "policies-op" });
});
afterAll(async () => {
  await stopAll([operator]);
  await ns.remove();
});

/** The request's last failed attempt, once there is one (the attempt was rolled back). */
function lastAttemptError(name: string) {
  return eventually(`a rolled-back attempt of ${name}`, async () => {
    const rr = await getRequest(ns.name, name);
    const error = rr.status?.lastAttempt?.error?.errors[0];
    return error && rr.status?.provisioning === undefined ? { rr, error } : undefined;
  });
}

/** The target's one pod, once the scheduler has reported it Unschedulable. */
function unschedulablePod(app: string): Promise<V1Pod> {
  return eventually(`an Unschedulable pod of ${app}`, async () => {
    const pods = await core.listNamespacedPod({ namespace: ns.name, labelSelector: `app=${app}` });
    return pods.items.find((p) =>
      p.status?.conditions?.some(
        (c) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable",
      ),
    );
  });
}

/**
 * Posts a scale-up verdict on `pod` exactly as cluster-autoscaler does: its EventingScaleUpStatusProcessor
 * records a core/v1 Event through client-go's recorder (tools/record) created with source component
 * "cluster-autoscaler" — name "<pod>.<hex nanoseconds>", involvedObject the pod, type Normal,
 * first/lastTimestamp, count 1, reportingComponent copied from the source. No autoscaler runs here: the
 * test stands in for it.
 */
async function postAutoscalerEvent(
  pod: V1Pod,
  reason: "NotTriggerScaleUp" | "TriggeredScaleUp",
  message: string,
  at: Date,
): Promise<void> {
  const name = pod.metadata?.name ?? "";
  const body: CoreV1Event = {
    metadata: { name: `${name}.${(BigInt(at.getTime()) * 1_000_000n).toString(16)}`, namespace: ns.name },
    involvedObject: {
      apiVersion: "v1",
      kind: "Pod",
      namespace: ns.name,
      name,
      uid: pod.metadata?.uid ?? "",
      resourceVersion: pod.metadata?.resourceVersion ?? "",
    },
    reason,
    message,
    type: "Normal",
    source: { component: "cluster-autoscaler" },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    reportingComponent: "cluster-autoscaler",
    reportingInstance: "",
  };
  await core.createNamespacedEvent({ namespace: ns.name, body });
}

test("a. a request still waiting for room when its group's maxQueueDuration elapses goes FAILED", async () => {
  await createWorkers(ns.name, "queue", 0, 2);
  // maxSize 3 with 2 replicas: a request for 2 waits for room it never gets. The request carries no
  // maxQueueDuration of its own (as a REST insert), so the group's default applies.
  await createGroup(ns.name, "queue", { maxSize: 3, maxQueueDuration: "3s" });
  await createRequest(ns.name, "waits", { instanceGroupManager: "queue", resizeBy: 2 });

  const rr = await untilState(ns.name, "waits", ["FAILED", "SUCCEEDED", "CANCELLED"]);
  expect(rr.status?.state).toBe("FAILED");
  expect(rr.status?.reason).toBe("QueueDeadlineExceeded");
  expect(rr.status?.attempts).toBeUndefined();
  const error = rr.status?.error?.errors[0];
  expect(error?.code).toBe(ErrorCode.DEADLINE_EXCEEDED);
  expect(error?.message).toMatch(
    /^waited \S+ in the queue of group queue for room: needs 2, room 1 under maxSize 3; the group's maxQueueDuration of 3s elapsed$/,
  );
  expect(error?.errorDetails?.[0]?.errorInfo?.reason).toBe("QUEUE_DEADLINE_EXCEEDED");
  expect(rr.status?.conditions?.find((c) => c.type === "Failed")).toMatchObject({
    status: "True",
    reason: "QueueDeadlineExceeded",
  });
  expect(await replicasOf(ns.name, "queue")).toMatchObject({ replicas: 2 });
  const event = await eventually("the QueueDeadlineExceeded event", async () =>
    (await listEvents(ns.name)).find(
      (e) => e.regarding?.name === "waits" && e.reason === "QueueDeadlineExceeded",
    ),
  );
  expect(event.type).toBe("Warning");
  expect(event.note).toContain("DEADLINE_EXCEEDED: waited");
});

test("b. clusterAutoscaler None: an Unschedulable attempt rolls back after the grace, not the 10m timeout", async () => {
  await createWorkers(ns.name, "nocap", TOO_MANY_GPUS);
  await createGroup(ns.name, "nocap", {
    clusterAutoscaler: "None",
    unschedulableGracePeriod: "2s",
    provisioningTimeout: "10m",
  });
  await createRequest(ns.name, "stuck", { instanceGroupManager: "nocap", resizeBy: 1 });

  const { rr, error } = await lastAttemptError("stuck");
  expect(rr.status?.state).toBe("ACCEPTED");
  expect(rr.status?.attempts).toBeGreaterThanOrEqual(1);
  expect(error.code).toBe(ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED);
  expect(error.message).toContain("the group's clusterAutoscaler is None");
  expect(error.message).toMatch(/Insufficient nvidia\.com\/gpu/);
  // Rolled back early, not at the provisioningTimeout.
  expect(error.errorDetails?.[0]?.errorInfo?.metadatas?.rolledBackEarly).toBe("true");
  expect(error.message).not.toContain("after 10m");

  await cancelRequest(ns.name, "stuck");
  await untilState(ns.name, "stuck", ["CANCELLED"]);
  expect(await replicasOf(ns.name, "nocap")).toMatchObject({ replicas: 0 });
});

test("c. clusterAutoscaler Detect: TriggeredScaleUp keeps the attempt waiting, a newer NotTriggerScaleUp rolls it back", async () => {
  await createWorkers(ns.name, "detect", TOO_MANY_GPUS);
  await createGroup(ns.name, "detect", { unschedulableGracePeriod: "2s", provisioningTimeout: "10m" });
  await createRequest(ns.name, "grows", { instanceGroupManager: "detect", resizeBy: 1 });
  await eventually("the attempt applied", async () => {
    const rr = await getRequest(ns.name, "grows");
    return rr.status?.provisioning?.phase === "Applied" ? true : undefined;
  });
  const pod = await unschedulablePod("detect");

  // The autoscaler first declined, then found a node group to grow: a scale-up is on its way. (Posted
  // newest first, so that the operator never sees the decline alone.)
  const now = Date.now();
  await postAutoscalerEvent(
    pod,
    "TriggeredScaleUp",
    "pod triggered scale-up: [{gpu-pool 1->2 (max: 4)}]",
    new Date(now - 10_000),
  );
  await postAutoscalerEvent(
    pod,
    "NotTriggerScaleUp",
    "pod didn't trigger scale-up: 1 max node group size reached",
    new Date(now - 20_000),
  );
  // Well past the 2 s grace (the operator polls every 250 ms): the attempt is still the first one, waiting.
  await sleep(5_000);
  const waiting = await getRequest(ns.name, "grows");
  expect(waiting.status?.provisioning).toMatchObject({ attempt: 1, phase: "Applied" });
  expect(waiting.status?.lastAttempt).toBeUndefined();

  // The scale-up came to nothing: the autoscaler's newer verdict is that it will not add a node.
  await postAutoscalerEvent(
    pod,
    "NotTriggerScaleUp",
    "pod didn't trigger scale-up: 1 Insufficient nvidia.com/gpu",
    new Date(now),
  );
  const { rr, error } = await lastAttemptError("grows");
  expect(rr.status?.state).toBe("ACCEPTED");
  expect(rr.status?.attempts).toBeGreaterThanOrEqual(1);
  expect(error.code).toBe(ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED);
  expect(error.message).toContain(
    `NotTriggerScaleUp on pod ${pod.metadata?.name ?? ""}: pod didn't trigger scale-up: 1 Insufficient nvidia.com/gpu`,
  );
  expect(error.errorDetails?.[0]?.errorInfo?.metadatas?.rolledBackEarly).toBe("true");

  await cancelRequest(ns.name, "grows");
  await untilState(ns.name, "grows", ["CANCELLED"]);
});
