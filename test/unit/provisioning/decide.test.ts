// decideProvisioning(): every condition transition of a ProvisioningRequest of our class, as tables of
// (what is observed) → (the ResizeRequest created or cancelled, the conditions, the events).
import { PROVISIONING_REQUEST_UID_LABEL } from "../../../src/api/provisioning-request.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import {
  decideProvisioning,
  REFRESH_MS,
  type ProvisioningPlan,
} from "../../../src/controllers/provisioning/decide.js";
import { resizeRequestName } from "../../../src/controllers/provisioning/resize-request.js";
import type { RequestInsight } from "../../../src/queue/insight.js";
import {
  HOUR,
  T0,
  UID,
  at,
  cond,
  group,
  pr,
  rr,
  snapshot,
  template,
  gpuPod,
  POLICY_DEFAULTS,
  waitingInsight,
} from "./fixtures.js";

const condition = (plan: ProvisioningPlan, type: string) =>
  plan.status?.conditions.find((c) => c.type === type);
const reasons = (plan: ProvisioningPlan) => plan.events.map((e) => e.definition.reason);
const accepted = [cond("Accepted", "True", "SuccessfullyQueued"), cond("Provisioned", "False", "Queued")];
const provisioned = (s = 0) => [
  cond("Accepted", "True", "SuccessfullyQueued"),
  cond("Provisioned", "True", "Provisioned", s),
];

const queued = waitingInsight;

describe("a new request", () => {
  test("is sized, placed and gets its ResizeRequest: Accepted=True, Provisioned=False (Queued)", () => {
    const plan = decideProvisioning(
      snapshot({ request: pr({ parameters: { maxRunDurationSeconds: "3600", maxQueueDuration: "30m" } }) }),
    );
    expect(plan.create).toMatchObject({
      metadata: {
        name: "pr-job-a-prov-1-0f1e2d3c4b",
        namespace: "team-a",
        labels: { [PROVISIONING_REQUEST_UID_LABEL]: UID },
        annotations: {
          "compute.resize-operator.dev/provisioning-request": "team-a/job-a-prov-1",
          "compute.resize-operator.dev/workload": "team-a/job-a",
        },
        ownerReferences: [
          { kind: "ProvisioningRequest", name: "job-a-prov-1", uid: UID },
          { kind: "InstanceGroupManager", name: "gpu" },
        ],
      },
      spec: {
        instanceGroupManager: "gpu",
        resizeBy: 4,
        requestedRunDuration: { seconds: "3600" },
        maxQueueDuration: "30m",
      },
    });
    expect(condition(plan, "Accepted")).toMatchObject({
      status: "True",
      reason: "SuccessfullyQueued",
      observedGeneration: 1,
    });
    expect(condition(plan, "Provisioned")).toMatchObject({ status: "False", reason: "Queued" });
    expect(condition(plan, "Failed")).toBeUndefined();
    expect(reasons(plan)).toEqual(["Accepted"]);
  });

  test("of another namespace draws on a group that allows it; its ResizeRequest lives beside the group, owned by the group only", () => {
    const shared = group("shared", "infra", {
      provisioningRequests: { namespaces: "All", ...POLICY_DEFAULTS },
    });
    const plan = decideProvisioning(snapshot({ groups: [shared] }));
    expect(plan.create?.metadata.namespace).toBe("infra");
    expect(plan.create?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "InstanceGroupManager", name: "shared" }) as object,
    ]);
  });

  test("a namesake re-created by Kueue gets a ResizeRequest of its own (the name carries the uid)", () => {
    const again = pr();
    const other = { ...again, metadata: { ...again.metadata, uid: "99999999-aaaa-bbbb-cccc-dddddddddddd" } };
    expect(resizeRequestName(other)).not.toBe(resizeRequestName(again));
    expect(resizeRequestName(other)).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    const long = { ...again, metadata: { ...again.metadata, name: `${"x".repeat(200)}.Y_z` } };
    expect(resizeRequestName(long).length).toBeLessThanOrEqual(63);
  });

  test.each<[string, Parameters<typeof snapshot>[0], string, RegExp]>([
    [
      "invalid parameters",
      { request: pr({ parameters: { maxRunDurationSeconds: "0" } }) },
      "InvalidParameters",
      /maxRunDurationSeconds "0" must be a whole number/,
    ],
    ["no pod sets", { request: pr({ podSets: [] }) }, "InvalidPodSets", /no pod sets/],
    [
      "a missing pod template",
      { templates: new Map([["ppt-job-a-prov-1-main", undefined]]) },
      "MissingPodTemplates",
      /PodTemplate team-a\/ppt-job-a-prov-1-main/,
    ],
    ["no group", { groups: [] }, "NoQueuedNodepoolAvailable", /No InstanceGroupManager/],
    [
      "pods that fit no instance",
      { templates: new Map([["ppt-job-a-prov-1-main", template("ppt-job-a-prov-1-main", gpuPod(9))]]) },
      "ProvisioningRequestNotSchedulableInNodepool",
      /does not fit, one pod requests 9 nvidia.com\/gpu/,
    ],
    [
      "over maxSize",
      { groups: [group("gpu", "team-a", { maxSize: 2 })] },
      "NodepoolSizeReached",
      /needs 4 instances .* maxSize is 2: 2 over/,
    ],
  ])("that cannot be served fails at once: %s", (_, o, reason, message) => {
    const plan = decideProvisioning(snapshot(o));
    expect(plan.create).toBeUndefined();
    expect(condition(plan, "Failed")).toMatchObject({
      status: "True",
      reason,
      message: expect.stringMatching(message) as string,
    });
    expect(condition(plan, "Accepted")).toMatchObject({ status: "False", reason });
    expect(condition(plan, "Provisioned")).toMatchObject({ status: "False", reason });
    expect(reasons(plan)).toEqual(["Failed"]);
  });
});

describe("while its ResizeRequest waits", () => {
  const waiting = (
    insight: RequestInsight | undefined,
    conditions = accepted,
    details?: Record<string, string>,
  ) =>
    decideProvisioning(
      snapshot({
        request: pr({ conditions, ...(details && { details }) }),
        resizeRequest: rr({ state: "ACCEPTED" }),
        insight,
        queueLength: 3,
      }),
    );

  test("Provisioned=False carries the queue position and the ETA, and is looked at again", () => {
    const plan = waiting(queued());
    expect(condition(plan, "Provisioned")).toMatchObject({
      status: "False",
      reason: "Queued",
      message:
        "Queued at position 2 of 3 for 4 instances of InstanceGroupManager team-a/gpu; waiting for its turn: 1 request ahead of it, first holder (first come, first served). ETA 2026-01-01T00:05:30Z (exact).",
    });
    expect(plan.requeueAfterMs).toBe(REFRESH_MS);
    expect(reasons(plan)).toEqual([]); // the reason did not change: no event
  });

  test("the same position and ETA again: no write", () => {
    const first = waiting(queued());
    const again = waiting(queued(), first.status?.conditions, first.status?.provisioningClassDetails);
    expect(again.status).toBeUndefined();
  });

  test("an estimated ETA is given to the minute, so it does not move on every pass", () => {
    const a = waiting(queued({ eta: { basis: "estimated", start: T0, time: T0 + 301_000 } }));
    const b = waiting(queued({ eta: { basis: "estimated", start: T0, time: T0 + 312_000 } }));
    expect(condition(a, "Provisioned")?.message).toContain("ETA about 2026-01-01T00:06Z (estimated)");
    expect(condition(a, "Provisioned")?.message).toBe(condition(b, "Provisioned")?.message);
  });

  test("an attempt in progress: reason Provisioning, with an event", () => {
    const plan = waiting(
      queued({
        position: 1,
        waitingFor: { kind: "Attempt", attempt: 1, phase: "Applied", startedTime: T0 + 10_000 },
      }),
    );
    expect(condition(plan, "Provisioned")).toMatchObject({ reason: "Provisioning" });
    expect(condition(plan, "Provisioned")?.message).toMatch(
      /^Provisioning 4 instances of InstanceGroupManager team-a\/gpu: waiting for its attempt #1/,
    );
    expect(reasons(plan)).toEqual(["Provisioning"]);
  });
});

describe("when its ResizeRequest succeeds", () => {
  const succeeded: ResizeRequestStatus = {
    state: "SUCCEEDED",
    zone: "https://example.test/compute/v1/projects/team-a/zones/local-a",
    succeededTime: at(60),
  };

  test("Provisioned=True and provisioningClassDetails in the same write", () => {
    const plan = decideProvisioning(
      snapshot({ request: pr({ conditions: accepted }), resizeRequest: rr(succeeded) }),
    );
    expect(condition(plan, "Provisioned")).toMatchObject({
      status: "True",
      reason: "Provisioned",
      lastTransitionTime: at(60),
    });
    expect(plan.status?.provisioningClassDetails).toEqual({
      ResizeRequestName: "pr-job-a-prov-1-0f1e2d3c4b",
      InstanceGroupManager: "team-a/gpu",
      SelectedZone: "local-a",
      PodTemplateName: "ppt-job-a-prov-1-main",
    });
    expect(reasons(plan)).toEqual(["Provisioned"]);
    expect(plan.requeueAfterMs).toBe(600_000); // the booking window, 10 minutes by default
  });

  test.each<[string, number, boolean, Record<string, string> | undefined, string | undefined]>([
    ["within the window", 300, false, undefined, undefined],
    ["past the default 10m window, nothing consumed", 601, false, undefined, "BookingExpired"],
    ["past the window, a pod consumes it", 601, true, undefined, undefined],
    ["past a 2m window set by parameter", 121, false, { bookingWindow: "2m" }, "BookingExpired"],
  ])("the booking window: %s", (_, seconds, consumed, parameters, expected) => {
    const plan = decideProvisioning(
      snapshot({
        request: pr({ conditions: provisioned(0), ...(parameters && { parameters }) }),
        resizeRequest: rr(succeeded),
        nowMs: T0 + seconds * 1000,
        consumed,
      }),
    );
    expect(condition(plan, "BookingExpired")?.reason).toBe(expected);
  });

  test("the run duration releases the instances: CapacityRevoked=True, never Failed", () => {
    const plan = decideProvisioning(
      snapshot({
        request: pr({ conditions: provisioned(0) }),
        resizeRequest: rr({
          ...succeeded,
          runUntil: at(3600),
          release: { phase: "Applied", baseReplicas: 4, targetReplicas: 0, startedTime: at(3600) },
        }),
        nowMs: T0 + 3_601_000,
      }),
    );
    expect(condition(plan, "CapacityRevoked")).toMatchObject({
      status: "True",
      reason: "CapacityRevoked",
    });
    expect(condition(plan, "CapacityRevoked")?.message).toContain(
      "the 4 instances of InstanceGroupManager team-a/gpu were released",
    );
    expect(condition(plan, "Failed")).toBeUndefined();
    expect(reasons(plan)).toEqual(["CapacityRevoked"]);
  });

  test("after Provisioned, its ResizeRequest gone (retention, a user): nothing changes, never Failed", () => {
    const plan = decideProvisioning(
      snapshot({ request: pr({ conditions: provisioned(0) }), resizeRequest: undefined }),
    );
    expect(plan).toEqual({ events: [] });
  });
});

describe("when its ResizeRequest cannot be served", () => {
  test.each<[string, ResizeRequestStatus, string, RegExp]>([
    [
      "QUOTA_EXCEEDED",
      { state: "FAILED", error: { errors: [{ code: "QUOTA_EXCEEDED", message: "needs 9, maxSize 8" }] } },
      "NodepoolSizeReached",
      /failed: QUOTA_EXCEEDED: needs 9, maxSize 8/,
    ],
    [
      "a queue deadline",
      { state: "FAILED", error: { errors: [{ code: "DEADLINE_EXCEEDED", message: "waited 30m" }] } },
      "WaitTimeExceeded",
      /DEADLINE_EXCEEDED/,
    ],
    [
      "its group deleted",
      { state: "FAILED", error: { errors: [{ code: "RESOURCE_NOT_FOUND", message: "gone" }] } },
      "InstanceGroupManagerNotFound",
      /RESOURCE_NOT_FOUND/,
    ],
    [
      "cancelled by someone",
      { state: "CANCELLED" },
      "InternalErrorResizeRequestGotCancelled",
      /was cancelled before its capacity was provisioned/,
    ],
  ])("%s → Failed=True", (_, status, reason, message) => {
    const plan = decideProvisioning(
      snapshot({ request: pr({ conditions: accepted }), resizeRequest: rr(status) }),
    );
    expect(condition(plan, "Failed")).toMatchObject({
      status: "True",
      reason,
      message: expect.stringMatching(message) as string,
    });
    expect(reasons(plan)).toEqual(["Failed"]);
  });

  test("its ResizeRequest deleted under it before Provisioned → Failed=True", () => {
    const plan = decideProvisioning(
      snapshot({ request: pr({ conditions: accepted }), resizeRequest: undefined }),
    );
    expect(condition(plan, "Failed")).toMatchObject({ reason: "MissingResizeRequest" });
    expect(plan.create).toBeUndefined();
  });

  test("a failed request's ResizeRequest still queued is cancelled; a failed one is final", () => {
    const failed = [...accepted, cond("Failed", "True", "QuotaExceeded")];
    const plan = decideProvisioning(
      snapshot({ request: pr({ conditions: failed }), resizeRequest: rr({ state: "ACCEPTED" }) }),
    );
    expect(plan.cancel?.metadata.name).toBe("pr-job-a-prov-1-0f1e2d3c4b");
    expect(reasons(plan)).toEqual(["ResizeRequestCancelled"]);
    expect(plan.status).toBeUndefined();
    const settled = decideProvisioning(
      snapshot({ request: pr({ conditions: failed }), resizeRequest: rr({ state: "CANCELLED" }) }),
    );
    // Nothing to write or cancel: only its deletion waits, the retention after it was cancelled (at 0).
    expect(settled).toEqual({ events: [], requeueAfterMs: HOUR - 60_000 });
  });
});
