// A ProvisioningRequest naming a FutureReservation (parameter futureReservation) is served from the
// booking's delivery request fr-<booking>, never by a ResizeRequest of its own: every state of the
// booking against every state of the request, as tables of (observed) → (conditions, details, events).
import type { FutureReservation, ProcurementStatusName } from "../../../src/api/future-reservation.js";
import { API_VERSION } from "../../../src/api/names.js";
import type { PrCondition } from "../../../src/api/provisioning-request.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { cleanupDecision } from "../../../src/controllers/provisioning/cleanup.js";
import { decideProvisioning, type ProvisioningPlan } from "../../../src/controllers/provisioning/decide.js";
import { windowOf } from "../../../src/controllers/provisioning/booked.js";
import { T0, at, cond, gpuPod, group, pr, snapshot, template } from "./fixtures.js";

const START = at(3600);
const END = at(7200);

function fr(
  status: ProcurementStatusName | undefined,
  o: { count?: number; group?: string; ended?: string; message?: string } = {},
): FutureReservation {
  return {
    apiVersion: API_VERSION,
    kind: "FutureReservation",
    metadata: { name: "night", namespace: "team-a", uid: "uid-night", generation: 1 },
    spec: {
      instanceGroupManager: o.group ?? "gpu",
      totalCount: o.count ?? 4,
      timeWindow: { startTime: START, duration: { seconds: "3600" } },
      cancel: false,
    },
    ...(status && {
      status: {
        procurementStatus: status,
        startTime: START,
        endTime: END,
        ...(o.message && { message: o.message }),
        ...(o.ended && {
          conditions: [
            {
              type: "Ended",
              status: "True",
              reason: o.ended,
              message: "",
              lastTransitionTime: END,
              observedGeneration: 1,
            },
          ],
        }),
      },
    }),
  };
}

const condition = (plan: ProvisioningPlan, type: string) =>
  plan.status?.conditions.find((c) => c.type === type);
const reasons = (plan: ProvisioningPlan) => plan.events.map((e) => e.definition.reason);
const booked = (
  o: {
    parameters?: Record<string, string>;
    conditions?: PrCondition[];
    details?: Record<string, string>;
  } = {},
) =>
  pr({
    parameters: { futureReservation: "night", ...o.parameters },
    ...(o.conditions && { conditions: o.conditions }),
    ...(o.details && { details: o.details }),
  });
const WAITING = [
  cond("Accepted", "True", "SuccessfullyQueued"),
  cond("Provisioned", "False", "WaitingForFutureReservationWindow"),
];
const PROVISIONED = [
  cond("Accepted", "True", "SuccessfullyQueued"),
  cond("Provisioned", "True", "Provisioned"),
];

/** Nothing of a ResizeRequest of its own: none created, none cancelled. */
function expectNoResizeRequest(plan: ProvisioningPlan): void {
  expect(plan.create).toBeUndefined();
  expect(plan.cancel).toBeUndefined();
}

describe("a new request naming a booking", () => {
  test.each<[ProcurementStatusName | undefined, string]>([
    [undefined, "(not approved yet), whose window starts at " + START],
    ["PENDING_APPROVAL", "(not approved yet), whose window starts at " + START],
    [
      "APPROVED",
      `(APPROVED), whose window starts at ${START}: its delivery ResizeRequest team-a/fr-night is created the lead time before then.`,
    ],
    [
      "PROVISIONING",
      `whose window starts at ${START}: its delivery ResizeRequest team-a/fr-night is provisioning its 4 instances.`,
    ],
  ])("booking %s: Accepted=True, Provisioned=False naming the booking and its start", (status, waiting) => {
    const plan = decideProvisioning(snapshot({ request: booked(), futureReservation: fr(status) }));
    expectNoResizeRequest(plan);
    expect(condition(plan, "Accepted")).toMatchObject({
      status: "True",
      reason: "SuccessfullyQueued",
      message: `Served by FutureReservation team-a/night: ResizeRequest team-a/fr-night delivers its 4 instances of InstanceGroupManager team-a/gpu for the window ${START} to ${END}; this request's 4 pods need 4. No ResizeRequest of its own.`,
    });
    expect(condition(plan, "Provisioned")).toMatchObject({
      status: "False",
      reason: "WaitingForFutureReservationWindow",
      message: expect.stringContaining(`Waiting for FutureReservation team-a/night`) as string,
    });
    expect(condition(plan, "Provisioned")?.message).toContain(waiting);
    expect(plan.status?.provisioningClassDetails).toEqual({
      ResizeRequestName: "fr-night",
      InstanceGroupManager: "team-a/gpu",
      SelectedZone: "local-a",
      PodTemplateName: "ppt-job-a-prov-1-main",
      FutureReservation: "night",
    });
    expect(reasons(plan)).toEqual(["Accepted"]);
  });

  test("booking FULFILLED: accepted and provisioned in one pass", () => {
    const plan = decideProvisioning(snapshot({ request: booked(), futureReservation: fr("FULFILLED") }));
    expectNoResizeRequest(plan);
    expect(condition(plan, "Accepted")).toMatchObject({ status: "True", reason: "SuccessfullyQueued" });
    expect(condition(plan, "Provisioned")).toMatchObject({
      status: "True",
      reason: "Provisioned",
      message: `The 4 instances of FutureReservation team-a/night are ready (ResizeRequest team-a/fr-night, InstanceGroupManager team-a/gpu) until its window ends at ${END}.`,
    });
    expect(plan.status?.provisioningClassDetails?.ResizeRequestName).toBe("fr-night");
    expect(reasons(plan)).toEqual(["Accepted", "Provisioned"]);
  });

  test("a smaller demand fits a larger booking (2 pods of 8 GPUs in a booking of 4)", () => {
    const plan = decideProvisioning(
      snapshot({
        request: pr({
          parameters: { futureReservation: "night" },
          podSets: [{ name: "ppt-job-a-prov-1-main", count: 2 }],
        }),
        futureReservation: fr("APPROVED"),
      }),
    );
    expect(condition(plan, "Accepted")?.message).toContain("this request's 2 pods need 2.");
  });

  test("the group named too, and it is the booking's: served", () => {
    const plan = decideProvisioning(
      snapshot({
        request: booked({ parameters: { instanceGroupManager: "gpu" } }),
        futureReservation: fr("APPROVED"),
      }),
    );
    expect(condition(plan, "Accepted")).toMatchObject({ status: "True" });
  });

  test("an unknown key is ignored with a Warning; with the group's strictParameters it fails the request", () => {
    const lenient = decideProvisioning(
      snapshot({ request: booked({ parameters: { colour: "blue" } }), futureReservation: fr("APPROVED") }),
    );
    expect(condition(lenient, "Accepted")?.message).toContain('Ignored unknown parameter "colour"');
    expect(reasons(lenient)).toEqual(["Accepted", "UnknownParameters"]);
    const strict = decideProvisioning(
      snapshot({
        request: booked({ parameters: { colour: "blue" } }),
        futureReservation: fr("APPROVED"),
        groups: [
          group("gpu", "team-a", {
            provisioningRequests: {
              namespaces: "Same",
              bookingWindow: "10m",
              defaultMaxRunDuration: "168h",
              strictParameters: true,
            },
          }),
        ],
      }),
    );
    expect(condition(strict, "Failed")).toMatchObject({ status: "True", reason: "InvalidParameters" });
  });

  test("the group's consent to other namespaces is not asked: the booking is of the request's own namespace", () => {
    const plan = decideProvisioning(
      snapshot({
        request: booked(),
        futureReservation: fr("APPROVED"),
        groups: [
          group("gpu", "team-a", {
            provisioningRequests: {
              namespaces: "None",
              bookingWindow: "10m",
              defaultMaxRunDuration: "168h",
              strictParameters: false,
            },
          }),
        ],
      }),
    );
    expect(condition(plan, "Accepted")).toMatchObject({ status: "True" });
  });

  test.each<[string, Partial<Parameters<typeof snapshot>[0]>, string, string]>([
    [
      "the booking does not exist",
      { futureReservation: undefined, futureReservationsServed: true },
      "FutureReservationNotFound",
      "FutureReservation team-a/night (parameter futureReservation) does not exist. A request is served only from a booking of its own namespace.",
    ],
    [
      "bookings are not served by the operator",
      { futureReservation: undefined, futureReservationsServed: false },
      "FutureReservationNotFound",
      "this operator does not serve FutureReservations",
    ],
    [
      "the booking is DECLINED",
      { futureReservation: fr("DECLINED", { message: "Declined: group gpu holds up to 8" }) },
      "FutureReservationNotUsable",
      "FutureReservation team-a/night is DECLINED: Declined: group gpu holds up to 8; it cannot serve this request.",
    ],
    [
      "the booking is CANCELLED",
      { futureReservation: fr("CANCELLED") },
      "FutureReservationNotUsable",
      "is CANCELLED",
    ],
    ["the booking FAILED", { futureReservation: fr("FAILED") }, "FutureReservationNotUsable", "is FAILED"],
    [
      "the booking's window is over",
      { futureReservation: fr("FULFILLED", { ended: "WindowEnded" }) },
      "FutureReservationNotUsable",
      `The window of FutureReservation team-a/night ended at ${END}`,
    ],
    [
      "the booking is of another group than instanceGroupManager names",
      { request: booked({ parameters: { instanceGroupManager: "tpu" } }), futureReservation: fr("APPROVED") },
      "FutureReservationGroupMismatch",
      "FutureReservation team-a/night books InstanceGroupManager team-a/gpu, not team-a/tpu (parameter instanceGroupManager)",
    ],
    [
      "instanceGroupManager names another namespace's group of the same name",
      {
        request: booked({ parameters: { instanceGroupManager: "team-b/gpu" } }),
        futureReservation: fr("APPROVED"),
      },
      "FutureReservationGroupMismatch",
      "not team-b/gpu",
    ],
    [
      "the pods need more instances than the booking's count",
      { futureReservation: fr("FULFILLED", { count: 3 }) },
      "FutureReservationTooSmall",
      "The request's 4 pods need 4 instances of InstanceGroupManager team-a/gpu; FutureReservation team-a/night books 3: 1 over.",
    ],
    [
      "the pods fit no instance of the booking's group",
      {
        futureReservation: fr("APPROVED"),
        templates: new Map([["ppt-job-a-prov-1-main", template("ppt-job-a-prov-1-main", gpuPod(16))]]),
      },
      "ProvisioningRequestNotSchedulableInNodepool",
      "InstanceGroupManager team-a/gpu",
    ],
    [
      "the booking's group is gone",
      { futureReservation: fr("APPROVED"), groups: [] },
      "GroupNotFound",
      "InstanceGroupManager team-a/gpu, booked by FutureReservation team-a/night, does not exist.",
    ],
    [
      "the booking's group declares no instance shape",
      { futureReservation: fr("APPROVED"), groups: [group("gpu", "team-a", { instanceShape: undefined })] },
      "NoInstanceShape",
      "declares no spec.instanceShape",
    ],
    [
      "a pod set's template is missing",
      { futureReservation: fr("APPROVED"), templates: new Map() },
      "MissingPodTemplates",
      "PodTemplate team-a/ppt-job-a-prov-1-main of a pod set does not exist.",
    ],
  ])("%s: Failed (%s), an Event, no ResizeRequest", (_, o, reason, message) => {
    const plan = decideProvisioning(snapshot({ request: booked(), ...o }));
    expectNoResizeRequest(plan);
    expect(condition(plan, "Failed")).toMatchObject({ status: "True", reason });
    expect(condition(plan, "Failed")?.message).toContain(message);
    expect(condition(plan, "Accepted")).toMatchObject({ status: "False", reason });
    expect(reasons(plan)).toEqual(["Failed"]);
    expect(plan.status?.provisioningClassDetails).toBeUndefined();
  });
});

describe("an accepted request waiting for its booking", () => {
  const details = {
    ResizeRequestName: "fr-night",
    InstanceGroupManager: "team-a/gpu",
    FutureReservation: "night",
  };

  test("the booking moves from APPROVED to PROVISIONING: the message says so, no Event", () => {
    const plan = decideProvisioning(
      snapshot({ request: booked({ conditions: WAITING, details }), futureReservation: fr("PROVISIONING") }),
    );
    expect(condition(plan, "Provisioned")).toMatchObject({
      status: "False",
      reason: "WaitingForFutureReservationWindow",
      message: expect.stringContaining("is provisioning its 4 instances") as string,
    });
    expect(reasons(plan)).toEqual([]);
    expectNoResizeRequest(plan);
  });

  test("the booking as before: nothing is written", () => {
    const request = booked({ conditions: WAITING, details });
    const first = decideProvisioning(snapshot({ request, futureReservation: fr("PROVISIONING") }));
    const again = decideProvisioning(
      snapshot({
        request: {
          ...request,
          status: { conditions: first.status?.conditions ?? [], provisioningClassDetails: details },
        },
        futureReservation: fr("PROVISIONING"),
      }),
    );
    expect(again.status).toBeUndefined();
    expect(again.requeueAfterMs).toBeUndefined();
  });

  test("the booking FULFILLED: Provisioned=True and its Event", () => {
    const plan = decideProvisioning(
      snapshot({ request: booked({ conditions: WAITING, details }), futureReservation: fr("FULFILLED") }),
    );
    expect(condition(plan, "Provisioned")).toMatchObject({ status: "True", reason: "Provisioned" });
    expect(reasons(plan)).toEqual(["Provisioned"]);
    expect(plan.status?.provisioningClassDetails).toEqual(details);
  });

  test.each<[string, FutureReservation | undefined, string, string]>([
    ["deleted", undefined, "FutureReservationNotFound", "was deleted before it delivered"],
    ["cancelled", fr("CANCELLED"), "FutureReservationNotUsable", "is CANCELLED"],
    ["failed (its delivery did not succeed)", fr("FAILED"), "FutureReservationNotUsable", "is FAILED"],
  ])("the booking %s: Failed, and the delivery request is left alone", (_, b, reason, message) => {
    const plan = decideProvisioning(
      snapshot({ request: booked({ conditions: WAITING, details }), futureReservation: b }),
    );
    expect(condition(plan, "Failed")).toMatchObject({ status: "True", reason });
    expect(condition(plan, "Failed")?.message).toContain(message);
    expectNoResizeRequest(plan);
  });

  test("ValidUntilSeconds elapses before the booking is FULFILLED: WaitTimeExceeded, nothing cancelled", () => {
    const request = booked({ parameters: { ValidUntilSeconds: "30" }, conditions: WAITING, details });
    const created = { ...request, metadata: { ...request.metadata, creationTimestamp: at(0) } };
    const before = decideProvisioning(
      snapshot({ request: created, futureReservation: fr("APPROVED"), nowMs: T0 + 10_000 }),
    );
    expect(before.requeueAfterMs).toBe(20_000);
    const plan = decideProvisioning(
      snapshot({ request: created, futureReservation: fr("APPROVED"), nowMs: T0 + 30_000 }),
    );
    expect(condition(plan, "Failed")).toMatchObject({ status: "True", reason: "WaitTimeExceeded" });
    expectNoResizeRequest(plan);
  });
});

describe("a provisioned request served by a booking", () => {
  test.each([
    ["WindowEnded", "the window's end"],
    ["ReleasedOnCancel", "an early release on cancel"],
  ])("the booking ends (%s, %s): CapacityRevoked=True and its Event", (ended) => {
    const plan = decideProvisioning(
      snapshot({
        request: booked({ conditions: PROVISIONED }),
        futureReservation: fr("FULFILLED", { ended }),
      }),
    );
    expect(condition(plan, "CapacityRevoked")).toMatchObject({
      status: "True",
      reason: "CapacityRevoked",
      message: `FutureReservation team-a/night ended (${ended}): the 4 instances of ResizeRequest team-a/fr-night were released.`,
    });
    expect(reasons(plan)).toEqual(["CapacityRevoked"]);
    expectNoResizeRequest(plan);
  });

  test("revoked once: a later pass writes nothing", () => {
    const plan = decideProvisioning(
      snapshot({
        request: booked({ conditions: [...PROVISIONED, cond("CapacityRevoked", "True", "CapacityRevoked")] }),
        futureReservation: fr("FULFILLED", { ended: "WindowEnded" }),
      }),
    );
    expect(plan.status).toBeUndefined();
    expect(plan.events).toEqual([]);
  });

  test("no pod consumed it long after: no BookingExpired (the booking holds its instances for its window anyway)", () => {
    const plan = decideProvisioning(
      snapshot({
        request: booked({ conditions: PROVISIONED }),
        futureReservation: fr("FULFILLED"),
        nowMs: T0 + 24 * 3_600_000,
        consumed: false,
      }),
    );
    expect(plan.status).toBeUndefined();
    expect(plan.requeueAfterMs).toBeUndefined();
  });

  test("the booking deleted after it delivered: its instances stay, nothing is written", () => {
    const plan = decideProvisioning(
      snapshot({ request: booked({ conditions: PROVISIONED }), futureReservation: undefined }),
    );
    expect(plan.status).toBeUndefined();
    expectNoResizeRequest(plan);
  });
});

test("a failed request's cleanup never deletes the booking's delivery request", () => {
  const delivery: ResizeRequest = {
    apiVersion: API_VERSION,
    kind: "ResizeRequest",
    metadata: {
      name: "fr-night",
      namespace: "team-a",
      uid: "uid-fr-night",
      labels: { "compute.resize-operator.dev/future-reservation": "night" },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: "FutureReservation",
          name: "night",
          uid: "uid-night",
          controller: true,
        },
      ],
    },
    spec: { instanceGroupManager: "gpu", resizeBy: 4, cancel: false },
    status: { state: "FAILED" },
  };
  const failed = booked({ conditions: [cond("Failed", "True", "FutureReservationNotUsable")] });
  expect(cleanupDecision(delivery, failed, [group()], 0, T0 + 3_600_000)).toEqual({
    action: "keep",
    why: "not made by the provisioner",
  });
  expect(cleanupDecision(delivery, undefined, [group()], 0, T0 + 3_600_000).action).toBe("keep");
});

test.each<[string, FutureReservation, { start: string; end: string }]>([
  ["from its status", fr("APPROVED"), { start: START, end: END }],
  ["before its status is written, from its duration", fr(undefined), { start: START, end: END }],
  [
    "before its status is written, from its endTime",
    {
      ...fr(undefined),
      spec: { ...fr(undefined).spec, timeWindow: { startTime: START, endTime: at(5400) } },
    },
    { start: START, end: at(5400) },
  ],
])("the booking's window %s", (_, b, window) => {
  expect(windowOf(b)).toEqual(window);
});
