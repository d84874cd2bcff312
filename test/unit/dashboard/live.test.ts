// The live hub's relay (one per informer: adds and updates become upserts, deletions deletes unless
// turned off), its connections (each message only to whom visibility.ts shows it; each connection
// following its session) and the capacity history recorded beside it from the group informer.
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { pino } from "pino";
import type { FutureReservation } from "../../../src/api/future-reservation.js";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { DashboardAuthz } from "../../../src/dashboard/authz.js";
import { bookingSummary } from "../../../src/dashboard/bookings-view.js";
import type { KubeEvent } from "../../../src/events/view.js";
import { CapacityHistory, recordCapacity } from "../../../src/dashboard/capacity-history.js";
import { LiveHub, type SessionCheck, type StreamMessage } from "../../../src/dashboard/sse.js";
import { Authorizer, type UserInfo } from "../../../src/rest/auth.js";
import { Informer } from "../../../src/runtime/informer.js";
import type { KubeObject } from "../../../src/runtime/object.js";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { FakeKube } from "../../support/fake-kube.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { onCluster, reviewingCluster } from "../../support/reviewing-cluster.js";
import { FakeListWatch, obj } from "../runtime/fake-list-watch.js";

/** A running informer over a scripted list-watch, decoding raw objects with `decode`. */
async function informer<T extends KubeObject>(decode: (raw: KubeObject) => T, clock = new FakeClock()) {
  const lw = new FakeListWatch();
  const inf = new Informer<T>({
    name: "test",
    listWatch: lw,
    decode,
    clock,
    metrics: new InMemoryMetrics(),
    backoff: { initialMs: 800, maxMs: 30_000, factor: 2, jitter: 0 },
    minWatchTimeoutSeconds: 300,
  });
  const ctl = new AbortController();
  const running = inf.run(ctl.signal);
  await flushPromises();
  return {
    inf,
    watch: () => lw.current,
    stop: async () => {
      ctl.abort();
      await running;
    },
  };
}

/** A hub that records what it publishes (publish is what a relay calls; no connection needed). */
class RecordingHub extends LiveHub {
  readonly sent: StreamMessage[] = [];

  constructor() {
    super(new DashboardAuthz(new Authorizer(new FakeKube())), pino({ level: "silent" }));
  }

  override publish(message: StreamMessage): void {
    this.sent.push(message);
  }
}

test.each([
  { deletes: undefined, expected: ["upsert a 1", "upsert a 2", "delete a 3"] },
  { deletes: false, expected: ["upsert a 1", "upsert a 2"] },
])("relay (deletes: $deletes): $expected", async ({ deletes, expected }) => {
  const { inf, watch, stop } = await informer((raw) => raw);
  const hub = new RecordingHub();
  const sent = hub.sent;
  hub.relay(inf, {
    type: "event",
    summary: (o) => `${o.metadata?.name ?? ""} ${o.metadata?.resourceVersion ?? ""}`,
    ...(deletes !== undefined && { deletes }),
  });
  watch().emit({ type: "ADDED", object: obj("a", "1", {}, "team-a") });
  watch().emit({ type: "MODIFIED", object: obj("a", "2", {}, "team-a") });
  watch().emit({ type: "DELETED", object: obj("a", "3", {}, "team-a") });
  await flushPromises();
  expect(sent.map((m) => `${m.op} ${String(m.data)}`)).toEqual(expected);
  expect(new Set(sent.map((m) => `${m.type} ${m.namespace}`))).toEqual(new Set(["event team-a"]));
  hub.close();
  watch().emit({ type: "ADDED", object: obj("b", "4", {}, "team-a") });
  await flushPromises();
  expect(sent).toHaveLength(expected.length);
  await stop();
});

test("watch relays the shared FutureReservation informer's changes as 'booking' summaries", async () => {
  const requests = await informer((raw) => raw as unknown as ResizeRequest);
  const groups = await informer((raw) => raw as unknown as InstanceGroupManager);
  const events = await informer((raw) => raw as unknown as KubeEvent);
  const bookings = await informer((raw) => raw as unknown as FutureReservation);
  const hub = new RecordingHub();
  hub.watch(requests.inf, groups.inf, events.inf, bookings.inf);
  const booking = (rv: string, status: string) => ({
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "FutureReservation",
    metadata: { name: "week", namespace: "team-a", resourceVersion: rv },
    spec: {
      instanceGroupManager: "gpu",
      totalCount: 2,
      timeWindow: { startTime: "2030-01-01T09:00:00Z", duration: { seconds: "60" } },
      cancel: status === "CANCELLED",
    },
    status: { procurementStatus: status },
  });
  bookings.watch().emit({ type: "ADDED", object: booking("1", "APPROVED") });
  bookings.watch().emit({ type: "MODIFIED", object: booking("2", "CANCELLED") });
  bookings.watch().emit({ type: "DELETED", object: booking("3", "CANCELLED") });
  await flushPromises();
  expect(hub.sent).toEqual([
    {
      type: "booking",
      op: "upsert",
      namespace: "team-a",
      data: bookingSummary(booking("1", "APPROVED") as FutureReservation),
    },
    {
      type: "booking",
      op: "upsert",
      namespace: "team-a",
      data: bookingSummary(booking("2", "CANCELLED") as FutureReservation),
    },
    {
      type: "booking",
      op: "delete",
      namespace: "team-a",
      data: bookingSummary(booking("3", "CANCELLED") as FutureReservation),
    },
  ]);
  expect(hub.sent.map((m) => (m.data as { status: string }).status)).toEqual([
    "APPROVED",
    "CANCELLED",
    "CANCELLED",
  ]);
  hub.close();
  await Promise.all([requests.stop(), groups.stop(), events.stop(), bookings.stop()]);
});

test("the capacity history records a point per change of a group, and forgets a deleted group", async () => {
  const clock = new FakeClock(1_000);
  const group = (rv: string, targetSize: number) => ({
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "InstanceGroupManager",
    metadata: { name: "g", namespace: "ns", resourceVersion: rv },
    spec: { zone: "z", targetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name: "w" }, maxSize: 5 },
    status: { targetSize, readyInstances: targetSize, queuedRequests: 0 },
  });
  const { inf, watch, stop } = await informer((raw) => raw as unknown as InstanceGroupManager, clock);
  const history = new CapacityHistory();
  const off = recordCapacity(inf, history, clock);
  watch().emit({ type: "ADDED", object: group("1", 1) });
  await clock.advance(500);
  // A change of something else (no capacity value changed) adds no point.
  watch().emit({ type: "MODIFIED", object: group("2", 1) });
  await clock.advance(500);
  watch().emit({ type: "MODIFIED", object: group("3", 2) });
  await flushPromises();
  expect(history.points("ns", "g").map((p) => [p.t, p.targetSize])).toEqual([
    [1_000, 1],
    [2_000, 2],
  ]);
  watch().emit({ type: "DELETED", object: group("4", 2) });
  await flushPromises();
  expect(history.points("ns", "g")).toEqual([]);
  off();
  watch().emit({ type: "ADDED", object: group("5", 3) });
  await flushPromises();
  expect(history.points("ns", "g")).toEqual([]);
  await stop();
});

/** The server side of one SSE connection, as far as the hub uses it. */
class FakeStream extends EventEmitter {
  readonly written: string[] = [];
  ended = false;
  statusCode = 0;
  setHeader(): void {
    // Headers are not what these tests look at.
  }
  flushHeaders(): void {
    // Nothing is buffered here.
  }
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(): void {
    this.ended = true;
    this.emit("close");
  }
  /** The types of the messages received. */
  messages(): string[] {
    return this.written.flatMap((w) => /^event: (\w+)/.exec(w)?.[1] ?? []);
  }
}

describe("connections", () => {
  const ANN: UserInfo = { username: "dashboard:ann@example.com", groups: [], extra: {} };
  const BOB: UserInfo = { username: "dashboard:bob@example.com", groups: [], extra: {} };
  const message = (type: StreamMessage["type"]): StreamMessage => ({
    type,
    op: "upsert",
    namespace: "team-a",
    data: {},
  });

  /** A hub on a cluster where everyone may list requests, and only Bob may list events. */
  function hub(ttlMs = 5_000) {
    const cluster = reviewingCluster(({ spec }) => {
      const attributes = spec?.resourceAttributes as { resource?: string; group?: string } | undefined;
      if (attributes?.resource === "events") return attributes.group === "" && spec?.user === BOB.username;
      return attributes?.resource === "resizerequests";
    });
    const { clock, authz } = onCluster(cluster, 60_000, ttlMs);
    const logged: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => logged.push(line) });
    const live = new LiveHub(authz, log, 3_600_000, clock);
    const connect = (user: UserInfo, session: SessionCheck) => {
      const stream = new FakeStream();
      live.connect(stream as unknown as ServerResponse, user, session);
      return stream;
    };
    return { live, clock, connect, logged };
  }

  test("a message reaches only whoever may list that kind in its namespace: an Event needs list events", async () => {
    const { live, connect } = hub();
    const ann = connect(ANN, () => Promise.resolve(ANN));
    const bob = connect(BOB, () => Promise.resolve(BOB));
    live.publish(message("event"));
    live.publish(message("request"));
    await flushPromises();
    expect(ann.messages()).toEqual(["request"]);
    expect(bob.messages()).toEqual(["event", "request"]);
    live.close();
  });

  test("a connection follows its session: its identity as it is now, and its end", async () => {
    const { live, clock, connect } = hub(5_000);
    let now: UserInfo | undefined = ANN;
    let checks = 0;
    const stream = connect(ANN, () => {
      checks++;
      return Promise.resolve(now);
    });
    live.publish(message("event"));
    await flushPromises();
    expect(stream.messages()).toEqual([]);
    // The session now stands for Bob (e.g. his groups changed): checked within the TTL.
    now = BOB;
    await clock.advance(4_999);
    expect(checks).toBe(0);
    await clock.advance(1);
    expect(checks).toBe(1);
    live.publish(message("event"));
    await flushPromises();
    expect(stream.messages()).toEqual(["event"]);
    // Signed out (or the session deleted): the stream ends at the next check.
    now = undefined;
    await clock.advance(5_000);
    expect(stream.ended).toBe(true);
    expect(live.size()).toBe(0);
    live.publish(message("event"));
    await flushPromises();
    expect(stream.messages()).toEqual(["event"]);
    // An ended stream is not checked again.
    await clock.advance(60_000);
    expect(checks).toBe(2);
  });

  test("a session that cannot be checked ends the stream (fail closed), and says why in the log", async () => {
    const { live, clock, connect, logged } = hub(1_000);
    const stream = connect(ANN, () => Promise.reject(new Error("Redis is down")));
    await clock.advance(1_000);
    expect(stream.ended).toBe(true);
    expect(live.size()).toBe(0);
    expect(logged.join("")).toContain("Redis is down");
  });

  test("a client that goes away is no longer checked", async () => {
    const { live, clock, connect } = hub(1_000);
    let checks = 0;
    const stream = connect(ANN, () => {
      checks++;
      return Promise.resolve(ANN);
    });
    await clock.advance(1_000);
    expect(checks).toBe(1);
    stream.emit("close");
    expect(live.size()).toBe(0);
    await clock.advance(10_000);
    expect(checks).toBe(1);
    expect(clock.timers).toBe(0);
  });
});
