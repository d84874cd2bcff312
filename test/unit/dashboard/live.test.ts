// The live hub's relay (one per informer: adds and updates become upserts, deletions deletes unless
// turned off) and the capacity history recorded beside it from the group informer.
import { pino } from "pino";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { DashboardAuthz } from "../../../src/dashboard/authz.js";
import { CapacityHistory, recordCapacity } from "../../../src/dashboard/capacity-history.js";
import { LiveHub, type StreamMessage } from "../../../src/dashboard/sse.js";
import { Authorizer } from "../../../src/rest/auth.js";
import { Informer } from "../../../src/runtime/informer.js";
import type { KubeObject } from "../../../src/runtime/object.js";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { FakeKube } from "../../support/fake-kube.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
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
