import type { EventsV1Event } from "@kubernetes/client-node";
import {
  SeriesBook,
  fallbackCreate,
  markWritten,
  planWrite,
  type SeriesEntry,
  type WritePlan,
} from "../../../src/events/series.js";

const timing = { heartbeatMs: 30 * 60_000, idleMs: 6 * 60_000, maxKeys: 3 };
const MIN = 60_000;

function event(name: string): EventsV1Event {
  return {
    metadata: { name, namespace: "ns" },
    eventTime: new Date(0),
    reason: "AttemptFailed",
    action: "Provision",
    type: "Warning",
  };
}

/** Writes whatever is due for `entry` as a sink that always succeeds would, returning the plans. */
function writeAll(entry: SeriesEntry, nowMs: number): WritePlan[] {
  const plans: WritePlan[] = [];
  for (let plan = planWrite(entry); plan; plan = planWrite(entry)) {
    plans.push(plan);
    markWritten(entry, plan, nowMs);
  }
  return plans;
}

function summary(plans: WritePlan[]): string[] {
  return plans.map((p) =>
    p.kind === "create" ? `create${p.event.series ? ` ${p.count}` : ""}` : `patch ${p.count}`,
  );
}

describe("SeriesBook.observe", () => {
  test("first occurrence is new and needs a write; the second needs a write; later ones are only counted", () => {
    const book = new SeriesBook(timing);
    const writes = [1, 2, 3, 4, 5].map((i) => book.observe("k", i * 1000, () => event("e")).write);
    expect(writes).toEqual([true, true, false, false, false]);
    const entry = book.observe("k", 6000, () => event("never built"));
    expect(entry.entry.count).toBe(6);
    expect(entry.entry.lastObservedMs).toBe(6000);
    expect(entry.entry.event.metadata?.name).toBe("e");
  });

  test("different keys are different entries", () => {
    const book = new SeriesBook(timing);
    const a = book.observe("a", 0, () => event("a"));
    const b = book.observe("b", 0, () => event("b"));
    expect(a.entry).not.toBe(b.entry);
    expect(book.size).toBe(2);
  });

  test("beyond maxKeys the oldest key is evicted, for a final write when it has unwritten counts", () => {
    const book = new SeriesBook(timing);
    const first = book.observe("a", 0, () => event("a")).entry;
    book.observe("a", 1, () => event("a"));
    book.observe("b", 2, () => event("b"));
    book.observe("c", 3, () => event("c"));
    const obs = book.observe("d", 4, () => event("d"));
    expect(obs.evicted).toBe(first);
    expect(first.flushRequested).toBe(true);
    expect(book.size).toBe(3);
    // A written, unchanged entry is evicted silently.
    writeAll(book.observe("b", 5, () => event("b")).entry, 5);
    const next = book.observe("e", 6, () => event("e"));
    expect(next.evicted).toBeUndefined();
    expect(book.size).toBe(3);
  });
});

describe("planWrite", () => {
  const cases: [string, number[], string[]][] = [
    // [scenario, occurrences observed between write rounds, writes per round]
    ["a singleton", [1], ["create"]],
    ["second occurrence after the create", [1, 1], ["create", "patch 2"]],
    ["third occurrence waits for a flush", [1, 1, 1], ["create", "patch 2"]],
    ["a burst before the create carries the series in the create", [5], ["create 5"]],
    ["a burst after the create becomes one patch", [1, 49], ["create", "patch 50"]],
  ];
  test.each(cases)("%s", (_name, rounds, expected) => {
    const book = new SeriesBook(timing);
    let entry: SeriesEntry | undefined;
    const plans: WritePlan[] = [];
    rounds.forEach((n, round) => {
      for (let i = 0; i < n; i++) entry = book.observe("k", round * 1000 + i, () => event("e")).entry;
      if (entry) plans.push(...writeAll(entry, round * 1000));
    });
    expect(summary(plans)).toEqual(expected);
  });

  test("a flush writes the in-memory count, once", () => {
    const book = new SeriesBook(timing);
    let entry!: SeriesEntry;
    for (let i = 0; i < 2; i++) entry = book.observe("k", i, () => event("e")).entry;
    writeAll(entry, 2);
    for (let i = 0; i < 48; i++) book.observe("k", 10 + i, () => event("e"));
    expect(writeAll(entry, 100)).toEqual([]);
    expect(book.pending()).toEqual([entry]);
    const plans = writeAll(entry, 100);
    expect(plans).toHaveLength(1);
    const plan = plans[0];
    if (plan?.kind !== "patch") throw new Error("expected a patch");
    expect(plan).toMatchObject({ namespace: "ns", name: "e", count: 50 });
    expect(plan.series.count).toBe(50);
    expect(plan.series.lastObservedTime.getTime()).toBe(57);
    expect(entry.flushRequested).toBe(false);
    expect(book.pending()).toEqual([]);
  });

  test("the fallback create of a vanished series carries the series and the original name", () => {
    const book = new SeriesBook(timing);
    let entry!: SeriesEntry;
    for (let i = 0; i < 3; i++) entry = book.observe("k", i, () => event("e")).entry;
    const plan = fallbackCreate(entry);
    if (plan.kind !== "create") throw new Error("expected a create");
    expect(plan.event.metadata?.name).toBe("e");
    expect(plan.event.series?.count).toBe(3);
    expect(entry.event.series).toBeUndefined();
  });
});

describe("SeriesBook.due (heartbeat and idle end)", () => {
  function seriesAt(book: SeriesBook, times: number[]): SeriesEntry {
    let entry!: SeriesEntry;
    for (const t of times) {
      entry = book.observe("k", t, () => event("e")).entry;
      writeAll(entry, t);
    }
    return entry;
  }

  test("nothing is due while a series is active and recently written", () => {
    const book = new SeriesBook(timing);
    const entry = seriesAt(book, [0, MIN]);
    book.observe("k", 2 * MIN, () => event("e"));
    expect(book.due(3 * MIN)).toEqual([]);
    expect(entry.count).toBe(3);
  });

  test("a heartbeat writes unwritten counts of an active series every heartbeat period", () => {
    const book = new SeriesBook(timing);
    const entry = seriesAt(book, [0, 1000]);
    for (let t = 2 * MIN; t <= 30 * MIN; t += 2 * MIN) book.observe("k", t, () => event("e"));
    expect(book.due(30 * MIN)).toEqual([]);
    expect(book.due(31 * MIN)).toEqual([entry]);
    expect(summary(writeAll(entry, 31 * MIN))).toEqual(["patch 17"]);
    // Still remembered: the series goes on.
    expect(book.observe("k", 32 * MIN, () => event("x")).entry).toBe(entry);
  });

  test("a heartbeat with every count already written writes nothing", () => {
    const book = new SeriesBook(timing);
    const entry = seriesAt(book, [0, 1000]);
    for (let t = 5 * MIN; t <= 30 * MIN; t += 5 * MIN) book.observe("k", t, () => event("e"));
    book.pending();
    writeAll(entry, 30 * MIN);
    expect(book.due(31 * MIN)).toEqual([]);
    expect(book.size).toBe(1);
  });

  test("an idle series ends: a final write of its count, and the next occurrence starts a new Event", () => {
    const book = new SeriesBook(timing);
    const entry = seriesAt(book, [0, 1000]);
    book.observe("k", 2000, () => event("e"));
    expect(book.due(2000 + 6 * MIN - 1)).toEqual([]);
    expect(book.due(2000 + 6 * MIN)).toEqual([entry]);
    expect(summary(writeAll(entry, 2000 + 6 * MIN))).toEqual(["patch 3"]);
    const next = book.observe("k", 7 * MIN, () => event("e2"));
    expect(next.write).toBe(true);
    expect(next.entry).not.toBe(entry);
    expect(next.entry.event.metadata?.name).toBe("e2");
  });

  test("an idle series with everything written ends without a write", () => {
    const book = new SeriesBook(timing);
    seriesAt(book, [0, 1000]);
    expect(book.due(10 * MIN)).toEqual([]);
    expect(book.size).toBe(0);
  });

  test("an idle singleton is forgotten without a write", () => {
    const book = new SeriesBook(timing);
    seriesAt(book, [0]);
    expect(book.due(6 * MIN)).toEqual([]);
    expect(book.size).toBe(0);
    expect(book.observe("k", 6 * MIN, () => event("again")).write).toBe(true);
  });

  test("forget drops only the entry it is given", () => {
    const book = new SeriesBook(timing);
    const old = seriesAt(book, [0]);
    book.due(6 * MIN);
    const current = book.observe("k", 6 * MIN, () => event("e2")).entry;
    book.forget(old);
    expect(book.size).toBe(1);
    book.forget(current);
    expect(book.size).toBe(0);
  });
});
