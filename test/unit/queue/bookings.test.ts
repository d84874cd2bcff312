// Capacity over time (src/queue/bookings.ts), by example: the step function, the peak over a window,
// fits and earliestFit, and the holds read from a group's requests and bookings.
import {
  bookingHolds,
  bookingWindow,
  earliestFit,
  fits,
  heldAt,
  peakHeld,
  requestHolds,
  steps,
  type Hold,
} from "../../../src/queue/bookings.js";
import { booking, group, MIN, request, T0 } from "../booking/builders.js";

const hold = (from: number, until: number, count: number): Hold => ({ from, until, count, holder: "h" });

test("steps: levels in time order, equal levels merged, for ever holds never end", () => {
  expect(steps([hold(0, 10, 2), hold(10, 20, 2), hold(5, Infinity, 1)])).toEqual([
    { at: -Infinity, level: 0 },
    { at: 0, level: 2 },
    { at: 5, level: 3 },
    { at: 20, level: 1 },
  ]);
  expect(steps([hold(3, 3, 5), hold(1, 2, 0)])).toEqual([{ at: -Infinity, level: 0 }]);
});

test("heldAt and peakHeld: half-open windows", () => {
  const holds = [hold(0, 10, 2), hold(10, 20, 3)];
  expect([
    heldAt(holds, -1),
    heldAt(holds, 0),
    heldAt(holds, 9),
    heldAt(holds, 10),
    heldAt(holds, 20),
  ]).toEqual([0, 2, 2, 3, 0]);
  expect(peakHeld(holds, { start: 0, end: 10 })).toBe(2);
  expect(peakHeld(holds, { start: 9, end: 11 })).toBe(3);
  expect(peakHeld(holds, { start: 20, end: 30 })).toBe(0);
  expect(peakHeld(holds, { start: 5, end: 5 })).toBe(0);
});

test("fits: under maxSize for the whole window; always without maxSize", () => {
  const schedule = { maxSize: 4, holds: [hold(0, 10, 2), hold(5, 8, 1)] };
  expect(fits(schedule, { start: 0, end: 5 }, 2)).toBe(true);
  expect(fits(schedule, { start: 0, end: 6 }, 2)).toBe(false);
  expect(fits({ ...schedule, maxSize: undefined }, { start: 0, end: 6 }, 100)).toBe(true);
});

test("earliestFit: at `after` when it fits, else when enough goes, within the horizon", () => {
  const schedule = { maxSize: 4, holds: [hold(0, 10, 3), hold(12, 14, 2)] };
  expect(earliestFit(schedule, 2, 1, 0)).toEqual({ start: 0, end: 2 });
  expect(earliestFit(schedule, 2, 2, 0)).toEqual({ start: 10, end: 12 });
  // 3 more for 3: [10,13) meets the hold at 12; the next drop is at 14.
  expect(earliestFit(schedule, 3, 3, 0)).toEqual({ start: 14, end: 17 });
  expect(earliestFit(schedule, 3, 3, 0, 13)).toBeUndefined();
  expect(earliestFit(schedule, 1, 5, 0)).toBeUndefined();
  expect(earliestFit({ maxSize: undefined, holds: [] }, 5, 9, 7)).toEqual({ start: 7, end: 12 });
});

test("requestHolds: the target's replicas, going down at each release, never below minSize", () => {
  const requests = [
    request("a", 2, { kind: "running", runUntil: T0 + 10 * MIN }),
    request("b", 1, { kind: "running", runUntil: T0 + 20 * MIN }),
    request("forever", 1, { kind: "running" }),
    request("queued", 5, { kind: "queued" }),
  ];
  // 5 replicas: 4 held by requests, 1 the target's own.
  const holds = requestHolds(group({ maxSize: 8, targetSize: 5 }), requests, T0);
  expect([T0, T0 + 10 * MIN, T0 + 20 * MIN, T0 + 1e12].map((t) => heldAt(holds, t))).toEqual([5, 3, 2, 2]);
  const floored = requestHolds(group({ maxSize: 8, minSize: 4, targetSize: 5 }), requests, T0);
  expect([T0, T0 + 10 * MIN, T0 + 20 * MIN].map((t) => heldAt(floored, t))).toEqual([5, 4, 4]);
  // A status that lags the requests (targetSize 0): the requests' instances still count.
  expect(heldAt(requestHolds(group({ maxSize: 8, targetSize: 0 }), requests, T0), T0)).toBe(4);
  // A release already due holds nothing from now on.
  const due = [request("late", 2, { kind: "running", runUntil: T0 - MIN })];
  expect(heldAt(requestHolds(group({ maxSize: 8, targetSize: 2 }), due, T0), T0)).toBe(0);
});

test("bookingHolds: approved (or later) bookings for their window; pending, declined, cancelled ones not", () => {
  const bookings = [
    booking("a", 2, { start: T0, length: MIN, status: "APPROVED" }),
    booking("p", 2, { start: T0, length: MIN }),
    booking("d", 2, { start: T0, length: MIN, status: "DECLINED" }),
    booking("c", 2, { start: T0, length: MIN, status: "CANCELLED" }),
    booking("f", 1, { start: T0, length: 2 * MIN, status: "FULFILLED", endTime: true }),
  ];
  expect(bookingHolds(bookings).map((h) => [h.holder, h.from, h.until, h.count])).toEqual([
    ["FutureReservation a", T0, T0 + MIN, 2],
    ["FutureReservation f", T0, T0 + 2 * MIN, 1],
  ]);
  expect(bookingWindow(booking("n", 1, { start: T0, length: 1500 }))).toEqual({ start: T0, end: T0 + 1500 });
});
