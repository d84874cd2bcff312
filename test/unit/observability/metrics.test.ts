import { EventEmitter } from "node:events";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { resizeEvents } from "../../../src/controllers/events.js";
import { REQUEST_COUNTERS, REQUEST_INDEXERS } from "../../../src/cache/indexes.js";
import type { RecorderStats } from "../../../src/events/recorder.js";
import { planEventMetrics, registerDomainMetrics } from "../../../src/observability/domain.js";
import { PromMetrics } from "../../../src/observability/metrics.js";
import { restMetrics, routeMatcher } from "../../../src/observability/rest.js";
import { METRIC } from "../../../src/runtime/metrics.js";
import { Store } from "../../../src/runtime/store.js";
import { Controller } from "../../../src/runtime/controller.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";

/** The value of one sample line, e.g. `name{a="b"}`, in the text exposition. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("PromMetrics", () => {
  test("creates families lazily with the first use's label names, help and buckets", async () => {
    const m = new PromMetrics();
    m.counter(METRIC.reconcileTotal, { controller: "c", result: "success" }).inc();
    m.counter(METRIC.reconcileTotal, { result: "success", controller: "c" }).inc(2);
    m.gauge(METRIC.workqueueDepth, { name: "q" }).set(7);
    m.gauge(METRIC.workqueueDepth, { name: "q" }).dec();
    m.histogram(METRIC.reconcileTime, { controller: "c" }).observe(0.3);
    const text = await m.metrics();
    expect(sample(text, 'controller_runtime_reconcile_total{controller="c",result="success"}')).toBe(3);
    expect(sample(text, 'workqueue_depth{name="q"}')).toBe(6);
    expect(text).toContain("# HELP controller_runtime_reconcile_total Total number of reconciliations");
    expect(text).toContain("# TYPE controller_runtime_reconcile_time_seconds histogram");
    // controller-runtime's buckets: 0.3 falls into le=0.3 but not le=0.25.
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="0.25",controller="c"}')).toBe(
      0,
    );
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="0.3",controller="c"}')).toBe(1);
  });

  test("refuses a family used with other label names or another type", () => {
    const m = new PromMetrics();
    m.counter("x_total", { a: "1" });
    expect(() => m.counter("x_total", { b: "1" })).toThrow(
      /registered as counter\{a\}, used as counter\{b\}/,
    );
    expect(() => m.gauge("x_total", { a: "1" })).toThrow(/used as gauge/);
  });

  test("a controller's reconciles show up under controller-runtime's names", async () => {
    const m = new PromMetrics();
    const c = new Controller({ name: "demo", metrics: m, reconcile: () => Promise.resolve(undefined) });
    const ctl = new AbortController();
    const informer = {
      waitForSync: () => Promise.resolve(true),
      addEventHandler: (h: { onAdd: (o: { metadata: { name: string } }) => void }) => {
        h.onAdd({ metadata: { name: "one" } });
        return () => undefined;
      },
    };
    c.watchPrimary(informer as unknown as Parameters<Controller["watchPrimary"]>[0]);
    const running = c.run(ctl.signal);
    await new Promise((r) => setTimeout(r, 20));
    ctl.abort();
    await running;
    const text = await m.metrics();
    expect(sample(text, 'controller_runtime_reconcile_total{controller="demo",result="success"}')).toBe(1);
    expect(sample(text, 'workqueue_adds_total{name="demo"}')).toBe(1);
  });
});

const rr = (name: string, group: string, state?: string, queued = false): ResizeRequest =>
  ({
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name, namespace: "ns" },
    spec: { instanceGroupManager: group, resizeBy: 1 },
    ...(state && {
      status: {
        state,
        ...(queued && {
          conditions: [
            {
              type: "Queued",
              status: "True",
              reason: "Queued",
              message: "",
              lastTransitionTime: "2026-01-01T00:00:00Z",
            },
          ],
        }),
      },
    }),
  }) as ResizeRequest;

describe("domain metrics", () => {
  test("requests by state and queue length per group are computed from the caches at scrape time", async () => {
    const requests = new Store<ResizeRequest>(REQUEST_INDEXERS, REQUEST_COUNTERS);
    const groups = new Store<InstanceGroupManager>();
    groups.set({
      metadata: { name: "g", namespace: "ns" },
      spec: { targetRef: { kind: "Deployment", name: "w" }, minSize: 0 },
    } as InstanceGroupManager);
    for (const r of [
      rr("a", "g", "SUCCEEDED"),
      rr("b", "g", "ACCEPTED", true),
      rr("c", "g", "ACCEPTED", true),
      rr("d", "g"),
    ])
      requests.set(r);
    const stats: RecorderStats = {
      emitted: 5,
      invalid: 0,
      dropped: 2,
      failed: 0,
      written: 3,
      retried: 0,
      buffered: 0,
      series: 1,
    };
    const m = new PromMetrics();
    registerDomainMetrics(m, { requests, groups, recorderStats: () => stats });
    let text = await m.metrics();
    expect(sample(text, 'resize_requests{namespace="ns",state="SUCCEEDED"}')).toBe(1);
    expect(sample(text, 'resize_requests{namespace="ns",state="ACCEPTED"}')).toBe(2);
    expect(sample(text, 'resize_requests{namespace="ns",state="CREATING"}')).toBe(1);
    expect(sample(text, 'resize_requests{namespace="ns",state="FAILED"}')).toBe(0);
    expect(sample(text, 'resize_group_queue_length{namespace="ns",group="g"}')).toBe(2);
    expect(sample(text, "resize_events_emitted_total")).toBe(5);
    expect(sample(text, "resize_events_dropped_total")).toBe(2);

    for (const name of ["b", "c", "d"]) requests.delete(`ns/${name}`);
    stats.emitted = 9;
    text = await m.metrics();
    expect(sample(text, 'resize_requests{namespace="ns",state="ACCEPTED"}')).toBe(0);
    expect(sample(text, 'resize_group_queue_length{namespace="ns",group="g"}')).toBe(0);
    expect(sample(text, "resize_events_emitted_total")).toBe(9);
  });

  test("attempt outcomes and durations come from the executor's plan events", async () => {
    const m = new PromMetrics();
    const hook = planEventMetrics(m, () => Date.parse("2026-01-01T00:00:42Z"));
    const before = {
      ...rr("a", "g", "ACCEPTED"),
      status: {
        state: "ACCEPTED",
        provisioning: { startedTime: "2026-01-01T00:00:30Z" },
      },
    } as ResizeRequest;
    const notice = (event: (typeof resizeEvents)[keyof typeof resizeEvents], b?: ResizeRequest) => ({
      namespace: "ns",
      group: "g",
      event: { request: "a", event, note: "" },
      before: b,
    });
    hook(notice(resizeEvents.ProvisioningStarted));
    hook(notice(resizeEvents.Succeeded, before));
    hook(notice(resizeEvents.Accepted));
    const text = await m.metrics();
    expect(sample(text, 'resize_attempts_total{namespace="ns",outcome="started"}')).toBe(1);
    expect(sample(text, 'resize_attempts_total{namespace="ns",outcome="succeeded"}')).toBe(1);
    expect(sample(text, 'resize_provisioning_duration_seconds_sum{namespace="ns",outcome="succeeded"}')).toBe(
      12,
    );
    expect(text).not.toContain('outcome="Accepted"');
  });
});

describe("queue metrics", () => {
  const NOW = Date.parse("2026-01-01T01:00:00Z");
  const at = (s: number): string => new Date(NOW + s * 1000).toISOString();
  const request = (name: string, created: number, status: ResizeRequest["status"], run?: number) =>
    ({
      apiVersion: "compute.resize-operator.dev/v1",
      kind: "ResizeRequest",
      metadata: { name, namespace: "ns", creationTimestamp: at(created) },
      spec: {
        instanceGroupManager: "g",
        resizeBy: 2,
        cancel: false,
        ...(run !== undefined && { requestedRunDuration: { seconds: String(run) } }),
      },
      status,
    }) as ResizeRequest;
  const group = (name: string, maxSize: number | undefined, targetSize: number) =>
    ({
      metadata: { name, namespace: "ns" },
      spec: { targetRef: { kind: "Deployment", name: "w" }, minSize: 0, ...(maxSize && { maxSize }) },
      status: { targetSize, readyInstances: targetSize },
    }) as InstanceGroupManager;

  test("the head's ETA per group is computed at scrape time with the queue model; unknown is absent", async () => {
    const requests = new Store<ResizeRequest>(REQUEST_INDEXERS, REQUEST_COUNTERS);
    const groups = new Store<InstanceGroupManager>();
    // g: 4 of maxSize 4, held by a request released in 90 s; attempts take 30 s → head ready in 120 s.
    groups.set(group("g", 4, 4));
    requests.set(
      request(
        "held",
        -600,
        {
          state: "SUCCEEDED",
          attempts: 1,
          provisioningStartedTime: at(-530),
          succeededTime: at(-500),
          runUntil: at(90),
        },
        590,
      ),
    );
    requests.set(request("head", -60, { state: "ACCEPTED" }));
    // empty: nothing queued; blind: queued, but no attempt of that group ever succeeded (unknown).
    groups.set(group("empty", 4, 0));
    groups.set(group("blind", 4, 0));
    requests.set({
      ...request("first", -10, { state: "ACCEPTED" }),
      spec: { ...request("first", -10, undefined).spec, instanceGroupManager: "blind" },
    });
    const m = new PromMetrics();
    let now = NOW;
    registerDomainMetrics(m, {
      requests,
      groups,
      recorderStats: () => ({
        emitted: 0,
        invalid: 0,
        dropped: 0,
        failed: 0,
        written: 0,
        retried: 0,
        buffered: 0,
        series: 0,
      }),
      now: () => now,
    });
    let text = await m.metrics();
    expect(sample(text, 'resize_queue_head_eta_seconds{namespace="ns",group="g",basis="exact"}')).toBe(120);
    expect(text).not.toMatch(/resize_queue_head_eta_seconds\{[^}]*group="(empty|blind)"/);
    expect(text).toContain("# HELP resize_queue_head_eta_seconds Seconds from now until the head");
    // Derived on read: a later scrape gives a nearer ETA, nothing was stored.
    now += 20_000;
    text = await m.metrics();
    expect(sample(text, 'resize_queue_head_eta_seconds{namespace="ns",group="g",basis="exact"}')).toBe(100);
  });

  test("queue wait is observed when a request first leaves the queue; deadlines are counted per group", () => {
    const m = new InMemoryMetrics();
    const hook = planEventMetrics(m, () => NOW);
    const notice = (
      event: (typeof resizeEvents)[keyof typeof resizeEvents],
      before: ResizeRequest,
      group = "g",
    ) => {
      hook({
        namespace: "ns",
        group,
        event: { request: before.metadata.name ?? "", event, note: "" },
        before,
      });
    };
    // Started its first attempt after 90 s in the queue.
    notice(resizeEvents.ProvisioningStarted, request("a", -90, { state: "ACCEPTED" }));
    // A retry after a failed attempt is not a queue wait.
    notice(resizeEvents.ProvisioningStarted, request("b", -900, { state: "ACCEPTED", attempts: 1 }));
    notice(resizeEvents.Cancelled, request("c", -30, { state: "ACCEPTED" }));
    notice(resizeEvents.QueueDeadlineExceeded, request("d", -600, { state: "ACCEPTED" }), "h");
    notice(resizeEvents.QueueDeadlineExceeded, request("e", -700, { state: "ACCEPTED", attempts: 2 }), "h");
    notice(resizeEvents.Succeeded, request("f", -700, { state: "ACCEPTED" }));
    const wait = (group: string, outcome: string) =>
      m.get("resize_queue_wait_seconds", { namespace: "ns", group, outcome });
    expect(wait("g", "started")).toEqual({ count: 1, sum: 90, max: 90 });
    expect(wait("g", "cancelled")).toEqual({ count: 1, sum: 30, max: 30 });
    expect(wait("h", "deadline")).toEqual({ count: 1, sum: 600, max: 600 });
    expect(m.get("resize_queue_deadline_exceeded_total", { namespace: "ns", group: "h" })).toBe(2);
    expect(m.get("resize_queue_deadline_exceeded_total", { namespace: "ns", group: "g" })).toBeUndefined();
  });
});

describe("REST metrics", () => {
  const routes = [
    {
      id: "compute.zoneOperations.get",
      httpMethod: "GET",
      path: "projects/{project}/zones/{zone}/operations/{operation}",
    },
    {
      id: "compute.instanceGroupManagerResizeRequests.cancel",
      httpMethod: "POST",
      path: "projects/{project}/zones/{zone}/instanceGroupManagers/{instanceGroupManager}/resizeRequests/{resizeRequest}/cancel",
    },
  ];

  test("paths map to route ids; unknown paths to 'other'", () => {
    const match = routeMatcher(routes);
    expect(match("GET", "/projects/p/zones/z/operations/op-1")).toBe("compute.zoneOperations.get");
    expect(match("POST", "/projects/p/zones/z/instanceGroupManagers/g/resizeRequests/r/cancel")).toBe(
      "compute.instanceGroupManagerResizeRequests.cancel",
    );
    expect(match("DELETE", "/projects/p/zones/z/operations/op-1")).toBe("other");
    expect(match("GET", "/projects/p/zones/z/operations/op-1/extra")).toBe("other");
  });

  /** Fastify's request and reply as the hook reads them: the URL, the call's record, the status and Node's response. */
  const exchange = (
    url: string,
    status: number,
    finished: boolean,
  ): { request: FastifyRequest; reply: FastifyReply; answer: EventEmitter } => {
    const answer = Object.assign(new EventEmitter(), { writableFinished: finished });
    const request = { url, method: "GET", call: { reqId: "r" } as { reqId: string; route?: string } };
    const reply = { statusCode: status, raw: answer };
    return {
      request: request as unknown as FastifyRequest,
      reply: reply as unknown as FastifyReply,
      answer,
    };
  };

  test("counts requests by method and code and observes latency when the response finishes", async () => {
    const m = new PromMetrics();
    const hook = restMetrics(m, routes, "/compute/v1");
    const call = (url: string, status: number, finished: boolean): void => {
      const { request, reply, answer } = exchange(url, status, finished);
      let nexted = false;
      hook(request, reply, () => {
        nexted = true;
      });
      expect(nexted).toBe(true);
      answer.emit(finished ? "finish" : "close");
      answer.emit("close");
    };
    call("/compute/v1/projects/p/zones/z/operations/op-1?alt=json", 200, true);
    call("/compute/v1/projects/p/zones/z/operations/op-2", 404, true);
    call("/compute/v1/projects/p/zones/z/operations/op-3", 200, false);
    call("/healthz", 200, true);
    const text = await m.metrics();
    expect(sample(text, 'rest_requests_total{method="compute.zoneOperations.get",code="200"}')).toBe(1);
    expect(sample(text, 'rest_requests_total{method="compute.zoneOperations.get",code="404"}')).toBe(1);
    expect(sample(text, 'rest_requests_total{method="compute.zoneOperations.get",code="499"}')).toBe(1);
    expect(sample(text, 'rest_request_duration_seconds_count{method="compute.zoneOperations.get"}')).toBe(3);
    expect(text).not.toContain("healthz");
  });

  test("takes the route id the REST route wrote on the call's record instead of matching the path", async () => {
    const m = new PromMetrics();
    const hook = restMetrics(m, routes, "/compute/v1");
    // A path no route matches: only the call's record can name the method.
    const { request, reply, answer } = exchange("/compute/v1/unmatched", 200, true);
    hook(request, reply, () => {
      if (request.call) request.call.route = "compute.zoneOperations.get";
    });
    answer.emit("finish");
    const text = await m.metrics();
    expect(sample(text, 'rest_requests_total{method="compute.zoneOperations.get",code="200"}')).toBe(1);
    expect(text).not.toContain('method="other"');
  });
});
