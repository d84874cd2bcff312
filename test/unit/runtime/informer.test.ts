import type { KubernetesObject } from "@kubernetes/client-node";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { Informer, REPLAY_CHUNK } from "../../../src/runtime/informer.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import type { ListResult } from "../../../src/runtime/list-watch.js";
import { METRIC } from "../../../src/runtime/metrics.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { objectKey } from "../../../src/runtime/store.js";
import { FakeListWatch, obj } from "./fake-list-watch.js";

interface Recorded {
  type: "add" | "update" | "delete";
  key: string;
  rv: string | undefined;
}

function setup(options: { resyncPeriodMs?: number; initial?: () => ListResult } = {}) {
  const clock = new FakeClock();
  const lw = new FakeListWatch();
  if (options.initial) lw.next = options.initial;
  const metrics = new InMemoryMetrics();
  const informer = new Informer<KubernetesObject>({
    name: "cms",
    listWatch: lw,
    decode: (raw) => raw,
    clock,
    metrics,
    backoff: { initialMs: 800, maxMs: 30_000, factor: 2, jitter: 0 },
    minWatchTimeoutSeconds: 300,
    resyncPeriodMs: options.resyncPeriodMs,
  });
  const events: Recorded[] = [];
  const rec = (type: Recorded["type"]) => (o: KubernetesObject) => {
    events.push({ type, key: objectKey(o), rv: o.metadata?.resourceVersion });
  };
  informer.addEventHandler({
    onAdd: rec("add"),
    onUpdate: (_o, n) => {
      rec("update")(n);
    },
    onDelete: rec("delete"),
  });
  const ctl = new AbortController();
  const running = informer.run(ctl.signal);
  return { clock, lw, informer, events, ctl, running, metrics };
}

const gone = (): ApiError => new ApiError(410, "Expired", "too old resource version");

describe("Informer", () => {
  test("lists, then watches from the list's resourceVersion with a randomised server timeout", async () => {
    const { lw, informer, events, ctl, running } = setup({
      initial: () => ({ items: [obj("a", "5"), obj("b", "6")], resourceVersion: "10" }),
    });
    await flushPromises();
    expect(informer.hasSynced()).toBe(true);
    expect(events).toEqual([
      { type: "add", key: "ns/a", rv: "5" },
      { type: "add", key: "ns/b", rv: "6" },
    ]);
    expect(lw.current.options.resourceVersion).toBe("10");
    expect(lw.current.options.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(lw.current.options.timeoutSeconds).toBeLessThan(600);
    ctl.abort();
    await running;
  });

  test("applies watch events to the cache and handlers; bookmarks only move the resourceVersion", async () => {
    const { lw, informer, events, ctl, running } = setup();
    await flushPromises();
    const w = lw.current;
    w.emit({ type: "ADDED", object: obj("a", "2") });
    w.emit({ type: "MODIFIED", object: obj("a", "3", { k: "v" }) });
    w.emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "7" } } });
    w.emit({ type: "DELETED", object: obj("a", "8") });
    expect(events.map((e) => `${e.type}:${e.key}@${e.rv}`)).toEqual([
      "add:ns/a@2",
      "update:ns/a@3",
      "delete:ns/a@8",
    ]);
    expect(informer.lister.list()).toEqual([]);
    expect(informer.lastSyncResourceVersion).toBe("8");
    ctl.abort();
    await running;
  });

  test("a failed watch is restarted after a backoff from the last resourceVersion, without a relist", async () => {
    const { lw, clock, events, ctl, running, metrics } = setup();
    await flushPromises();
    lw.current.emit({ type: "ADDED", object: obj("a", "2") });
    lw.current.fail(new Error("socket hang up"));
    await flushPromises();
    expect(lw.watches.length).toBe(1);
    await clock.advance(799);
    expect(lw.watches.length).toBe(1);
    await clock.advance(1);
    expect(lw.watches.length).toBe(2);
    expect(lw.current.options.resourceVersion).toBe("2");
    expect(lw.lists).toBe(1);
    // Failures in a row back off longer: 1.6 s.
    lw.current.fail(new ApiError(500, "InternalError", "etcd down"));
    await clock.advance(1599);
    expect(lw.watches.length).toBe(2);
    await clock.advance(1);
    expect(lw.watches.length).toBe(3);
    lw.current.emit({ type: "MODIFIED", object: obj("a", "9") });
    expect(events.at(-1)).toEqual({ type: "update", key: "ns/a", rv: "9" });
    expect(metrics.get(METRIC.informerWatchRestarts, { name: "cms" })).toBe(2);
    ctl.abort();
    await running;
  });

  test("a watch the server ends normally is re-opened at once from the last resourceVersion", async () => {
    const { lw, clock, ctl, running } = setup();
    await flushPromises();
    await clock.advance(300_000);
    lw.current.emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "42" } } });
    lw.current.end();
    await flushPromises();
    expect(lw.watches.length).toBe(2);
    expect(lw.current.options.resourceVersion).toBe("42");
    ctl.abort();
    await running;
  });

  test("a watch that closes right after opening, with nothing delivered, backs off", async () => {
    const { lw, clock, ctl, running } = setup();
    await flushPromises();
    lw.current.end();
    await flushPromises();
    expect(lw.watches.length).toBe(1);
    await clock.advance(800);
    expect(lw.watches.length).toBe(2);
    ctl.abort();
    await running;
  });

  test("410 Gone relists and delivers the difference: adds, updates, deletes; unchanged objects stay quiet", async () => {
    const { lw, events, ctl, running, metrics } = setup({
      initial: () => ({
        items: [obj("keep", "1"), obj("change", "2"), obj("remove", "3")],
        resourceVersion: "3",
      }),
    });
    await flushPromises();
    events.length = 0;
    lw.current.emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "4" } } });
    lw.next = () => ({
      items: [obj("keep", "1"), obj("change", "20"), obj("new", "21")],
      resourceVersion: "22",
    });
    lw.current.fail(gone());
    await flushPromises();
    expect(lw.lists).toBe(2);
    expect(events).toEqual([
      { type: "update", key: "ns/change", rv: "20" },
      { type: "add", key: "ns/new", rv: "21" },
      { type: "delete", key: "ns/remove", rv: "3" },
    ]);
    expect(lw.current.options.resourceVersion).toBe("22");
    expect(metrics.get(METRIC.informerRelists, { name: "cms" })).toBe(1);
    ctl.abort();
    await running;
  });

  test("410 right after a relist backs off instead of spinning", async () => {
    const { lw, clock, ctl, running } = setup();
    await flushPromises();
    lw.current.emit({ type: "ADDED", object: obj("a", "2") });
    lw.current.fail(gone());
    await flushPromises();
    expect(lw.lists).toBe(2);
    lw.current.fail(gone());
    await flushPromises();
    expect(lw.lists).toBe(2);
    await clock.advance(800);
    expect(lw.lists).toBe(3);
    ctl.abort();
    await running;
  });

  test("a failing list is retried with backoff and the informer is not synced meanwhile", async () => {
    const { lw, clock, informer, ctl, running } = setup({
      initial: () => {
        throw new Error("connection refused");
      },
    });
    await flushPromises();
    expect(informer.hasSynced()).toBe(false);
    let synced: boolean | undefined;
    void informer.waitForSync(ctl.signal).then((s) => (synced = s));
    lw.next = () => ({ items: [obj("a", "1")], resourceVersion: "1" });
    await clock.advance(800);
    expect(lw.lists).toBe(2);
    expect(synced).toBe(true);
    ctl.abort();
    await running;
  });

  test("waitForSync gives false when aborted before the sync", async () => {
    const lw = new FakeListWatch();
    const informer = new Informer({ name: "x", listWatch: lw, decode: (raw) => raw });
    const ctl = new AbortController();
    const waiting = informer.waitForSync(ctl.signal);
    ctl.abort();
    await expect(waiting).resolves.toBe(false);
  });

  test("resync re-delivers every cached object as an update", async () => {
    const { clock, events, ctl, running } = setup({
      resyncPeriodMs: 60_000,
      initial: () => ({ items: [obj("a", "1"), obj("b", "2")], resourceVersion: "2" }),
    });
    await flushPromises();
    events.length = 0;
    await clock.advance(60_000);
    expect(events.map((e) => `${e.type}:${e.key}`)).toEqual(["update:ns/a", "update:ns/b"]);
    ctl.abort();
    await running;
  });

  test("adds say whether the object was in the initial list: the first list and a replay yes, later ones no", async () => {
    const clock = new FakeClock();
    const lw = new FakeListWatch();
    let items = [obj("a", "1")];
    lw.next = () => ({ items, resourceVersion: "1" });
    const informer = new Informer<KubernetesObject>({
      name: "x",
      listWatch: lw,
      decode: (raw) => raw,
      clock,
    });
    const early: string[] = [];
    informer.addEventHandler({ onAdd: (o, initial) => early.push(`${objectKey(o)}:${initial}`) });
    const ctl = new AbortController();
    const running = informer.run(ctl.signal);
    await flushPromises();
    const late: string[] = [];
    informer.addEventHandler({ onAdd: (o, initial) => late.push(`${objectKey(o)}:${initial}`) });
    lw.current.emit({ type: "ADDED", object: obj("b", "2") });
    // A relist (the watch expired) that finds a new object: an add, not of the initial list.
    items = [obj("a", "1"), obj("b", "2"), obj("c", "3")];
    lw.current.fail(gone());
    await flushPromises();
    expect(early).toEqual(["ns/a:true", "ns/b:false", "ns/c:false"]);
    expect(late).toEqual(["ns/a:true", "ns/b:false", "ns/c:false"]);
    ctl.abort();
    await running;
  });

  test("a resync of a big cache goes a chunk per turn of the event loop, and stops with the informer", async () => {
    const n = REPLAY_CHUNK * 3;
    const { clock, informer, ctl, running } = setup({
      resyncPeriodMs: 60_000,
      initial: () => ({
        items: Array.from({ length: n }, (_, i) => obj(`o${i}`, "1")),
        resourceVersion: "1",
      }),
    });
    await flushPromises();
    let updates = 0;
    let atSecondTurn: number | undefined;
    informer.addEventHandler({
      onUpdate: () => {
        // Another task queued during the first chunk runs before the second: the loop is free between
        // chunks (for a REST call, a lease renewal).
        if (updates++ === 0)
          setImmediate(() => {
            atSecondTurn = updates;
          });
        // Stopped mid-resync: nothing more is delivered.
        if (updates === REPLAY_CHUNK * 2) ctl.abort();
      },
    });
    for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    await clock.advance(60_000);
    for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(atSecondTurn).toBe(REPLAY_CHUNK);
    expect(updates).toBe(REPLAY_CHUNK * 2);
    await running;
  });

  test("a handler added after the sync first sees every cached object as an add; removal stops delivery", async () => {
    const { lw, informer, ctl, running } = setup({
      initial: () => ({ items: [obj("a", "1")], resourceVersion: "1" }),
    });
    await flushPromises();
    const seen: string[] = [];
    const remove = informer.addEventHandler({ onAdd: (o) => seen.push(objectKey(o)) });
    expect(seen).toEqual(["ns/a"]);
    remove();
    lw.current.emit({ type: "ADDED", object: obj("b", "2") });
    expect(seen).toEqual(["ns/a"]);
    ctl.abort();
    await running;
  });

  test("a late handler gets a big cache a chunk per turn of the event loop, each object as it is then", async () => {
    const n = REPLAY_CHUNK * 2 + 2;
    const { lw, informer, ctl, running } = setup({
      initial: () => ({
        items: Array.from({ length: n }, (_, i) => obj(`o${i}`, "1")),
        resourceVersion: "1",
      }),
    });
    await flushPromises();
    const seen = new Map<string, string | undefined>();
    const remove = informer.addEventHandler({
      onAdd: (o) => seen.set(objectKey(o), o.metadata?.resourceVersion),
      onUpdate: (_old, o) => seen.set(objectKey(o), o.metadata?.resourceVersion),
    });
    // The first chunk at once: a controller taking over can start on it.
    expect(seen.size).toBe(REPLAY_CHUNK);
    // Changes before their turn: the add carries the newer state; a deleted object is not delivered.
    lw.current.emit({ type: "MODIFIED", object: obj(`o${n - 2}`, "7") });
    lw.current.emit({ type: "DELETED", object: obj(`o${n - 1}`, "1") });
    // Created meanwhile: delivered by its event (and maybe again by the replay), never lost.
    lw.current.emit({ type: "ADDED", object: obj("new", "8") });
    expect(seen.get("ns/new")).toBe("8");
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.size).toBe(REPLAY_CHUNK * 2 + 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.size).toBe(n);
    expect(seen.get(`ns/o${n - 2}`)).toBe("7");
    expect(seen.has(`ns/o${n - 1}`)).toBe(false);
    // Removed mid-replay: nothing more arrives.
    const late: string[] = [];
    const stop = informer.addEventHandler({ onAdd: (o) => late.push(objectKey(o)) });
    stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(late).toHaveLength(REPLAY_CHUNK);
    remove();
    ctl.abort();
    await running;
  });

  test("a throwing handler does not stop the others or the informer; undecodable objects are skipped", async () => {
    const clock = new FakeClock();
    const lw = new FakeListWatch();
    const informer = new Informer<KubernetesObject>({
      name: "x",
      listWatch: lw,
      clock,
      decode: (raw) => {
        if (raw.metadata?.name === "bad") throw new Error("invalid");
        return raw;
      },
    });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: () => {
        throw new Error("boom");
      },
    });
    informer.addEventHandler({ onAdd: (o) => seen.push(objectKey(o)) });
    const ctl = new AbortController();
    const running = informer.run(ctl.signal);
    await flushPromises();
    lw.current.emit({ type: "ADDED", object: obj("bad", "2") });
    lw.current.emit({ type: "ADDED", object: obj("good", "3") });
    expect(seen).toEqual(["ns/good"]);
    expect(informer.lister.keys()).toEqual(["ns/good"]);
    await expect(informer.run(ctl.signal)).rejects.toThrow(/already running/);
    ctl.abort();
    await running;
  });
  test("listed objects are decoded as the list delivers them; undecodable ones are skipped", async () => {
    const lw = new FakeListWatch();
    lw.next = () => ({ items: [obj("bad", "2"), obj("good", "3")], resourceVersion: "5" });
    const decoded: string[] = [];
    const informer = new Informer<KubernetesObject>({
      name: "x",
      listWatch: lw,
      decode: (raw) => {
        decoded.push(raw.metadata?.name ?? "");
        if (raw.metadata?.name === "bad") throw new Error("invalid");
        return raw;
      },
    });
    const ctl = new AbortController();
    const running = informer.run(ctl.signal);
    await flushPromises();
    expect(decoded).toEqual(["bad", "good"]);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.lister.keys()).toEqual(["ns/good"]);
    ctl.abort();
    await running;
  });
});
