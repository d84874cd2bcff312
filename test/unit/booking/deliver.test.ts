// Delivery of approved bookings (src/booking/deliver.ts, docs/booking.md "Delivery"): the delivery
// request created at the window's start minus the lead time, the booking following it (PROVISIONING,
// FULFILLED, FAILED), the end of the window, and cancels — table by table, through decideBookings.
import type { FutureReservation, ProcurementStatusName } from "../../../src/api/future-reservation.js";
import { FUTURE_RESERVATION_LABEL, WINDOW_END_ANNOTATION } from "../../../src/api/future-reservation.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decideBookings, type BookingPlan, type BookingSnapshot } from "../../../src/booking/decide.js";
import { DEFAULT_LEAD_MS, deliveryName, leadTimeMs, MIN_LEAD_MS } from "../../../src/booking/deliver.js";
import { booking, group, GROUP, iso, MIN, NS, request, T0 } from "./builders.js";

const snapshot = (o: Partial<BookingSnapshot>): BookingSnapshot => ({
  namespace: NS,
  groupName: GROUP,
  group: group({ maxSize: 4, targetSize: 0 }),
  requests: [],
  bookings: [],
  now: T0,
  ...o,
});

/** A booking of 2 from minute 10 to minute 40, in `status`. */
const b = (status: ProcurementStatusName, cancel = false): FutureReservation =>
  booking("train", 2, { start: T0 + 10 * MIN, length: 30 * MIN, status, cancel });

/** Its delivery request, in `status`. */
function delivery(status: ResizeRequestStatus): ResizeRequest {
  const r = request("fr-train", 2, { kind: "queued" });
  return {
    ...r,
    metadata: {
      ...r.metadata,
      uid: "uid-fr-train",
      labels: { [FUTURE_RESERVATION_LABEL]: "train" },
      annotations: { [WINDOW_END_ANNOTATION]: iso(T0 + 40 * MIN) },
    },
    status,
  };
}

const NEW: ResizeRequestStatus = { state: "ACCEPTED", reason: "Queued" };
const QUEUED: ResizeRequestStatus = {
  state: "ACCEPTED",
  reason: "Backoff",
  attempts: 1,
  conditions: [
    {
      type: "Queued",
      status: "True",
      reason: "Backoff",
      message: "The next attempt starts at later.",
      lastTransitionTime: iso(T0),
    },
  ],
};
const ATTEMPTING: ResizeRequestStatus = {
  state: "ACCEPTED",
  provisioning: {
    attempt: 1,
    phase: "Applied",
    baseReplicas: 0,
    targetReplicas: 2,
    startedTime: iso(T0),
    deadline: iso(T0 + 10 * MIN),
  },
};
const SUCCEEDED: ResizeRequestStatus = { state: "SUCCEEDED", runUntil: iso(T0 + 40 * MIN) };
const FAILED: ResizeRequestStatus = {
  state: "FAILED",
  conditions: [
    {
      type: "Failed",
      status: "True",
      reason: "QueueDeadlineExceeded",
      message: "waited too long",
      lastTransitionTime: iso(T0),
    },
  ],
};

const one = (plan: BookingPlan) => ({
  status: plan.changes[0]?.status.procurementStatus,
  reason: plan.changes[0]?.events.map((e) => e.definition.reason),
  creates: plan.creates.map((r) => r.metadata.name),
  cancels: plan.cancels.map((r) => r.metadata.name),
});

const LEAD = DEFAULT_LEAD_MS;

test.each<[string, ProcurementStatusName, ResizeRequestStatus | undefined, number, ReturnType<typeof one>]>([
  [
    "approved, before the lead time: nothing yet",
    "APPROVED",
    undefined,
    T0 + 10 * MIN - LEAD - 1,
    { status: undefined, reason: undefined, creates: [], cancels: [] },
  ],
  [
    "approved, at the lead time: the request is created, PROVISIONING",
    "APPROVED",
    undefined,
    T0 + 10 * MIN - LEAD,
    { status: "PROVISIONING", reason: ["Provisioning"], creates: ["fr-train"], cancels: [] },
  ],
  [
    "provisioning, the request not in the cache yet: created again (AlreadyExists is fine), no news",
    "PROVISIONING",
    undefined,
    T0 + 9 * MIN,
    { status: "PROVISIONING", reason: ["Provisioning"], creates: ["fr-train"], cancels: [] },
  ],
  [
    "the request succeeded: FULFILLED",
    "PROVISIONING",
    SUCCEEDED,
    T0 + 9 * MIN,
    { status: "FULFILLED", reason: ["Fulfilled"], creates: [], cancels: [] },
  ],
  [
    "the request failed: FAILED",
    "PROVISIONING",
    FAILED,
    T0 + 9 * MIN,
    { status: "FAILED", reason: ["DeliveryFailed"], creates: [], cancels: [] },
  ],
  [
    "the window started with the request still backing off: FAILED, the request cancelled",
    "PROVISIONING",
    QUEUED,
    T0 + 10 * MIN,
    { status: "FAILED", reason: ["DeliveryFailed"], creates: [], cancels: ["fr-train"] },
  ],
  [
    "the window started before its first attempt (created late): it gets its attempt",
    "PROVISIONING",
    NEW,
    T0 + 10 * MIN,
    { status: "PROVISIONING", reason: ["Provisioning"], creates: [], cancels: [] },
  ],
  [
    "the window started with an attempt under way: it may still deliver",
    "PROVISIONING",
    ATTEMPTING,
    T0 + 11 * MIN,
    { status: "PROVISIONING", reason: ["Provisioning"], creates: [], cancels: [] },
  ],
  [
    "fulfilled, the window ended: Ended",
    "FULFILLED",
    SUCCEEDED,
    T0 + 40 * MIN,
    { status: "FULFILLED", reason: ["WindowEnded"], creates: [], cancels: [] },
  ],
  [
    "approved, the window ended undelivered (the operator was down): FAILED",
    "APPROVED",
    undefined,
    T0 + 40 * MIN,
    { status: "FAILED", reason: ["DeliveryFailed"], creates: [], cancels: [] },
  ],
])("%s", (_, status, requestStatus, now, expected) => {
  const requests = requestStatus ? [delivery(requestStatus)] : [];
  const plan = decideBookings(snapshot({ bookings: [b(status)], requests, now }));
  // A PROVISIONING booking already says so: the status write is the same (no change), so no event.
  if (status === "PROVISIONING" && expected.status === "PROVISIONING") {
    expect(plan.creates.map((r) => r.metadata.name)).toEqual(expected.creates);
    return;
  }
  expect(one(plan)).toEqual(expected);
});

test("the delivery request: the booking's count, run to the window's end, labelled, owned by the booking", () => {
  const now = T0 + 10 * MIN - LEAD;
  const plan = decideBookings(snapshot({ bookings: [b("APPROVED")], now }));
  const rr = plan.creates[0];
  expect(rr?.metadata).toMatchObject({
    name: "fr-train",
    namespace: NS,
    labels: { [FUTURE_RESERVATION_LABEL]: "train" },
    annotations: { [WINDOW_END_ANNOTATION]: iso(T0 + 40 * MIN) },
    ownerReferences: [{ kind: "FutureReservation", name: "train", uid: "uid-train", controller: true }],
  });
  expect(rr?.spec).toMatchObject({
    instanceGroupManager: GROUP,
    resizeBy: 2,
    requestedRunDuration: { seconds: String((T0 + 40 * MIN - now) / 1000) },
  });
  expect(plan.changes[0]?.status.conditions?.find((c) => c.type === "Delivered")).toMatchObject({
    status: "Unknown",
    reason: "Provisioning",
  });
});

test("a booking approved in this pass is delivered by the next, which is due at once", () => {
  const pending = booking("train", 2, { start: T0 + 30_000, length: 30 * MIN });
  const plan = decideBookings(snapshot({ bookings: [pending] }));
  expect(one(plan)).toEqual({ status: "APPROVED", reason: ["Approved"], creates: [], cancels: [] });
  expect(plan.requeueAfterMs).toBe(0);
});

test("an approved booking wakes its group at its delivery time", () => {
  const plan = decideBookings(snapshot({ bookings: [b("APPROVED")] }));
  expect(plan.requeueAfterMs).toBe(10 * MIN - LEAD);
});

test.each<[string, ProcurementStatusName, ResizeRequestStatus, string[]]>([
  ["provisioning: its queued delivery is cancelled", "PROVISIONING", QUEUED, ["fr-train"]],
  ["provisioning: its attempt is cancelled (rolled back)", "PROVISIONING", ATTEMPTING, ["fr-train"]],
  // A succeeded request refuses a cancel: its run is brought to an end instead (below).
  ["fulfilled: its succeeded request is not cancelled", "FULFILLED", SUCCEEDED, []],
])("a cancelled booking %s", (_, status, requestStatus, cancels) => {
  const plan = decideBookings(
    snapshot({ bookings: [b(status, true)], requests: [delivery(requestStatus)], now: T0 + 9 * MIN }),
  );
  expect(plan.changes[0]?.status.procurementStatus).toBe("CANCELLED");
  expect(plan.cancels.map((r) => r.metadata.name)).toEqual(cancels);
});

describe("early release of a cancelled booking's delivered instances", () => {
  const NOW = T0 + 15 * MIN; // in the window (minute 10 to 40)
  const released = (at: number) => [{ request: "fr-train", runUntil: iso(at) }];
  const ended = (reason: string, message: string) => ({
    type: "Ended",
    status: "True",
    reason,
    message,
    lastTransitionTime: iso(T0),
    observedGeneration: 0,
  });
  const cancelledBefore = (status: ProcurementStatusName, conditions: unknown[] = []): FutureReservation => {
    const fr = b(status, true);
    return { ...fr, status: { procurementStatus: status, conditions } } as FutureReservation;
  };
  const RELEASED_MESSAGE =
    "Cancelled before the window's end at 2030-01-01T00:40:00Z: ResizeRequest fr-train's 2 instances are released now.";
  const APPLYING: ResizeRequestStatus = {
    ...SUCCEEDED,
    release: { phase: "Applying", baseReplicas: 2, targetReplicas: 0, startedTime: iso(NOW) },
  };
  test.each<[string, FutureReservation, ResizeRequestStatus, number, string[], ReturnType<typeof released>]>([
    [
      "FULFILLED, cancelled: CANCELLED and released in one write, with both Events",
      b("FULFILLED", true),
      SUCCEEDED,
      NOW,
      ["Cancelled", "ReleasedOnCancel"],
      released(NOW),
    ],
    [
      "PROVISIONING, cancelled while its request succeeded (a succeeded request refuses the cancel): released",
      b("PROVISIONING", true),
      SUCCEEDED,
      NOW,
      ["Cancelled", "ReleasedOnCancel"],
      released(NOW),
    ],
    [
      "CANCELLED by an earlier operator that kept the instances: released now",
      cancelledBefore("CANCELLED"),
      SUCCEEDED,
      NOW,
      ["ReleasedOnCancel"],
      released(NOW),
    ],
    [
      "already said released, the request's run not yet brought forward (the write did not land): tried again, no new Event",
      cancelledBefore("CANCELLED", [ended("ReleasedOnCancel", RELEASED_MESSAGE)]),
      SUCCEEDED,
      NOW,
      [],
      released(NOW),
    ],
    [
      "its request's run already ends now: nothing more",
      cancelledBefore("CANCELLED", [ended("ReleasedOnCancel", RELEASED_MESSAGE)]),
      { ...SUCCEEDED, runUntil: iso(NOW) },
      NOW,
      [],
      [],
    ],
    ["its request's release under way: nothing more", cancelledBefore("CANCELLED"), APPLYING, NOW, [], []],
    [
      "cancelled after the window ended (the release is the window's end's): CANCELLED, nothing released early",
      b("FULFILLED", true),
      SUCCEEDED,
      T0 + 41 * MIN,
      ["Cancelled"],
      [],
    ],
    [
      "its request was cancelled (never delivered): nothing to release",
      b("PROVISIONING", true),
      { state: "CANCELLED" },
      NOW,
      ["Cancelled"],
      [],
    ],
  ])("%s", (_, booking, requestStatus, now, events, releases) => {
    const plan = decideBookings(snapshot({ bookings: [booking], requests: [delivery(requestStatus)], now }));
    expect(plan.changes.flatMap((c) => c.events.map((e) => e.definition.reason))).toEqual(events);
    expect(plan.releases.map((r) => ({ request: r.request.metadata.name, runUntil: r.runUntil }))).toEqual(
      releases,
    );
    expect(plan.cancels).toEqual([]);
    if (events.includes("ReleasedOnCancel")) {
      const status = plan.changes[0]?.status;
      expect(status?.procurementStatus).toBe("CANCELLED");
      expect(status?.message).toBe(RELEASED_MESSAGE);
      expect(status?.conditions?.find((c) => c.type === "Ended")).toMatchObject({
        status: "True",
        reason: "ReleasedOnCancel",
      });
    }
  });

  test("a FULFILLED booking not cancelled keeps its instances to the window's end", () => {
    const plan = decideBookings(
      snapshot({ bookings: [b("FULFILLED")], requests: [delivery(SUCCEEDED)], now: NOW }),
    );
    expect(plan.releases).toEqual([]);
    expect(plan.requeueAfterMs).toBe(25 * MIN);
  });
});

test("a failed booking's delivery still active is cancelled, once per pass until it is", () => {
  const plan = decideBookings(snapshot({ bookings: [b("FAILED")], requests: [delivery(QUEUED)] }));
  expect(plan.changes).toEqual([]);
  expect(plan.cancels.map((r) => r.metadata.name)).toEqual(["fr-train"]);
});

test("a request of the same name without the booking's label is not its delivery", () => {
  const foreign = { ...delivery(SUCCEEDED), metadata: { name: "fr-train", namespace: NS } };
  const plan = decideBookings(
    snapshot({ bookings: [b("PROVISIONING")], requests: [foreign], now: T0 + 9 * MIN }),
  );
  expect(plan.changes.map((c) => c.status.procurementStatus)).not.toContain("FULFILLED");
});

describe("lead time and names", () => {
  test("without a successful attempt: the default", () => {
    expect(leadTimeMs([])).toBe(DEFAULT_LEAD_MS);
  });

  test.each([
    [30_000, 60_000],
    [2_000, MIN_LEAD_MS],
  ])("attempts taking %i ms: twice that, at least the minimum", (took, lead) => {
    const done = request("done", 1, { kind: "running" });
    const status = {
      ...done.status,
      provisioningStartedTime: iso(T0 - took),
      succeededTime: iso(T0),
    };
    expect(leadTimeMs([{ ...done, status }])).toBe(lead);
  });

  test("the delivery's name is an RFC 1035 label", () => {
    expect(deliveryName({ metadata: { name: "a".repeat(63) } })).toHaveLength(63);
    expect(deliveryName({ metadata: { name: `${"a".repeat(59)}-bcd` } })).toBe(`fr-${"a".repeat(59)}`);
  });
});
