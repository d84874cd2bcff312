import { pino } from "pino";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { LeaderElector, validateTimings } from "../../../src/runtime/leader-election.js";
import type { LeaseClient, LeaseRecord, StoredLease } from "../../../src/runtime/lease-client.js";
import { METRIC } from "../../../src/runtime/metrics.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { captureLog, loggedError } from "../../support/log-capture.js";

/** One Lease object shared by all candidates, with resourceVersion checks like the API server's. */
class FakeLeaseStore {
  stored: StoredLease | undefined;
  private rv = 0;
  /** When set, every call made by these identities fails (a partitioned candidate). */
  readonly broken = new Set<string>();
  /** When set, calls made by these identities never answer (a hanging API server). */
  readonly hanging = new Set<string>();

  client(identity: string): LeaseClient {
    const guard = <T>(signal: AbortSignal, fn: () => T): Promise<T> => {
      if (this.broken.has(identity)) return Promise.reject(new Error("connection refused"));
      if (this.hanging.has(identity))
        return new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            reject(new Error("aborted"));
          });
        });
      return Promise.resolve(fn());
    };
    return {
      get: (signal) =>
        guard(signal, () => this.stored && { ...this.stored, record: { ...this.stored.record } }),
      create: (record, signal) =>
        guard(signal, () => {
          if (this.stored) return undefined;
          return (this.stored = { record: { ...record }, resourceVersion: String(++this.rv) });
        }),
      update: (record, resourceVersion, signal) =>
        guard(signal, () => {
          if (this.stored?.resourceVersion !== resourceVersion) return undefined;
          return (this.stored = { record: { ...record }, resourceVersion: String(++this.rv) });
        }),
    };
  }

  get record(): LeaseRecord | undefined {
    return this.stored?.record;
  }
}

interface Candidate {
  elector: LeaderElector;
  ctl: AbortController;
  run: Promise<void>;
  terms: number;
  leading: boolean;
  stoppedAt: number | undefined;
}

function candidate(
  store: FakeLeaseStore,
  clock: FakeClock,
  identity: string,
  metrics = new InMemoryMetrics(),
): Candidate {
  const elector = new LeaderElector({
    name: "ns/lock",
    identity,
    lease: store.client(identity),
    logger: pino({ level: "silent" }),
    clock,
    metrics,
    random: () => 0,
  });
  const ctl = new AbortController();
  const c: Candidate = {
    elector,
    ctl,
    run: Promise.resolve(),
    terms: 0,
    leading: false,
    stoppedAt: undefined,
  };
  c.run = elector.run(ctl.signal, async (leading) => {
    c.terms++;
    c.leading = true;
    await new Promise<void>((resolve) => {
      leading.addEventListener("abort", () => {
        resolve();
      });
    });
    c.leading = false;
    c.stoppedAt = clock.now();
  });
  return c;
}

describe("LeaderElector", () => {
  test("the first candidate creates the lease and leads; the second waits", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const metrics = new InMemoryMetrics();
    const a = candidate(store, clock, "a", metrics);
    await flushPromises();
    const b = candidate(store, clock, "b");
    await clock.advance(60_000);
    expect(a.leading).toBe(true);
    expect(b.leading).toBe(false);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.leader).toBe("a");
    expect(store.record?.holderIdentity).toBe("a");
    expect(store.record?.leaseDurationSeconds).toBe(15);
    expect(store.record?.leaseTransitions).toBe(0);
    expect(store.record?.renewTime).toBeGreaterThan(store.record?.acquireTime ?? Infinity);
    expect(metrics.get(METRIC.leaderStatus, { name: "ns/lock" })).toBe(1);
    a.ctl.abort();
    b.ctl.abort();
    await Promise.all([a.run, b.run]);
  });

  test("after the leader dies without releasing, another candidate takes over once the lease expires", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const a = candidate(store, clock, "a");
    await flushPromises();
    const b = candidate(store, clock, "b");
    await clock.advance(10_000);
    // "a" crashes: it stops talking to the API server and never releases.
    store.hanging.add("a");
    const crashedAt = clock.now();
    let takeover: number | undefined;
    for (let t = 0; t < 30_000 && takeover === undefined; t += 100) {
      await clock.advance(100);
      if (b.leading) takeover = clock.now() - crashedAt;
    }
    expect(takeover).toBeDefined();
    // At most leaseDuration after the last renewal plus one retry period.
    expect(takeover).toBeLessThanOrEqual(17_000 + 100);
    expect(takeover).toBeGreaterThanOrEqual(13_000);
    expect(store.record?.holderIdentity).toBe("b");
    expect(store.record?.leaseTransitions).toBe(1);
    // The old leader gave up on its own before that (renewDeadline 10 s).
    expect(a.leading).toBe(false);
    expect(a.stoppedAt).toBeDefined();
    expect((a.stoppedAt ?? 0) - crashedAt).toBeLessThanOrEqual(12_000);
    expect((a.stoppedAt ?? 0) - crashedAt).toBeLessThan(takeover ?? 0);
    a.ctl.abort();
    b.ctl.abort();
    await Promise.all([a.run, b.run]);
  });

  test("a leader that cannot renew within renewDeadline stops leading at once and campaigns again", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const a = candidate(store, clock, "a");
    await clock.advance(5_000);
    store.broken.add("a");
    const brokenAt = clock.now();
    for (let t = 0; t < 20_000 && a.leading; t += 100) await clock.advance(100);
    expect(a.leading).toBe(false);
    const stopped = (a.stoppedAt ?? 0) - brokenAt;
    expect(stopped).toBeGreaterThan(9_000);
    expect(stopped).toBeLessThanOrEqual(12_100);
    // Once the API server answers again, nobody else holds it: it leads again, in a new term.
    store.broken.delete("a");
    await clock.advance(5_000);
    expect(a.leading).toBe(true);
    expect(a.terms).toBe(2);
    a.ctl.abort();
    await a.run;
  });

  test("a hanging renewal does not keep the leader leading past renewDeadline", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const a = candidate(store, clock, "a");
    await clock.advance(3_000);
    store.hanging.add("a");
    const at = clock.now();
    for (let t = 0; t < 20_000 && a.leading; t += 100) await clock.advance(100);
    expect((a.stoppedAt ?? 0) - at).toBeLessThanOrEqual(12_100);
    a.ctl.abort();
    await a.run;
  });

  test("graceful stop releases the lease after the leader work ended; the successor takes over within a retry period", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const a = candidate(store, clock, "a");
    await flushPromises();
    const b = candidate(store, clock, "b");
    await clock.advance(7_000);
    a.ctl.abort();
    await a.run;
    expect(a.leading).toBe(false);
    expect(store.record?.holderIdentity).toBe("");
    expect(store.record?.leaseDurationSeconds).toBe(1);
    const releasedAt = clock.now();
    while (!b.leading) await clock.advance(100);
    expect(clock.now() - releasedAt).toBeLessThanOrEqual(2_500);
    expect(store.record?.holderIdentity).toBe("b");
    b.ctl.abort();
    await b.run;
  });

  test("a leader that finds someone else holding the lease stops at once", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const a = candidate(store, clock, "a");
    await clock.advance(1_000);
    // An operator (or a split brain) overwrites the holder.
    const stored = store.stored;
    if (!stored) throw new Error("no lease");
    store.stored = {
      record: { ...stored.record, holderIdentity: "intruder", renewTime: clock.now() },
      resourceVersion: "999",
    };
    await clock.advance(2_500);
    expect(a.leading).toBe(false);
    a.ctl.abort();
    await a.run;
  });

  test("only one of many candidates leads at any time", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const all = ["a", "b", "c", "d"].map((id) => candidate(store, clock, id));
    for (let t = 0; t < 120; t++) {
      await clock.advance(500);
      expect(all.filter((c) => c.leading).length).toBeLessThanOrEqual(1);
    }
    expect(all.filter((c) => c.leading).length).toBe(1);
    for (const c of all) c.ctl.abort();
    await Promise.all(all.map((c) => c.run));
  });

  test("timings must satisfy leaseDuration > renewDeadline > 1.2 * retryPeriod", () => {
    expect(() => {
      validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    }).not.toThrow();
    expect(() => {
      validateTimings({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    }).toThrow();
    expect(() => {
      validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 });
    }).toThrow();
    expect(() => {
      validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 });
    }).toThrow();
  });

  test("failed lease requests and failed leader work are logged with their stack and cause", async () => {
    const store = new FakeLeaseStore();
    const clock = new FakeClock(1_700_000_000_000);
    const { log, lines } = captureLog();
    const elector = new LeaderElector({
      name: "ns/lock",
      identity: "a",
      lease: store.client("a"),
      logger: log,
      clock,
    });
    const ctl = new AbortController();
    const crash = new Error("reconciler crashed", { cause: new TypeError("spec is undefined") });
    const run = elector.run(ctl.signal, () => Promise.reject(crash));
    await clock.advance(1_000);
    const work = loggedError(lines, "leader work failed");
    expect(work.stack).toContain("Error: reconciler crashed\n    at ");
    expect(work.stack).toContain("caused by: TypeError: spec is undefined\n    at ");
    store.broken.add("a");
    await clock.advance(5_000);
    expect(loggedError(lines, "lease request failed").stack).toContain("Error: connection refused\n    at ");
    ctl.abort();
    await run;
    expect(loggedError(lines, "could not release the lease").stack).toContain(
      "Error: connection refused\n    at ",
    );
  });
});
