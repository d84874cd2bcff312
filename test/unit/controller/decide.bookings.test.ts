// decide(): queue holds (docs/booking.md "Queue holds"). The head of a group's queue may not take
// capacity an approved FutureReservation needs for its window: it waits, its condition naming the
// booking and when it can start; a booking's delivery consumes that booking's hold and goes first.
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import type { FutureReservation, ProcurementStatusName } from "../../../src/api/future-reservation.js";
import { API_VERSION } from "../../../src/api/names.js";
import { rfc3339Seconds } from "../../../src/api/time.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import { WAITING_FOR_BOOKING } from "../../../src/controllers/resize/decide/bookings.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import { MIN, SEC, T0, accepted, changeOf, cond, group, iso, req, snap, statusAfter } from "./builders.js";

/** An approved booking of `count` instances of the pool from `start` for `length` ms. */
export function booking(
  name: string,
  count: number,
  start: number,
  length: number,
  status: ProcurementStatusName = "APPROVED",
): FutureReservation {
  return {
    apiVersion: API_VERSION,
    kind: "FutureReservation",
    metadata: { name, namespace: "team-a", uid: `uid-${name}`, creationTimestamp: iso(T0 - 60 * MIN) },
    spec: {
      instanceGroupManager: "pool",
      totalCount: count,
      timeWindow: { startTime: iso(start), endTime: iso(start + length) },
      cancel: false,
    },
    status: { procurementStatus: status },
  };
}

const queued = (name: string, size: number, runMin?: number, created = T0 - 5 * MIN): RequestView =>
  req(name, {
    created,
    resizeBy: size,
    ...(runMin !== undefined && { run: { seconds: String(runMin * 60) } }),
    status: accepted(name),
  });

/** maxSize 4, 2 replicas, a booking of 2 from T0 + 30 min for an hour. */
const pool = group({ maxSize: 4, provisioningTimeoutMs: 10 * MIN });
const window = booking("training", 2, T0 + 30 * MIN, 60 * MIN);

function started(plan: ReturnType<typeof decide>, name: string): boolean {
  return changeOf(plan, name)?.status?.provisioning !== undefined;
}

describe("a queued request against approved bookings", () => {
  test.each([
    // name, size, run (min), starts?, why
    ["fits before the window, run + timeout ending before it", 2, 15, true],
    ["would still hold its instances when the window starts", 2, 25, false],
    ["for ever: overlaps every window ahead", 1, undefined, false],
    ["one for ever: 2 replicas + 1 + 2 booked exceed 4", 1, undefined, false],
  ])("%s", (_, size, run, starts) => {
    const r = queued("r", size, run);
    const plan = decide(snap({ group: pool, replicas: 2, requests: [r], bookings: [window] }));
    expect(started(plan, "r")).toBe(starts);
  });

  test("beside a booking: 1 replica + 1 for ever + 2 booked fits maxSize 4", () => {
    const r = queued("r", 1);
    const plan = decide(snap({ group: pool, replicas: 1, requests: [r], bookings: [window] }));
    expect(started(plan, "r")).toBe(true);
  });

  test("the waiting head's condition names the booking and when it can start; the group wakes then", () => {
    const r = queued("r", 2, 25);
    const plan = decide(snap({ group: pool, replicas: 2, requests: [r], bookings: [window] }));
    const status = statusAfter(plan, r);
    expect(status.reason).toBe(WAITING_FOR_BOOKING);
    const end = T0 + 90 * MIN;
    expect(cond(status, RC.Queued)).toMatchObject({ status: "True", reason: WAITING_FOR_BOOKING });
    expect(cond(status, RC.Queued)?.message).toContain(
      `Waiting for FutureReservation training until ${rfc3339Seconds(end)}`,
    );
    expect(plan.requeueAfterMs).toBe(end - T0);
  });

  test.each<[string, ProcurementStatusName]>([
    ["pending approval", "PENDING_APPROVAL"],
    ["declined", "DECLINED"],
    ["cancelled", "CANCELLED"],
    ["failed", "FAILED"],
  ])("a booking %s holds nothing", (_, status) => {
    const r = queued("r", 2);
    const b = booking("b", 2, T0 + 30 * MIN, 60 * MIN, status);
    const plan = decide(snap({ group: pool, replicas: 2, requests: [r], bookings: [b] }));
    expect(started(plan, "r")).toBe(true);
  });

  test("a window already over holds nothing", () => {
    const r = queued("r", 2);
    const b = booking("past", 2, T0 - 90 * MIN, 60 * MIN, "FULFILLED");
    const plan = decide(snap({ group: pool, replicas: 2, requests: [r], bookings: [b] }));
    expect(started(plan, "r")).toBe(true);
  });

  test("a running request's release counts: the window fits once its instances go", () => {
    const holder = req("holder", {
      resizeBy: 2,
      run: { seconds: "600" },
      status: { ...accepted("holder"), state: "SUCCEEDED", runUntil: iso(T0 + 20 * MIN) },
    });
    // 2 held until minute 20, then 0: 2 more for ever, then 2 booked from minute 30, never exceed 4
    // (without the release, 2 + 2 + 2 would).
    const r = queued("r", 2);
    const plan = decide(snap({ group: pool, replicas: 2, requests: [holder, r], bookings: [window] }));
    expect(started(plan, "r")).toBe(true);
  });
});

describe("a booking's delivery", () => {
  const delivery = (name: string, booked: string, windowEnd: number, created: number): RequestView => ({
    ...queued(name, 2, 60, created),
    delivery: { booking: booked, windowEnd },
  });

  test("consumes its own booking's hold: it starts though the booking fills the group", () => {
    const d = delivery("fr-training", "training", T0 + 90 * MIN, T0 - MIN);
    const soon = booking("training", 2, T0 + 30 * SEC, 60 * MIN);
    const plan = decide(snap({ group: pool, replicas: 2, requests: [d], bookings: [soon] }));
    expect(started(plan, "fr-training")).toBe(true);
  });

  test("goes ahead of an older request waiting for the window it delivers", () => {
    const older = queued("older", 2, undefined, T0 - 20 * MIN);
    const d = delivery("fr-training", "training", T0 + 90 * MIN, T0 - MIN);
    const plan = decide(snap({ group: pool, replicas: 2, requests: [older, d], bookings: [window] }));
    expect(started(plan, "fr-training")).toBe(true);
    expect(started(plan, "older")).toBe(false);
  });

  test("another booking still holds against it", () => {
    const d = delivery("fr-training", "training", T0 + 90 * MIN, T0 - MIN);
    // 2 replicas + 2 delivered + 2 of "other" overlapping: 6 > 4.
    const other = booking("other", 2, T0 + 60 * MIN, 10 * MIN);
    const plan = decide(snap({ group: pool, replicas: 2, requests: [d], bookings: [window, other] }));
    expect(changeOf(plan, "fr-training")?.status?.reason).toBe(WAITING_FOR_BOOKING);
  });

  test("succeeds with its run ending exactly at the window's end", () => {
    const end = T0 + 50 * MIN;
    const attempting: RequestView = {
      ...req("fr-b", {
        resizeBy: 2,
        run: { seconds: String(60 * 60) },
        status: {
          ...accepted("fr-b"),
          reason: "Provisioning",
          attempts: 1,
          provisioning: {
            attempt: 1,
            phase: "Applied",
            baseReplicas: 0,
            targetReplicas: 2,
            startedTime: iso(T0 - 30 * SEC),
            appliedTime: iso(T0 - 29 * SEC),
            deadline: iso(T0 + 9 * MIN),
          },
        },
      }),
      delivery: { booking: "b", windowEnd: end },
    };
    const b = booking("b", 2, T0 + 10 * MIN, 40 * MIN);
    const plan = decide(snap({ group: pool, replicas: 2, ready: 2, requests: [attempting], bookings: [b] }));
    expect(changeOf(plan, "fr-b")?.status).toMatchObject({ state: "SUCCEEDED", runUntil: iso(end) });
  });

  test.each([
    ["a request labelled for the booking under another name", "sneaky", "APPROVED" as const],
    ["the delivery of a cancelled booking", "fr-training", "CANCELLED" as const],
  ])("%s is not a delivery: it neither goes first nor takes the hold", (_, name, status) => {
    const older = queued("older", 1, 10, T0 - 20 * MIN);
    const claim = delivery(name, "training", T0 + 90 * MIN, T0 - MIN);
    const held = { ...window, status: { procurementStatus: status } };
    const plan = decide(snap({ group: pool, replicas: 2, requests: [older, claim], bookings: [held] }));
    expect(started(plan, "older")).toBe(true);
    expect(started(plan, name)).toBe(false);
  });
});
