// Queue holds, the pure rule (src/queue/booking-wait.ts): how long a request holds its instances,
// whether it must wait for a booking and which one it names, when it can start, what makes a request a
// booking's delivery, and the order that puts deliveries first.
import type { FutureReservation, ProcurementStatusName } from "../../../src/api/future-reservation.js";
import { FUTURE_RESERVATION_LABEL, WINDOW_END_ANNOTATION } from "../../../src/api/future-reservation.js";
import {
  bookingWait,
  claimedDelivery,
  deliveredBookings,
  deliveriesFirst,
  deliveryName,
  deliveryOf,
  holdWindow,
  type BookingCheck,
} from "../../../src/queue/booking-wait.js";
import { levelHolds } from "../../../src/queue/bookings.js";
import { booking, iso, MIN, request, T0 } from "../booking/builders.js";

const check = (o: Partial<BookingCheck> & Pick<BookingCheck, "bookings" | "window">): BookingCheck => ({
  maxSize: 4,
  held: levelHolds(2, [], 0, T0),
  size: 2,
  delivers: undefined,
  delivered: new Set(),
  ...o,
});

const approved = (
  name: string,
  count: number,
  startMin: number,
  lengthMin: number,
  status?: ProcurementStatusName,
) =>
  booking(name, count, { start: T0 + startMin * MIN, length: lengthMin * MIN, status: status ?? "APPROVED" });

describe("holdWindow", () => {
  test.each([
    ["a run: its run plus the provisioning timeout", { seconds: "600" }, undefined, T0 + 20 * MIN],
    ["no run: for ever", undefined, undefined, Infinity],
    [
      "a delivery: until its window's end",
      { seconds: "6000" },
      { booking: "b", windowEnd: T0 + 5 * MIN },
      T0 + 5 * MIN,
    ],
  ])("%s", (_, run, delivery, end) => {
    expect(holdWindow(T0, run, 10 * MIN, delivery)).toEqual({ start: T0, end });
  });
});

describe("bookingWait", () => {
  const forever = { start: T0, end: Infinity };
  test.each<[string, FutureReservation[], ReturnType<typeof bookingWait>]>([
    ["no booking", [], undefined],
    ["a declined booking holds nothing", [approved("b", 2, 30, 60, "DECLINED")], undefined],
    [
      "one booking in the way: named, and the start after its window",
      [approved("b", 1, 30, 60)],
      { booking: "b", until: T0 + 90 * MIN },
    ],
    [
      "two in the way: the one that tips it first is named; the start is after the last",
      [approved("late", 1, 100, 10), approved("early", 1, 30, 10)],
      { booking: "early", until: T0 + 110 * MIN },
    ],
  ])("%s", (_, bookings, expected) => {
    expect(bookingWait(check({ bookings, window: forever }))).toEqual(expected);
  });

  test("a run that ends before the window does not wait", () => {
    expect(
      bookingWait(check({ bookings: [approved("b", 2, 30, 60)], window: { start: T0, end: T0 + 30 * MIN } })),
    ).toBeUndefined();
  });

  test("a delivery does not wait for its own booking, nor for one its delivery already holds", () => {
    const b = approved("b", 2, 30, 60);
    expect(bookingWait(check({ bookings: [b], window: forever, delivers: "b" }))).toBeUndefined();
    expect(bookingWait(check({ bookings: [b], window: forever, delivered: new Set(["b"]) }))).toBeUndefined();
  });

  test("no start within 90 days: until is undefined", () => {
    const b = approved("b", 4, 1, 90 * 24 * 60);
    expect(
      bookingWait(check({ bookings: [b], window: forever, size: 1, held: levelHolds(0, [], 0, T0) })),
    ).toEqual({
      booking: "b",
      until: undefined,
    });
  });
});

describe("what makes a request a booking's delivery", () => {
  const labels = { [FUTURE_RESERVATION_LABEL]: "b" };
  const annotations = { [WINDOW_END_ANNOTATION]: iso(T0 + 200 * MIN) };
  const claim = claimedDelivery({ labels, annotations });

  test("the claim: the label, and the annotation's end", () => {
    expect(claim).toEqual({ booking: "b", windowEnd: T0 + 200 * MIN });
    expect(claimedDelivery({ labels: {} })).toBeUndefined();
    expect(claimedDelivery({ labels })).toEqual({ booking: "b", windowEnd: Infinity });
  });

  test.each<[string, string, FutureReservation[], ReturnType<typeof deliveryOf>]>([
    [
      "its name and an approved booking: ends at the booking's end at the latest",
      "fr-b",
      [approved("b", 1, 30, 60)],
      { booking: "b", windowEnd: T0 + 90 * MIN },
    ],
    ["another name", "mine", [approved("b", 1, 30, 60)], undefined],
    ["no such booking", "fr-b", [], undefined],
    ["a declined booking", "fr-b", [approved("b", 1, 30, 60, "DECLINED")], undefined],
    [
      "a cancelled booking",
      "fr-b",
      [{ ...approved("b", 1, 30, 60), spec: { ...approved("b", 1, 30, 60).spec, cancel: true } }],
      undefined,
    ],
  ])("%s", (_, name, bookings, expected) => {
    expect(deliveryOf(name, claim, bookings)).toEqual(expected);
  });

  test("a booking delivered: its request holds instances and has the delivery's name", () => {
    const holding = {
      ...request(deliveryName("b"), 2, { kind: "running" }),
      metadata: { name: "fr-b", labels },
    };
    const other = { ...request("other", 2, { kind: "running" }), metadata: { name: "other", labels } };
    const queued = {
      ...request("fr-c", 2, { kind: "queued" }),
      metadata: { name: "fr-c", labels: { [FUTURE_RESERVATION_LABEL]: "c" } },
    };
    expect([...deliveredBookings([holding, other, queued], T0, 10 * MIN)]).toEqual(["b"]);
  });

  test("deliveries first, each part in its order", () => {
    const queue = ["a", "fr-x", "b", "fr-y"];
    expect(
      deliveriesFirst(queue, (n) => (n.startsWith("fr-") ? { booking: n, windowEnd: 0 } : undefined)),
    ).toEqual(["fr-x", "fr-y", "a", "b"]);
  });

  test("the delivery's name is an RFC 1035 label", () => {
    expect(deliveryName("a".repeat(63))).toHaveLength(63);
    expect(deliveryName(`${"a".repeat(59)}-bcd`)).toBe(`fr-${"a".repeat(59)}`);
  });
});
