// Queue holds (docs/booking.md "Queue holds"): the queue model's ETA and decide()'s admission read
// approved bookings the same way. For random groups, running requests with releases ahead, queues and
// approved bookings: the model says the head waits for a booking exactly when decide() makes it wait
// for one; its predicted start is the moment decide() names; and decide(), run at that moment with the
// releases due by then applied, starts the head.
import fc from "fast-check";
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import { API_VERSION } from "../../../src/api/names.js";
import { rfc3339Seconds } from "../../../src/api/time.js";
import { WAITING_FOR_BOOKING } from "../../../src/controllers/resize/decide/bookings.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import { queueInsight } from "../../../src/queue/insight.js";
import { releaseTarget } from "../../../src/queue/rules.js";
import { MIN, SEC, T0, accepted, changeOf, group, iso, req, snap } from "../controller/builders.js";
import { queueInputOf, succeeded } from "./snapshot-input.js";

interface Holder {
  readonly size: number;
  /** Minutes from T0 to its release; undefined: for ever. */
  readonly releaseIn: number | undefined;
}
interface Queued {
  readonly size: number;
  /** Run duration in minutes; undefined: for ever. */
  readonly run: number | undefined;
}
interface Booked {
  readonly count: number;
  readonly startIn: number;
  readonly length: number;
}
interface State {
  readonly maxSize: number;
  readonly extra: number;
  readonly holders: readonly Holder[];
  readonly queue: readonly Queued[];
  readonly bookings: readonly Booked[];
}

const state: fc.Arbitrary<State> = fc.integer({ min: 2, max: 8 }).chain((maxSize) => {
  const size = fc.integer({ min: 1, max: maxSize });
  return fc.record({
    maxSize: fc.constant(maxSize),
    extra: fc.integer({ min: 0, max: 2 }),
    holders: fc.array(
      fc.record({
        size: fc.integer({ min: 1, max: 2 }),
        releaseIn: fc.option(fc.integer({ min: 1, max: 90 }), { nil: undefined }),
      }),
      { maxLength: 3 },
    ),
    queue: fc.array(
      fc.record({ size, run: fc.option(fc.integer({ min: 1, max: 90 }), { nil: undefined }) }),
      { minLength: 1, maxLength: 3 },
    ),
    bookings: fc.array(
      fc.record({
        count: size,
        startIn: fc.integer({ min: 1, max: 180 }),
        length: fc.integer({ min: 1, max: 90 }),
      }),
      { maxLength: 3 },
    ),
  });
});

/** The group's attempt history: one success, so the model gives ETAs. */
const DONE: RequestView = succeeded("done", {
  created: T0 - 60 * MIN,
  size: 1,
  succeeded: T0 - 50 * MIN,
  tookMs: 30 * SEC,
});

function bookingOf(b: Booked, i: number): FutureReservation {
  const start = T0 + b.startIn * MIN;
  return {
    apiVersion: API_VERSION,
    kind: "FutureReservation",
    metadata: { name: `b-${i}`, namespace: "team-a", creationTimestamp: iso(T0 - 90 * MIN) },
    spec: {
      instanceGroupManager: "pool",
      totalCount: b.count,
      timeWindow: { startTime: iso(start), endTime: iso(start + b.length * MIN) },
      cancel: false,
    },
    status: { procurementStatus: "APPROVED" },
  };
}

/** The state at `now`: holders released by then are gone, the target lowered by the release rule. */
function snapshotOf(st: State, now = T0): GroupSnapshot {
  let replicas = st.holders.reduce((sum, h) => sum + h.size, 0) + st.extra;
  const holders: RequestView[] = [];
  const ordered = [...st.holders.entries()].sort(
    ([, a], [, b]) => (a.releaseIn ?? Infinity) - (b.releaseIn ?? Infinity),
  );
  for (const [i, h] of ordered) {
    const at = h.releaseIn === undefined ? undefined : T0 + h.releaseIn * MIN;
    if (at !== undefined && at <= now) {
      replicas = releaseTarget(replicas, h.size, 0);
      continue;
    }
    holders.push(
      succeeded(`held-${i}`, {
        created: T0 - 40 * MIN + i * SEC,
        size: h.size,
        succeeded: T0 - 30 * MIN,
        tookMs: 30 * SEC,
        ...(at !== undefined && { runUntil: at }),
      }),
    );
  }
  const queue = st.queue.map((q, i): RequestView => {
    const name = `q-${i}`;
    const created = T0 - 20 * MIN + i * SEC;
    return req(name, {
      created,
      resizeBy: q.size,
      ...(q.run !== undefined && { run: { seconds: String(q.run * 60) } }),
      status: accepted(name),
    });
  });
  return {
    ...snap({
      now,
      group: group({ maxSize: st.maxSize, minSize: 0, provisioningTimeoutMs: 10 * MIN }),
      replicas,
      requests: [DONE, ...holders, ...queue],
    }),
    bookings: st.bookings.map(bookingOf),
  };
}

describe("queue holds: the ETA and the admission agree (random groups, queues and bookings)", () => {
  test("waiting for a booking, its predicted start and the start at that moment", () => {
    let checkedLater = 0;
    fc.assert(
      fc.property(state, (st) => {
        const s = snapshotOf(st);
        const plan = decide(s);
        const model = queueInsight(queueInputOf(s));
        const head = model.head;
        if (!head) throw new Error("no head");
        const decided = changeOf(plan, head.name)?.status;
        const starts = decided?.provisioning !== undefined;
        const waitsForBooking = decided?.reason === WAITING_FOR_BOOKING;
        expect({ kind: head.waitingFor.kind, starts, waitsForBooking }).toEqual({
          kind: head.waitingFor.kind,
          starts: head.waitingFor.kind === "Starting",
          waitsForBooking: head.waitingFor.kind === "Booking",
        });
        if (head.waitingFor.kind !== "Booking" || head.waitingFor.until === undefined) return;
        const until = head.waitingFor.until;
        // The ETA's start is the moment the booking frees room, and decide() names the same one.
        expect(head.eta).toMatchObject({ start: until });
        const message = decided?.conditions?.find((c) => c.type === "Queued")?.message;
        expect(message).toContain(`until ${rfc3339Seconds(until)}`);
        // At that moment, with the releases due by then applied, decide() starts it.
        const later = snapshotOf(st, until);
        const then = decide(later);
        expect(changeOf(then, head.name)?.status?.provisioning).toBeDefined();
        checkedLater++;
      }),
      { numRuns: 500 },
    );
    // The generator reaches the case it is about.
    expect(checkedLater).toBeGreaterThan(25);
  });
});
