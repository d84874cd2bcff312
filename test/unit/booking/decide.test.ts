// The booking decision, table by table: approval against maxSize, running requests' releases and other
// approved bookings, the earliest window named when declined, FIFO among pending bookings, cancel,
// a group missing or not known yet, and a decided status deciding nothing again.
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import { bookingEvents } from "../../../src/booking/events.js";
import { decideBookings, type BookingPlan, type BookingSnapshot } from "../../../src/booking/decide.js";
import { booking, group, GROUP, iso, MIN, NS, request, T0 } from "./builders.js";

const snapshot = (o: Partial<BookingSnapshot>): BookingSnapshot => ({
  namespace: NS,
  groupName: GROUP,
  group: group({ maxSize: 4, targetSize: 2 }),
  requests: [],
  bookings: [],
  now: T0,
  ...o,
});

const statusOf = (plan: BookingPlan, name: string) =>
  plan.changes.find((c) => c.booking.metadata.name === name)?.status;
const reasonsOf = (plan: BookingPlan, name: string) =>
  plan.changes.find((c) => c.booking.metadata.name === name)?.events.map((e) => e.definition.reason);

/** The integration test's group: maxSize 4, a running request of 2 released 10 minutes from now. */
const running = request("running", 2, { kind: "running", runUntil: T0 + 10 * MIN });

test("a booking of 3 that overlaps the running request is declined, naming the window after its release", () => {
  const plan = decideBookings(
    snapshot({ requests: [running], bookings: [booking("three", 3, { start: T0 + MIN, length: 5 * MIN })] }),
  );
  const status = statusOf(plan, "three");
  expect(status?.procurementStatus).toBe("DECLINED");
  expect(status?.suggestedTimeWindow).toEqual({ startTime: iso(T0 + 10 * MIN), endTime: iso(T0 + 15 * MIN) });
  expect(status?.message).toContain("holds up to 2 of maxSize 4");
  expect(status?.message).toContain(
    "The earliest window of the same length that fits is 2030-01-01T00:10:00Z to 2030-01-01T00:15:00Z.",
  );
  expect(status?.conditions?.[0]).toMatchObject({
    type: "Approved",
    status: "False",
    reason: "InsufficientCapacity",
  });
  expect(status?.endTime).toBe(iso(T0 + 6 * MIN));
  expect(reasonsOf(plan, "three")).toEqual([bookingEvents.BookingDeclined.reason]);
});

test("pending bookings are decided in FIFO order, each approval holding capacity for the next", () => {
  const bookings = [
    booking("two", 2, { start: T0 + MIN, length: 20 * MIN, created: T0 - 3 * MIN }),
    // Overlaps "two" only after the running request's release: 2 + 1 of 4.
    booking("after", 1, { start: T0 + 12 * MIN, length: 5 * MIN, created: T0 - 2 * MIN }),
    // Overlaps "two" while the request still runs: 2 + 2 + 1 > 4.
    booking("during", 1, { start: T0 + 5 * MIN, length: 2 * MIN, created: T0 - MIN }),
  ];
  const plan = decideBookings(snapshot({ requests: [running], bookings: [...bookings].reverse() }));
  expect(plan.changes.map((c) => [c.booking.metadata.name, c.status.procurementStatus])).toEqual([
    ["two", "APPROVED"],
    ["after", "APPROVED"],
    ["during", "DECLINED"],
  ]);
  expect(statusOf(plan, "two")?.conditions?.[0]).toMatchObject({ status: "True", reason: "Approved" });
  // "during" fits once the request's instances go, at minute 10.
  expect(statusOf(plan, "during")?.suggestedTimeWindow?.startTime).toBe(iso(T0 + 10 * MIN));
  expect(reasonsOf(plan, "two")).toEqual(["Approved"]);
});

test("approved bookings already there hold their windows; a cancelled one does not", () => {
  const held = booking("held", 2, { start: T0 + 30 * MIN, length: 30 * MIN, status: "APPROVED" });
  const next = booking("next", 2, { start: T0 + 40 * MIN, length: 5 * MIN, created: T0 + MIN });
  // 2 replicas (no request holds them: the target's own) + 2 held + 2 = 6 > 4.
  expect(statusOf(decideBookings(snapshot({ bookings: [held, next] })), "next")?.procurementStatus).toBe(
    "DECLINED",
  );
  const plan = decideBookings(
    snapshot({ bookings: [{ ...held, spec: { ...held.spec, cancel: true } }, next] }),
  );
  expect(plan.changes.map((c) => [c.booking.metadata.name, c.status.procurementStatus])).toEqual([
    ["held", "CANCELLED"],
    ["next", "APPROVED"],
  ]);
  expect(reasonsOf(plan, "held")).toEqual([bookingEvents.BookingCancelled.reason]);
  expect(statusOf(plan, "held")?.conditions?.find((c) => c.type === "Cancelled")?.status).toBe("True");
});

test.each([
  ["a request without a run duration holds for ever", [request("forever", 3, { kind: "running" })], 2],
  [
    "an attempt without a run duration holds for ever",
    [request("trying", 3, { kind: "attempt", deadline: T0 + 5 * MIN })],
    2,
  ],
])("%s: no window fits within 90 days", (_, requests, count) => {
  const plan = decideBookings(
    snapshot({
      group: group({ maxSize: 4, targetSize: 3 }),
      requests,
      bookings: [booking("b", count, { start: T0 + MIN, length: MIN })],
    }),
  );
  expect(statusOf(plan, "b")?.procurementStatus).toBe("DECLINED");
  expect(statusOf(plan, "b")?.message).toContain(
    "No window of the same length (1m) fits within 90 days after",
  );
  expect(statusOf(plan, "b")?.suggestedTimeWindow).toBeUndefined();
});

test("an attempt with a run duration holds until its deadline plus the run; a queued request holds nothing", () => {
  const requests = [
    request("trying", 2, { kind: "attempt", deadline: T0 + 5 * MIN, runMinutes: 10 }),
    request("waiting", 4, { kind: "queued" }),
  ];
  const plan = decideBookings(
    snapshot({
      group: group({ maxSize: 4, targetSize: 2 }),
      requests,
      bookings: [booking("b", 4, { start: T0 + MIN, length: MIN })],
    }),
  );
  expect(statusOf(plan, "b")?.suggestedTimeWindow?.startTime).toBe(iso(T0 + 15 * MIN));
});

test("the release floor at minSize keeps instances held", () => {
  const plan = decideBookings(
    snapshot({
      group: group({ maxSize: 4, minSize: 2, targetSize: 2 }),
      requests: [running],
      bookings: [booking("b", 3, { start: T0 + 20 * MIN, length: MIN })],
    }),
  );
  expect(statusOf(plan, "b")?.procurementStatus).toBe("DECLINED");
  expect(statusOf(plan, "b")?.message).toContain("No window");
});

test.each([
  ["a count over maxSize", booking("b", 5, { start: T0 + MIN, length: MIN }), "ExceedsMaxSize", undefined],
  [
    "a window that has started (the earliest fit is searched from now)",
    booking("b", 1, { start: T0 - MIN, length: 5 * MIN, endTime: true }),
    "WindowStarted",
    iso(T0),
  ],
])("%s is declined", (_, b, reason, suggested) => {
  const status = statusOf(decideBookings(snapshot({ bookings: [b] })), "b");
  expect(status?.procurementStatus).toBe("DECLINED");
  expect(status?.conditions?.[0]?.reason).toBe(reason);
  expect(status?.suggestedTimeWindow?.startTime).toBe(suggested);
});

test("a group without maxSize approves every booking", () => {
  const plan = decideBookings(
    snapshot({
      group: group({ targetSize: 50 }),
      bookings: [booking("b", 100, { start: T0 + MIN, length: MIN })],
    }),
  );
  expect(statusOf(plan, "b")?.procurementStatus).toBe("APPROVED");
  expect(statusOf(plan, "b")?.message).toContain("has no maxSize");
});

test.each([
  ["missing", undefined, "GroupNotFound"],
  ["not sized yet", group({ maxSize: 4 }), "GroupNotReady"],
])("a group %s keeps the booking pending with an Unknown condition and one event", (_, g, reason) => {
  const b = booking("b", 1, { start: T0 + MIN, length: MIN });
  const plan = decideBookings(snapshot({ group: g, bookings: [b] }));
  const status = statusOf(plan, "b");
  expect(status?.procurementStatus).toBe("PENDING_APPROVAL");
  expect(status?.conditions?.[0]).toMatchObject({ type: "Approved", status: "Unknown", reason });
  expect(reasonsOf(plan, "b")).toEqual([bookingEvents.BookingWaitingForGroup.reason]);
  // Written: the next pass decides nothing new.
  const again = decideBookings(
    snapshot({ group: g, bookings: [{ ...b, ...(status && { status }) }], now: T0 + 1000 }),
  );
  expect(again.changes).toEqual([]);
});

test("decided and final bookings are left as they are; a cancel on a declined one changes nothing", () => {
  const bookings: FutureReservation[] = [
    // Its delivery is not due yet (the lead time is a minute without attempts to go by).
    booking("approved", 1, { start: T0 + 10 * MIN, length: MIN, status: "APPROVED" }),
    booking("declined", 1, { start: T0 + MIN, length: MIN, status: "DECLINED", cancel: true }),
    booking("cancelled", 1, { start: T0 + MIN, length: MIN, status: "CANCELLED", cancel: true }),
  ];
  expect(decideBookings(snapshot({ bookings })).changes).toEqual([]);
});

test("a pending booking cancelled before its decision becomes CANCELLED, never approved", () => {
  const plan = decideBookings(
    snapshot({ bookings: [booking("b", 1, { start: T0 + MIN, length: MIN, cancel: true })] }),
  );
  expect(plan.changes.map((c) => c.status.procurementStatus)).toEqual(["CANCELLED"]);
});
