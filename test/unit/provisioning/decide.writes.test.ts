// How often a ProvisioningRequest's status is written while it waits in a queue (each write costs ours,
// and Kueue's copy of the message onto the Workload): the pure decision over successive snapshots of a
// group whose queue moves one request at a time, each snapshot's queue view from the real queue model.
// One write per transition (Accepted, Provisioning, Provisioned), never one per queue position.
import {
  ProvisioningCondition as C,
  type ProvisioningRequest,
} from "../../../src/api/provisioning-request.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { rfc3339, rfc3339Seconds } from "../../../src/api/time.js";
import { decideProvisioning, type ProvisioningPlan } from "../../../src/controllers/provisioning/decide.js";
import { queueInsight } from "../../../src/queue/insight.js";
import { T0, group, pr, snapshot } from "./fixtures.js";

const GPU = group("gpu", "team-a", { maxSize: 64 });
const ATTEMPT_MS = 60_000;
const AHEAD = 5;

/** A request of the group ahead of ours, 4 instances, created before T0. */
function ahead(name: string, i: number, status: ResizeRequestStatus): ResizeRequest {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name, namespace: "team-a", uid: `uid-${name}`, creationTimestamp: rfc3339(T0 - 600_000 + i) },
    spec: { instanceGroupManager: "gpu", resizeBy: 4, cancel: false },
    status,
  };
}

const succeeded = (startedMs: number): ResizeRequestStatus => ({
  state: "SUCCEEDED",
  attempts: 1,
  provisioningStartedTime: rfc3339(startedMs),
  succeededTime: rfc3339(startedMs + ATTEMPT_MS),
});

const attempting = (startedMs: number, base: number): ResizeRequestStatus => ({
  state: "ACCEPTED",
  attempts: 1,
  provisioning: {
    attempt: 1,
    phase: "Applied",
    baseReplicas: base,
    targetReplicas: base + 4,
    startedTime: rfc3339(startedMs),
    deadline: rfc3339(startedMs + 600_000),
  },
});

const queued: ResizeRequestStatus = { state: "ACCEPTED" };

const startOf = (i: number): number => T0 + i * ATTEMPT_MS;

/**
 * The group's requests ahead of ours at step `step` (one attempt of ATTEMPT_MS per step): one done
 * before T0 (the attempt history), the first `step` of those ahead done, the next one's attempt running.
 */
function aheadAt(step: number): ResizeRequest[] {
  const others = Array.from({ length: AHEAD }, (_, i) =>
    ahead(
      `ahead-${i}`,
      i + 1,
      i < step ? succeeded(startOf(i)) : i === step ? attempting(startOf(i), 4 * (i + 1)) : queued,
    ),
  );
  return [ahead("history", 0, succeeded(T0 - 2 * ATTEMPT_MS)), ...others];
}

/** Ours at step `step`: queued, then its attempt (step AHEAD), then succeeded. */
function oursAt(step: number, ours: ResizeRequest): ResizeRequest {
  const status =
    step < AHEAD
      ? queued
      : step === AHEAD
        ? attempting(startOf(AHEAD), 4 * (AHEAD + 1))
        : succeeded(startOf(AHEAD));
  return { ...ours, status };
}

/** The target: 4 instances per request done or attempting; an attempt's 4 not ready yet. */
function targetAt(step: number): { replicas: number; readyReplicas: number } {
  const replicas = 4 * (1 + Math.min(step + 1, AHEAD + 1));
  return { replicas, readyReplicas: step <= AHEAD ? replicas - 4 : replicas };
}

const withStatus = (request: ProvisioningRequest, plan: ProvisioningPlan): ProvisioningRequest =>
  plan.status ? { ...request, status: { ...request.status, ...plan.status } } : request;

test("a request behind five others is written once per transition, not once per queue position", () => {
  const admittedAt = T0 + 1000;
  // Admission: the group's queue as the caches hold it, ours not created yet.
  const admission = decideProvisioning(
    snapshot({
      nowMs: admittedAt,
      groups: [GPU],
      queues: new Map([["team-a/gpu", { requests: aheadAt(0), target: targetAt(0) }]]),
    }),
  );
  const created = admission.create;
  if (!created) throw new Error("no ResizeRequest made");
  const ours = {
    ...created,
    metadata: { ...created.metadata, creationTimestamp: rfc3339Seconds(admittedAt) },
  };
  let request = withStatus(pr(), admission);
  const said = (r: ProvisioningRequest) => r.status?.conditions?.find((c) => c.type === C.Provisioned);
  const written: string[] = admission.status ? [said(request)?.message ?? ""] : [];
  const positions = new Set<number>();
  for (let step = 0; step <= AHEAD + 1; step++) {
    // Looked at twice per step (the refresh), as the queue moves.
    for (const offset of [ATTEMPT_MS / 4, (3 * ATTEMPT_MS) / 4]) {
      const nowMs = T0 + step * ATTEMPT_MS + offset;
      const requests = [...aheadAt(step), oursAt(step, ours)];
      const view = queueInsight({ group: GPU, requests, target: targetAt(step), now: nowMs });
      const insight = view.requests.find((r) => r.name === ours.metadata.name);
      if (insight) positions.add(insight.position);
      const plan = decideProvisioning(
        snapshot({
          request,
          nowMs,
          groups: [GPU],
          resizeRequest: requests.at(-1),
          insight,
          queueLength: view.queueLength,
        }),
      );
      request = withStatus(request, plan);
      if (plan.status) written.push(said(request)?.message ?? "");
    }
  }
  // The queue moved through every position from AHEAD + 1 down to 1...
  expect([...positions].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  // ...and the request was written three times: accepted (queued, its position and ETA said once), its
  // attempt started, provisioned.
  expect(written).toEqual([
    expect.stringMatching(
      /^Queued at position 6 of 6 for 4 instances of InstanceGroupManager team-a\/gpu; .* ETA /,
    ),
    expect.stringMatching(/^Provisioning 4 instances/),
    expect.stringMatching(/^4 instances of InstanceGroupManager team-a\/gpu are ready/),
  ]);
  expect(said(request)?.status).toBe("True");
});
