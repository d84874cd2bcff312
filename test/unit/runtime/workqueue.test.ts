import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { METRIC } from "../../../src/runtime/metrics.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { ItemExponentialFailureRateLimiter } from "../../../src/runtime/rate-limiter.js";
import { WorkQueue } from "../../../src/runtime/workqueue.js";

function setup(): { clock: FakeClock; q: WorkQueue; metrics: InMemoryMetrics } {
  const clock = new FakeClock(1_000_000);
  const metrics = new InMemoryMetrics();
  const q = new WorkQueue({
    name: "test",
    clock,
    metrics,
    rateLimiter: new ItemExponentialFailureRateLimiter(10, 1000),
  });
  return { clock, q, metrics };
}

/** Takes a key the queue has ready now (fails if it would wait). */
async function take(q: WorkQueue): Promise<string | undefined> {
  const got: { key?: string | undefined; done: boolean } = { done: false };
  void q.get().then((key) => {
    got.key = key;
    got.done = true;
  });
  await flushPromises();
  if (!got.done) throw new Error("nothing ready");
  return got.key;
}

describe("WorkQueue", () => {
  test("hands keys out in FIFO order", async () => {
    const { q } = setup();
    q.add("a");
    q.add("b");
    q.add("c");
    expect(await take(q)).toBe("a");
    expect(await take(q)).toBe("b");
    expect(await take(q)).toBe("c");
  });

  test("de-duplicates a key added while queued", async () => {
    const { q, metrics } = setup();
    q.add("a");
    q.add("b");
    q.add("a");
    expect(q.length).toBe(2);
    expect(await take(q)).toBe("a");
    expect(await take(q)).toBe("b");
    expect(q.length).toBe(0);
    expect(metrics.get(METRIC.workqueueAdds, { name: "test" })).toBe(2);
  });

  test("a get waiting on an empty queue receives the next add", async () => {
    const { q } = setup();
    const next = q.get();
    q.add("x");
    await expect(next).resolves.toBe("x");
  });

  test("never hands one key to two workers; an add while processing comes back after done", async () => {
    const { q } = setup();
    q.add("a");
    expect(await take(q)).toBe("a");
    q.add("a");
    q.add("a");
    expect(q.length).toBe(0); // not handed out again while in flight
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await flushPromises();
    expect(second).toBeUndefined();
    q.done("a");
    await flushPromises();
    expect(second).toBe("a");
    q.done("a");
    expect(q.length).toBe(0); // the two adds were one
  });

  test("other keys are served while one is in flight", async () => {
    const { q } = setup();
    q.add("a");
    q.add("b");
    expect(await take(q)).toBe("a");
    q.add("a");
    expect(await take(q)).toBe("b");
    q.done("a");
    expect(await take(q)).toBe("a");
  });

  test("done for a key that is not in flight does nothing", () => {
    const { q } = setup();
    q.add("a");
    q.done("a");
    expect(q.length).toBe(1);
    expect(q.inFlight).toBe(0);
  });

  test("addAfter waits, and the earliest pending time wins", async () => {
    const { q, clock } = setup();
    q.addAfter("a", 1000);
    q.addAfter("a", 300);
    q.addAfter("a", 5000);
    expect(q.delayed).toBe(1);
    await clock.advance(299);
    expect(q.length).toBe(0);
    await clock.advance(1);
    expect(q.length).toBe(1);
    await clock.advance(10_000);
    expect(q.length).toBe(1);
  });

  test("delayed keys share one timer and come out in due order, however many there are", async () => {
    const { q, clock } = setup();
    const n = 10_000;
    // Added in a scrambled order: key k is due after (k + 1) ms.
    for (let i = 0; i < n; i++) {
      const k = (i * 7919) % n;
      q.addAfter(`k${k}`, k + 1);
    }
    expect(q.delayed).toBe(n);
    expect(clock.timers).toBe(1);
    const order: string[] = [];
    for (let t = 0; t < n; t++) {
      await clock.advance(1);
      const key = await take(q);
      if (key !== undefined) order.push(key);
      if (key !== undefined) q.done(key);
    }
    expect(order).toEqual(Array.from({ length: n }, (_, k) => `k${k}`));
    expect(q.delayed).toBe(0);
    expect(clock.timers).toBe(0);
  });

  test("a key due beyond the longest Node timer waits for it without spinning", async () => {
    const { q, clock } = setup();
    const month = 30 * 24 * 3600_000;
    q.addAfter("a", month);
    await clock.advance(2 ** 31 - 1);
    // The timer woke the queue early: the key is still delayed, behind one re-armed timer.
    expect(q.length).toBe(0);
    expect(clock.timers).toBe(1);
    await clock.advance(month - (2 ** 31 - 1));
    expect(q.length).toBe(1);
  });

  test("addAfter with no delay adds at once", () => {
    const { q } = setup();
    q.addAfter("a", 0);
    expect(q.length).toBe(1);
  });

  test("addRateLimited backs off per key; forget resets", async () => {
    const { q, clock, metrics } = setup();
    q.addRateLimited("a"); // 10 ms
    await clock.advance(10);
    expect(await take(q)).toBe("a");
    q.done("a");
    q.addRateLimited("a"); // 20 ms
    await clock.advance(19);
    expect(q.length).toBe(0);
    await clock.advance(1);
    expect(q.length).toBe(1);
    expect(q.numRequeues("a")).toBe(2);
    q.forget("a");
    expect(q.numRequeues("a")).toBe(0);
    expect(metrics.get(METRIC.workqueueRetries, { name: "test" })).toBe(2);
  });

  test("shutDown wakes waiting workers with undefined and drops queued and delayed keys", async () => {
    const { q, clock } = setup();
    const waiting = q.get();
    q.shutDown();
    await expect(waiting).resolves.toBeUndefined();
    const q2 = setup();
    q2.q.add("a");
    q2.q.addAfter("b", 100);
    q2.q.shutDown();
    expect(q2.q.length).toBe(0);
    expect(q2.q.delayed).toBe(0);
    await expect(q2.q.get()).resolves.toBeUndefined();
    q2.q.add("c");
    q2.q.addRateLimited("d");
    expect(q2.q.length).toBe(0);
    expect(clock.timers).toBe(0);
  });

  test("drained waits for in-flight keys after shutDown, and they are not requeued", async () => {
    const { q } = setup();
    q.add("a");
    expect(await take(q)).toBe("a");
    q.add("a");
    q.shutDown();
    let drained = false;
    void q.drained().then(() => (drained = true));
    await flushPromises();
    expect(drained).toBe(false);
    q.done("a");
    await flushPromises();
    expect(drained).toBe(true);
    expect(q.length).toBe(0);
    await expect(q.drained()).resolves.toBeUndefined();
  });

  test("records depth, latency and work duration", async () => {
    const { q, clock, metrics } = setup();
    q.add("a");
    q.add("b");
    expect(metrics.get(METRIC.workqueueDepth, { name: "test" })).toBe(2);
    await clock.advance(500);
    expect(await take(q)).toBe("a");
    await clock.advance(250);
    q.done("a");
    expect(metrics.get(METRIC.workqueueDepth, { name: "test" })).toBe(1);
    expect(metrics.get(METRIC.workqueueLatency, { name: "test" })).toEqual({ count: 1, sum: 0.5, max: 0.5 });
    expect(metrics.get(METRIC.workqueueWorkDuration, { name: "test" })).toEqual({
      count: 1,
      sum: 0.25,
      max: 0.25,
    });
  });

  test("many workers, many adds: each key processed by one worker at a time and the last add is seen", async () => {
    const { q } = setup();
    const active = new Set<string>();
    const processed: string[] = [];
    let overlap = false;
    const worker = async (): Promise<void> => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (active.has(key)) overlap = true;
        active.add(key);
        await flushPromises();
        processed.push(key);
        active.delete(key);
        q.done(key);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    for (let i = 0; i < 200; i++) q.add(`k${i % 5}`);
    await flushPromises();
    for (let i = 0; i < 5; i++) q.add(`k${i}`);
    for (let n = 0; n < 20 && (q.length > 0 || q.inFlight > 0); n++) await flushPromises();
    q.shutDown();
    await Promise.all(workers);
    expect(overlap).toBe(false);
    for (let i = 0; i < 5; i++)
      expect(processed.filter((k) => k === `k${i}`).length).toBeGreaterThanOrEqual(1);
    expect(processed.length).toBeLessThanOrEqual(10);
  });
});
