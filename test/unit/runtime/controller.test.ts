import type { KubernetesObject } from "@kubernetes/client-node";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { Controller, type ReconcileResult, type Request } from "../../../src/runtime/controller.js";
import { Informer } from "../../../src/runtime/informer.js";
import { objectKey } from "../../../src/runtime/store.js";
import { METRIC } from "../../../src/runtime/metrics.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { ItemExponentialFailureRateLimiter } from "../../../src/runtime/rate-limiter.js";
import { FakeListWatch, obj } from "./fake-list-watch.js";

function informerWith(items: KubernetesObject[], clock: FakeClock) {
  const lw = new FakeListWatch();
  lw.next = () => ({ items, resourceVersion: "100" });
  const informer = new Informer<KubernetesObject>({
    name: "things",
    listWatch: lw,
    clock,
    decode: (raw) => raw,
  });
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  return { lw, informer, stop: () => (ctl.abort(), running) };
}

const key = (r: Request): string => `${r.namespace ?? ""}/${r.name}`;

/** A controller that only records the keys it reconciles, in order. */
function recording(clock: FakeClock): { seen: string[]; controller: Controller } {
  const seen: string[] = [];
  const controller = new Controller({
    name: "c",
    clock,
    reconcile: (req) => {
      seen.push(key(req));
      return Promise.resolve(undefined);
    },
  });
  return { seen, controller };
}

describe("Controller", () => {
  test("a term starts with every cached object queued, then follows events", async () => {
    const clock = new FakeClock();
    const src = informerWith([obj("a", "1"), obj("b", "2")], clock);
    const { seen, controller } = recording(clock);
    const c = controller.watchPrimary(src.informer);
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await flushPromises();
    expect(seen.sort()).toEqual(["ns/a", "ns/b"]);
    src.lw.current.emit({ type: "MODIFIED", object: obj("a", "3") });
    src.lw.current.emit({ type: "DELETED", object: obj("b", "4") });
    await flushPromises();
    expect(seen.slice(2)).toEqual(["ns/a", "ns/b"]);
    expect(c.running).toBe(true);
    ctl.abort();
    await run;
    expect(c.running).toBe(false);
    await src.stop();
  });

  test("errors requeue with per-key backoff; success forgets it", async () => {
    const clock = new FakeClock();
    const src = informerWith([obj("a", "1")], clock);
    const times: number[] = [];
    const metrics = new InMemoryMetrics();
    let failures = 3;
    const retriesSeen: number[] = [];
    const c = new Controller({
      name: "c",
      clock,
      metrics,
      rateLimiter: () => new ItemExponentialFailureRateLimiter(100, 10_000),
      reconcile: (_req, ctx) => {
        times.push(clock.now());
        retriesSeen.push(ctx.retries);
        return failures-- > 0 ? Promise.reject(new Error("conflict")) : Promise.resolve(undefined);
      },
    }).watchPrimary(src.informer);
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await clock.advance(10_000);
    expect(times).toEqual([0, 100, 300, 700]);
    expect(retriesSeen).toEqual([0, 1, 2, 3]);
    expect(metrics.get(METRIC.reconcileErrors, { controller: "c" })).toBe(3);
    expect(metrics.get(METRIC.reconcileTotal, { controller: "c", result: "success" })).toBe(1);
    ctl.abort();
    await run;
    await src.stop();
  });

  test("requeueAfterMs reconciles again after that delay; requeue uses the backoff", async () => {
    const clock = new FakeClock();
    const src = informerWith([obj("a", "1"), obj("b", "1")], clock);
    const calls: string[] = [];
    const results: Record<string, ReconcileResult[]> = {
      "ns/a": [{ requeueAfterMs: 5_000 }, {}],
      "ns/b": [{ requeue: true }, { requeue: true }, {}],
    };
    const c = new Controller({
      name: "c",
      clock,
      concurrency: 2,
      rateLimiter: () => new ItemExponentialFailureRateLimiter(10, 10_000),
      reconcile: (req) => {
        calls.push(`${key(req)}@${clock.now()}`);
        return Promise.resolve(results[key(req)]?.shift());
      },
    }).watchPrimary(src.informer);
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await clock.advance(60_000);
    expect(calls.sort()).toEqual(["ns/a@0", "ns/a@5000", "ns/b@0", "ns/b@10", "ns/b@30"].sort());
    ctl.abort();
    await run;
    await src.stop();
  });

  test("concurrency: different keys in parallel, never one key twice at a time", async () => {
    const clock = new FakeClock();
    const src = informerWith(
      Array.from({ length: 6 }, (_, i) => obj(`o${i}`, "1")),
      clock,
    );
    let active = 0;
    let maxActive = 0;
    const activeKeys = new Set<string>();
    let overlap = false;
    const c = new Controller({
      name: "c",
      clock,
      concurrency: 3,
      reconcile: async (req) => {
        const k = key(req);
        if (activeKeys.has(k)) overlap = true;
        activeKeys.add(k);
        maxActive = Math.max(maxActive, ++active);
        await new Promise<void>((resolve) => clock.setTimer(resolve, 1000));
        active--;
        activeKeys.delete(k);
        return undefined;
      },
    }).watchPrimary(src.informer);
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await flushPromises();
    // Events for a key in flight are held back until it is done.
    for (let i = 0; i < 5; i++) src.lw.current.emit({ type: "MODIFIED", object: obj("o0", String(10 + i)) });
    await clock.advance(10_000);
    expect(maxActive).toBe(3);
    expect(overlap).toBe(false);
    ctl.abort();
    await run;
    await src.stop();
  });

  test("stopping aborts the reconcile's signal, waits for it, and starts nothing new", async () => {
    const clock = new FakeClock();
    const src = informerWith([obj("a", "1"), obj("b", "1")], clock);
    const started: string[] = [];
    let sawAbort = false;
    const c = new Controller({
      name: "c",
      clock,
      reconcile: async (req, ctx) => {
        started.push(key(req));
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve();
          });
        });
        return undefined;
      },
    }).watchPrimary(src.informer);
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await flushPromises();
    expect(started.length).toBe(1);
    ctl.abort();
    await run;
    expect(sawAbort).toBe(true);
    expect(started.length).toBe(1);
    // Enqueue while stopped is ignored; a new term starts from the cache again.
    c.enqueue("ns/a");
    const ctl2 = new AbortController();
    const run2 = c.run(ctl2.signal);
    await flushPromises();
    expect(started.length).toBe(2);
    await expect(c.run(ctl2.signal)).rejects.toThrow(/already running/);
    ctl2.abort();
    await run2;
    await src.stop();
  });

  test("secondary objects are mapped to primary keys, old and new owner alike; a filter can drop updates", async () => {
    const clock = new FakeClock();
    const primary = informerWith([obj("group-1", "1"), obj("group-2", "1")], clock);
    const targets = informerWith([], clock);
    const owner = (o: KubernetesObject): string[] => {
      const g = o.metadata?.labels?.group;
      return g ? [`ns/${g}`] : [];
    };
    const { seen, controller } = recording(clock);
    const c = controller
      .watchPrimary(primary.informer, (o, n) => o.metadata?.resourceVersion !== n.metadata?.resourceVersion)
      .watchMapped(targets.informer, owner);
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await flushPromises();
    seen.length = 0;
    const target = (rv: string, group: string): KubernetesObject => ({
      metadata: { namespace: "ns", name: "web", resourceVersion: rv, labels: { group } },
    });
    targets.lw.current.emit({ type: "ADDED", object: target("2", "group-1") });
    await flushPromises();
    targets.lw.current.emit({ type: "MODIFIED", object: target("3", "group-2") });
    await flushPromises();
    expect(seen).toEqual(["ns/group-1", "ns/group-1", "ns/group-2"]);
    seen.length = 0;
    primary.lw.current.emit({ type: "MODIFIED", object: obj("group-1", "1") });
    await flushPromises();
    expect(seen).toEqual([]);
    ctl.abort();
    await run;
    await Promise.all([primary.stop(), targets.stop()]);
  });

  test("skipInitialList: the objects cached at start are not mapped; one added later is", async () => {
    const clock = new FakeClock();
    const target = (name: string, rv: string, group: string): KubernetesObject => ({
      metadata: { namespace: "ns", name, resourceVersion: rv, labels: { group } },
    });
    const targets = informerWith([target("web", "1", "group-1")], clock);
    const mapped: string[] = [];
    const owner = (o: KubernetesObject): string[] => {
      mapped.push(objectKey(o));
      return [`ns/${o.metadata?.labels?.group ?? ""}`];
    };
    const { seen, controller } = recording(clock);
    const c = controller.watchMapped(targets.informer, owner, undefined, undefined, {
      skipInitialList: true,
    });
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await flushPromises();
    expect(mapped).toEqual([]);
    expect(seen).toEqual([]);
    targets.lw.current.emit({ type: "ADDED", object: target("db", "2", "group-2") });
    targets.lw.current.emit({ type: "MODIFIED", object: target("web", "3", "group-1") });
    await flushPromises();
    expect(mapped).toEqual(["ns/db", "ns/web", "ns/web"]);
    expect(seen.sort()).toEqual(["ns/group-1", "ns/group-2"]);
    ctl.abort();
    await run;
    await targets.stop();
  });

  test("a schedule queues each object for when it is due, or never; a deletion at once", async () => {
    const clock = new FakeClock();
    // data.due: ms from now; "never": no reconcile.
    const src = informerWith(
      [
        obj("soon", "1", { due: "100" }),
        obj("later", "2", { due: "5000" }),
        obj("kept", "3", { due: "never" }),
      ],
      clock,
    );
    const seen: string[] = [];
    const c = new Controller({
      name: "c",
      clock,
      reconcile: (req) => {
        seen.push(`${req.name}@${clock.now()}`);
        return Promise.resolve(undefined);
      },
    }).watchPrimary(src.informer, undefined, (k) => {
      const due = (src.informer.lister.get(k) as { data?: Record<string, string> } | undefined)?.data?.due;
      return due === undefined || due === "never" ? undefined : Number(due);
    });
    const ctl = new AbortController();
    const run = c.run(ctl.signal);
    await flushPromises();
    expect(seen).toEqual([]);
    await clock.advance(1000);
    expect(seen).toEqual(["soon@100"]);
    src.lw.current.emit({ type: "DELETED", object: obj("kept", "4", { due: "never" }) });
    await flushPromises();
    expect(seen).toEqual(["soon@100", "kept@1000"]);
    await clock.advance(5000);
    expect(seen).toEqual(["soon@100", "kept@1000", "later@5000"]);
    ctl.abort();
    await run;
    await src.stop();
  });

  test("concurrency must be a positive integer", () => {
    expect(
      () => new Controller({ name: "c", concurrency: 0, reconcile: () => Promise.resolve(undefined) }),
    ).toThrow();
  });
});
