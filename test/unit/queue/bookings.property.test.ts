// Properties of capacity over time on thousands of random histories:
// - earliestFit equals a brute-force search over every start time (all times are whole units, so
//   checking every unit of every candidate window is exhaustive);
// - bookings decided by decideBookings, round after round as time goes on, never hold more than
//   maxSize at any instant together with the running requests.
import fc from "fast-check";
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import { decideBookings } from "../../../src/booking/decide.js";
import {
  bookingHolds,
  earliestFit,
  heldAt,
  requestHolds,
  steps,
  type Hold,
} from "../../../src/queue/bookings.js";
import { booking, group, GROUP, MIN, NS, request, T0, type RequestKind } from "../booking/builders.js";

const holdArb: fc.Arbitrary<Hold> = fc
  .record({
    from: fc.integer({ min: 0, max: 60 }),
    length: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    count: fc.integer({ min: 1, max: 4 }),
  })
  .map(({ from, length, count }) => ({
    from,
    until: length === undefined ? Infinity : from + length,
    count,
    holder: "h",
  }));

/** The first start in [after, after + horizon] whose every unit of the window has room. */
function bruteForce(
  holds: readonly Hold[],
  maxSize: number,
  duration: number,
  count: number,
  after: number,
  horizon: number,
): number | undefined {
  for (let s = after; s <= after + horizon; s++) {
    let ok = true;
    for (let t = s; t < s + duration && ok; t++) ok = heldAt(holds, t) + count <= maxSize;
    if (ok) return s;
  }
  return undefined;
}

test("earliestFit equals the brute-force search over every start", () => {
  fc.assert(
    fc.property(
      fc.array(holdArb, { maxLength: 8 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 20 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 0, max: 50 }),
      fc.integer({ min: 0, max: 80 }),
      (holds, maxSize, duration, count, after, horizon) => {
        const fit = earliestFit({ maxSize, holds }, duration, count, after, horizon);
        expect(fit?.start).toBe(bruteForce(holds, maxSize, duration, count, after, horizon));
        if (fit) expect(fit.end).toBe(fit.start + duration);
      },
    ),
    { numRuns: 3000 },
  );
});

const requestKind: fc.Arbitrary<RequestKind> = fc.oneof(
  fc.constant<RequestKind>({ kind: "queued" }),
  fc
    .option(fc.integer({ min: -5, max: 120 }), { nil: undefined })
    .map((m): RequestKind =>
      m === undefined ? { kind: "running" } : { kind: "running", runUntil: T0 + m * MIN },
    ),
  fc
    .record({
      deadline: fc.integer({ min: -5, max: 30 }),
      run: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
    })
    .map(({ deadline, run }): RequestKind => ({
      kind: "attempt",
      deadline: T0 + deadline * MIN,
      ...(run !== undefined && { runMinutes: run }),
    })),
);

interface History {
  readonly maxSize: number;
  readonly minSize: number;
  readonly own: number;
  readonly requests: readonly { readonly size: number; readonly kind: RequestKind }[];
  /** Bookings arriving in rounds, a round every `step` minutes. */
  readonly rounds: readonly (readonly { count: number; start: number; length: number; cancel: boolean }[])[];
  readonly step: number;
}

const history: fc.Arbitrary<History> = fc.integer({ min: 1, max: 10 }).chain((maxSize) =>
  fc
    .record({
      maxSize: fc.constant(maxSize),
      minSize: fc.integer({ min: 0, max: maxSize }),
      own: fc.integer({ min: 0, max: maxSize }),
      requests: fc.array(fc.record({ size: fc.integer({ min: 1, max: maxSize }), kind: requestKind }), {
        maxLength: 4,
      }),
      rounds: fc.array(
        fc.array(
          fc.record({
            count: fc.integer({ min: 1, max: maxSize + 1 }),
            start: fc.integer({ min: -2, max: 120 }),
            length: fc.integer({ min: 1, max: 90 }),
            cancel: fc.boolean(),
          }),
          { maxLength: 4 },
        ),
        { minLength: 1, maxLength: 3 },
      ),
      step: fc.integer({ min: 0, max: 15 }),
    })
    // The group starts within maxSize: replicas no larger than the bound.
    .filter(
      (h) => h.requests.reduce((sum, r) => sum + (r.kind.kind === "queued" ? 0 : r.size), 0) <= h.maxSize,
    ),
);

/**
 * The request as the world has it at `now`, had everything gone as the model bounds it: a release due
 * is applied, an attempt whose deadline passed succeeded at it (the latest it could).
 */
function advance(k: RequestKind, now: number): RequestKind {
  if (k.kind === "attempt" && k.deadline <= now)
    return advance(
      k.runMinutes === undefined
        ? { kind: "running" }
        : { kind: "running", runUntil: k.deadline + k.runMinutes * MIN },
      now,
    );
  if (k.kind === "running" && k.runUntil !== undefined && k.runUntil <= now) return { kind: "released" };
  return k;
}

test("approved bookings never hold more than maxSize at any instant, with the running requests", () => {
  fc.assert(
    fc.property(history, (h) => {
      let targetSize = h.own;
      let bookings: FutureReservation[] = [];
      h.rounds.forEach((round, k) => {
        const now = T0 + k * h.step * MIN;
        const g = group({ maxSize: h.maxSize, minSize: Math.min(h.minSize, h.own), targetSize });
        const requests = h.requests.map((r, i) => request(`r${i}`, r.size, advance(r.kind, now)));
        const arrived = round.map((b, i) =>
          booking(`b${k}-${i}`, b.count, {
            start: now + b.start * MIN,
            length: b.length * MIN,
            created: now + i,
            cancel: b.cancel && i % 2 === 1,
          }),
        );
        // A cancel may also come for the first booking of all.
        const cancelFirst = round[0]?.cancel ?? false;
        bookings = [
          ...bookings.map((b, i) =>
            cancelFirst && i === 0 ? { ...b, spec: { ...b.spec, cancel: true } } : b,
          ),
          ...arrived,
        ];
        const plan = decideBookings({ namespace: NS, groupName: GROUP, group: g, requests, bookings, now });
        const written = new Map(plan.changes.map((c) => [c.booking.metadata.name, c.status]));
        bookings = bookings.map((b) => {
          const status = written.get(b.metadata.name);
          return status ? { ...b, status } : b;
        });
        // From this decision on, everything held stays within maxSize at every step of the function.
        const fromRequests = requestHolds(g, requests, now);
        const holds = [...fromRequests, ...bookingHolds(bookings)];
        expect(heldAt(holds, now)).toBeLessThanOrEqual(h.maxSize);
        for (const { at } of steps(holds))
          if (at >= now) expect(heldAt(holds, at)).toBeLessThanOrEqual(h.maxSize);
        // The target's replicas at the next round are what the releases leave.
        targetSize = heldAt(fromRequests, T0 + (k + 1) * h.step * MIN);
      });
    }),
    { numRuns: 3000 },
  );
});
