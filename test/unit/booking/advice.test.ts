// Calendar-mode advice: a table of cases, and on thousands of random schedules the advised window (and
// the best recommendation across groups) equals a brute-force search over every whole time unit.
import fc from "fast-check";
import { advise, adviseWindow, type AdviceQuery, type GroupCapacity } from "../../../src/booking/advice.js";
import { heldAt, type Hold, type Schedule } from "../../../src/queue/bookings.js";

const hold = (from: number, until: number, count: number): Hold => ({ from, until, count, holder: "h" });
const query = (q: Partial<AdviceQuery> = {}): AdviceQuery => ({
  count: 2,
  minDurationMs: 10,
  maxDurationMs: 30,
  notEarlierThan: 0,
  notLaterThan: 100,
  ...q,
});

test.each<[string, Schedule, AdviceQuery, { start: number; end: number } | undefined]>([
  [
    "an empty group: at once, the longest duration",
    { maxSize: 4, holds: [] },
    query(),
    { start: 0, end: 30 },
  ],
  [
    "no maxSize: at once, the longest duration",
    { maxSize: undefined, holds: [hold(0, Infinity, 50)] },
    query(),
    { start: 0, end: 30 },
  ],
  [
    "full until 20: starts when a hold goes",
    { maxSize: 4, holds: [hold(0, 20, 3)] },
    query(),
    { start: 20, end: 50 },
  ],
  [
    "room for the shortest only: ends where a booking starts",
    { maxSize: 4, holds: [hold(15, 40, 3)] },
    query(),
    { start: 0, end: 15 },
  ],
  [
    "the shortest does not fit before the booking: after it",
    { maxSize: 4, holds: [hold(5, 40, 3)] },
    query(),
    { start: 40, end: 70 },
  ],
  ["the start range excludes every fit", { maxSize: 4, holds: [hold(0, 200, 3)] }, query(), undefined],
  ["more than maxSize asked", { maxSize: 1, holds: [] }, query(), undefined],
  [
    "the longest shorter than the shortest",
    { maxSize: 4, holds: [] },
    query({ maxDurationMs: 5 }),
    undefined,
  ],
  ["no instances asked", { maxSize: 4, holds: [] }, query({ count: 0 }), undefined],
])("%s", (_name, schedule, q, expected) => {
  expect(adviseWindow(schedule, q)).toEqual(expected);
});

test("advise orders groups by start, then length, then name, and leaves out those without room", () => {
  const groups: GroupCapacity[] = [
    { group: "late", schedule: { maxSize: 4, holds: [hold(0, 20, 3)] } },
    { group: "short", schedule: { maxSize: 4, holds: [hold(15, 40, 3)] } },
    { group: "b-long", schedule: { maxSize: 4, holds: [] } },
    { group: "a-long", schedule: { maxSize: 4, holds: [] } },
    { group: "full", schedule: { maxSize: 2, holds: [hold(0, Infinity, 1)] } },
  ];
  expect(advise(groups, query()).map((r) => [r.group, r.start, r.end])).toEqual([
    ["a-long", 0, 30],
    ["b-long", 0, 30],
    ["short", 0, 15],
    ["late", 20, 50],
  ]);
});

/** Every whole start in the range, longest fitting window first from the shortest duration up. */
function bruteForce(schedule: Schedule, q: AdviceQuery): { start: number; end: number } | undefined {
  const room = (t: number): boolean =>
    schedule.maxSize === undefined || heldAt(schedule.holds, t) + q.count <= schedule.maxSize;
  for (let s = q.notEarlierThan; s <= q.notLaterThan; s++) {
    let end = s;
    while (end < s + q.maxDurationMs && room(end)) end++;
    if (end - s >= q.minDurationMs) return { start: s, end };
  }
  return undefined;
}

const holdArb = fc
  .record({
    from: fc.integer({ min: 0, max: 60 }),
    length: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    count: fc.integer({ min: 1, max: 4 }),
  })
  .map(({ from, length, count }) => hold(from, length === undefined ? Infinity : from + length, count));
const scheduleArb = fc.record({
  maxSize: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  holds: fc.array(holdArb, { maxLength: 8 }),
});
const queryArb = fc
  .record({
    count: fc.integer({ min: 1, max: 6 }),
    minDurationMs: fc.integer({ min: 1, max: 15 }),
    extra: fc.integer({ min: 0, max: 15 }),
    notEarlierThan: fc.integer({ min: 0, max: 50 }),
    range: fc.integer({ min: 0, max: 60 }),
  })
  .map(({ count, minDurationMs, extra, notEarlierThan, range }): AdviceQuery => ({
    count,
    minDurationMs,
    maxDurationMs: minDurationMs + extra,
    notEarlierThan,
    notLaterThan: notEarlierThan + range,
  }));

test("the advised window equals a brute-force search over every start and end", () => {
  fc.assert(
    fc.property(scheduleArb, queryArb, (schedule, q) => {
      expect(adviseWindow(schedule, q)).toEqual(bruteForce(schedule, q));
    }),
    { numRuns: 3000 },
  );
});

test("the best recommendation across groups is the brute-force earliest, longest window", () => {
  fc.assert(
    fc.property(fc.array(scheduleArb, { minLength: 1, maxLength: 4 }), queryArb, (schedules, q) => {
      const groups = schedules.map((schedule, i) => ({ group: `g${i}`, schedule }));
      const brute = groups
        .flatMap((g) => {
          const w = bruteForce(g.schedule, q);
          return w ? [{ group: g.group, ...w }] : [];
        })
        .sort(
          (a, b) =>
            a.start - b.start || b.end - b.start - (a.end - a.start) || a.group.localeCompare(b.group),
        );
      expect(advise(groups, q)[0]).toEqual(brute[0]);
    }),
    { numRuns: 2000 },
  );
});
