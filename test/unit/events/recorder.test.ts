import { pino } from "pino";
import {
  createEventRecorder,
  defaultReportingInstance,
  type EventRecorder,
  type RecorderOptions,
} from "../../../src/events/recorder.js";
import { REPORTING_CONTROLLER } from "../../../src/api/names.js";
import type { EmitRequest } from "../../../src/events/event.js";
import { SinkError } from "../../../src/events/sink.js";
import { FakeClock } from "../../support/fake-clock.js";
import { FakeSink } from "./fakes.js";

const logger = pino({ level: "silent" });
const regarding = {
  apiVersion: "v1",
  kind: "ConfigMap",
  namespace: "ns",
  name: "request-1",
  uid: "uid-1",
};
const failure: EmitRequest = {
  regarding,
  type: "Warning",
  reason: "AttemptFailed",
  action: "Provision",
  note: "2 of 8 instances not ready",
};

let running: { recorder: EventRecorder; clock: FakeClock }[] = [];
function setup(options: Partial<RecorderOptions> = {}) {
  const sink = new FakeSink();
  // Time moves only when a test advances it: retry waits, sweeps and the stop deadline included.
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  sink.now = () => clock.now();
  const recorder = createEventRecorder({
    sink,
    logger,
    reportingInstance: "operator-0",
    clock,
    random: () => 0.5,
    ...options,
  });
  running.push({ recorder, clock });
  return { sink, clock, recorder };
}
afterEach(async () => {
  await Promise.all(
    running.map(({ recorder, clock }) => Promise.all([recorder.stop(100), clock.advance(100)])),
  );
  running = [];
});

/** Runs `work` while time passes by `ms` (retry waits fire as they fall due). */
async function during<T>(clock: FakeClock, ms: number, work: Promise<T>): Promise<T> {
  await clock.advance(ms);
  return work;
}

/** The gaps between consecutive calls of the sink. */
function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] ?? t));
}

describe("emit", () => {
  test("returns synchronously and writes a valid Event in the background", async () => {
    const { sink, recorder } = setup();
    recorder.emit(failure);
    // Nothing has been written yet when emit() returns: the write happens in the background.
    expect(recorder.stats().written).toBe(0);
    await recorder.flush();
    expect(sink.summary()).toEqual(["create"]);
    const call = sink.calls[0];
    if (call?.kind !== "create") throw new Error("expected a create");
    expect(call.event).toMatchObject({
      reason: "AttemptFailed",
      action: "Provision",
      type: "Warning",
      note: failure.note,
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: "operator-0",
      metadata: { namespace: "ns" },
    });
    expect(call.event.metadata?.name).toMatch(/^request-1\.[0-9a-f]+$/);
    expect(recorder.stats()).toMatchObject({ emitted: 1, written: 1, dropped: 0, failed: 0, buffered: 0 });
  });

  test("distinct events get distinct names even within one millisecond", async () => {
    const { sink, recorder } = setup();
    recorder.emit(failure);
    recorder.emit({ ...failure, reason: "Other" });
    await recorder.flush();
    const names = sink.calls.map((c) => (c.kind === "create" ? c.event.metadata?.name : ""));
    expect(new Set(names).size).toBe(2);
  });

  test.each([
    ["an empty reason", { ...failure, reason: "" }],
    ["a 129-byte action", { ...failure, action: "A".repeat(129) }],
    ["a missing namespace", { ...failure, regarding: { ...regarding, namespace: "" } }],
    ["a malformed request", { note: "x" } as unknown as EmitRequest],
  ])("refuses %s without throwing or calling the API", async (_name, request) => {
    const { sink, recorder } = setup();
    expect(() => {
      recorder.emit(request);
    }).not.toThrow();
    await recorder.flush();
    expect(sink.calls).toEqual([]);
    expect(recorder.stats()).toMatchObject({ emitted: 0, invalid: 1 });
  });
});

describe("series", () => {
  test("50 identical failures emitted at once: one Event, series.count 50, 2 calls", async () => {
    const { sink, recorder } = setup();
    for (let i = 0; i < 50; i++) recorder.emit(failure);
    await recorder.flush();
    expect(sink.summary()).toEqual(["create", "patch 50"]);
    expect([...sink.stored.values()].map((e) => e.series?.count)).toEqual([50]);
  });

  test("50 identical failures spread over time: create, patch 2, then the rest on flush (3 calls)", async () => {
    const { sink, clock, recorder } = setup();
    for (let i = 0; i < 50; i++) {
      await clock.advance(1000);
      recorder.emit(failure);
    }
    await clock.advance(0);
    expect(sink.summary()).toEqual(["create", "patch 2"]);
    await recorder.flush();
    expect(sink.summary()).toEqual(["create", "patch 2", "patch 50"]);
    const stored = [...sink.stored.values()];
    expect(stored).toHaveLength(1);
    expect(stored[0]?.series?.count).toBe(50);
    expect(stored[0]?.series?.lastObservedTime.getTime()).toBe(clock.now());
    // The note and name are those of the first occurrence; only the series changes.
    expect(stored[0]?.note).toBe(failure.note);
  });

  test("a new resourceVersion of the regarding object continues the series", async () => {
    const { sink, recorder } = setup();
    recorder.emit({ ...failure, regarding: { ...regarding, resourceVersion: "1" } });
    recorder.emit({ ...failure, regarding: { ...regarding, resourceVersion: "2" } });
    await recorder.flush();
    expect(sink.stored.size).toBe(1);
  });

  test("a patch answered NotFound falls back to a create carrying the series", async () => {
    const { sink, recorder } = setup();
    recorder.emit(failure);
    await recorder.flush();
    sink.stored.clear(); // the Event expired (TTL) or was deleted
    recorder.emit(failure);
    await recorder.flush();
    expect(sink.summary()).toEqual(["create", "patch 2", "create 2"]);
    expect(sink.stored.size).toBe(1);
  });

  test("a create answered AlreadyExists (an earlier attempt got through) counts as created", async () => {
    const { sink, clock, recorder } = setup();
    // The first attempt reached the server but its answer was lost: simulate by storing the Event.
    const create = sink.create.bind(sink);
    sink.create = (event) => {
      sink.calls.push({ kind: "create", event });
      sink.stored.set(`${event.metadata?.namespace ?? ""}/${event.metadata?.name ?? ""}`, event);
      sink.create = create;
      return Promise.reject(new SinkError("connection reset", undefined));
    };
    recorder.emit(failure);
    recorder.emit(failure);
    await during(clock, 1000, recorder.flush());
    expect(sink.summary()).toEqual(["create", "create", "patch 2"]);
    expect(recorder.stats()).toMatchObject({ failed: 0, retried: 1 });
  });

  test("a heartbeat writes the in-memory count of a long series; idle ends it", async () => {
    const { sink, clock, recorder } = setup({
      heartbeatMs: 60_000,
      seriesIdleMs: 30_000,
      sweepIntervalMs: 1000,
    });
    recorder.emit(failure);
    recorder.emit(failure);
    await recorder.flush();
    for (let i = 0; i < 5; i++) {
      await clock.advance(10_000);
      recorder.emit(failure);
    }
    await clock.advance(0);
    expect(sink.summary()).toEqual(["create", "patch 2"]);
    await clock.advance(10_000);
    expect(sink.summary()).toEqual(["create", "patch 2", "patch 7"]);
    await clock.advance(5_000);
    recorder.emit(failure);
    await clock.advance(0);
    expect(sink.calls).toHaveLength(3);
    await clock.advance(30_000);
    expect(sink.calls).toHaveLength(4);
    expect(sink.summary()).toEqual(["create", "patch 2", "patch 7", "patch 8"]);
    // After the end, the next occurrence is a new Event.
    recorder.emit(failure);
    await recorder.flush();
    expect(sink.summary()).toEqual(["create", "patch 2", "patch 7", "patch 8", "create"]);
    expect(sink.stored.size).toBe(2);
  });
});

describe("failures and retries", () => {
  test.each([
    ["503", new SinkError("unavailable", 503)],
    ["500", new SinkError("internal", 500)],
    ["a network error", new SinkError("ECONNREFUSED", undefined)],
    ["an unexpected error", new TypeError("fetch failed")],
  ])("%s is retried with jittered exponential backoff", async (_name, error) => {
    const { sink, clock, recorder } = setup({ backoff: { initialMs: 100, maxMs: 1000 } });
    sink.failures = [error, error, error, error, error];
    recorder.emit(failure);
    await during(clock, 10_000, recorder.flush());
    expect(sink.calls).toHaveLength(6);
    expect(sink.stored.size).toBe(1);
    // The capped exponential delay plus jitter: random() = 0.5 with jitter 0.5 adds a quarter.
    expect(gaps(sink.times)).toEqual([125, 250, 500, 1000, 1250]);
    expect(recorder.stats()).toMatchObject({ retried: 5, written: 1, failed: 0 });
  });

  test.each([400, 403, 409, 422, 429])("a %d on create is not retried", async (status) => {
    const { sink, recorder } = setup();
    sink.failures = [new SinkError("no", status)];
    recorder.emit(failure);
    await recorder.flush();
    expect(sink.calls).toHaveLength(1);
    expect(recorder.stats()).toMatchObject({ retried: 0, failed: status === 409 ? 0 : 1 });
  });

  test("after a rejected write the next occurrence starts over with a create", async () => {
    const { sink, recorder } = setup();
    sink.failures = [new SinkError("forbidden", 403)];
    recorder.emit(failure);
    await recorder.flush();
    recorder.emit(failure);
    await recorder.flush();
    expect(sink.summary()).toEqual(["create", "create"]);
    expect(sink.stored.size).toBe(1);
  });

  test("transient failures give up after the retry budget", async () => {
    const { sink, clock, recorder } = setup({
      backoff: { initialMs: 1000, maxMs: 10_000, giveUpAfterMs: 60_000 },
    });
    sink.failures = Array.from({ length: 100 }, () => new SinkError("unavailable", 503));
    recorder.emit(failure);
    await during(clock, 120_000, recorder.flush());
    // The last retry starts within the budget; none starts after it.
    expect((sink.times.at(-1) ?? 0) - (sink.times[0] ?? 0)).toBeLessThanOrEqual(60_000);
    expect(sink.calls.length).toBeGreaterThan(5);
    expect(sink.calls.length).toBeLessThan(20);
    expect(recorder.stats()).toMatchObject({ failed: 1, written: 0 });
  });
});

describe("bounded buffer", () => {
  test("when the buffer is full, events are dropped and counted; emit stays immediate", async () => {
    const { sink, recorder } = setup({ bufferSize: 3 });
    let open!: () => void;
    sink.gate = new Promise((resolve) => (open = resolve));
    const started = performance.now();
    for (let i = 0; i < 10; i++) recorder.emit({ ...failure, reason: `Reason${i}` });
    expect(performance.now() - started).toBeLessThan(50);
    // One write is in flight, three wait in the buffer, six are dropped.
    expect(recorder.stats()).toMatchObject({ emitted: 10, dropped: 6, buffered: 3 });
    open();
    await recorder.flush();
    expect(sink.stored.size).toBe(4);
  });

  test("repeats of a buffered event take no extra room", async () => {
    const { sink, recorder } = setup({ bufferSize: 1 });
    let open!: () => void;
    sink.gate = new Promise((resolve) => (open = resolve));
    recorder.emit({ ...failure, reason: "InFlight" });
    for (let i = 0; i < 20; i++) recorder.emit(failure);
    expect(recorder.stats()).toMatchObject({ dropped: 0, buffered: 1 });
    open();
    await recorder.flush();
    expect(sink.summary()).toEqual(["create", "create 20"]);
  });
});

describe("stop", () => {
  test("writes pending series counts, then drops later events", async () => {
    const { sink, recorder } = setup();
    recorder.emit(failure);
    await recorder.flush();
    for (let i = 0; i < 4; i++) recorder.emit(failure);
    await recorder.stop();
    expect(sink.summary()).toEqual(["create", "patch 2", "patch 5"]);
    recorder.emit(failure);
    expect(recorder.stats()).toMatchObject({ dropped: 1 });
  });

  test("returns by its deadline when the API server hangs, counting what it could not write", async () => {
    const { sink, clock, recorder } = setup();
    sink.gate = new Promise(() => undefined);
    recorder.emit({ ...failure, reason: "A" });
    recorder.emit({ ...failure, reason: "B" });
    recorder.emit({ ...failure, reason: "C" });
    let stopped = false;
    const stopping = recorder.stop(100).then(() => (stopped = true));
    await clock.advance(99);
    expect(stopped).toBe(false);
    await during(clock, 1, stopping);
    expect(recorder.stats()).toMatchObject({ dropped: 2, buffered: 0 });
  });

  test("cuts retry waits short at the deadline", async () => {
    const { sink, clock, recorder } = setup({ backoff: { initialMs: 10_000 } });
    sink.failures = Array.from({ length: 100 }, () => new SinkError("unavailable", 503));
    recorder.emit(failure);
    // The first retry would wait 12.5 s; the 200 ms deadline ends the wait and the write.
    await during(clock, 200, recorder.stop(200));
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBe(200);
    expect(recorder.stats()).toMatchObject({ failed: 1, written: 0 });
  });
});

describe("reportingInstance", () => {
  test("defaults to POD_NAME, then HOSTNAME, cut to 128 bytes", () => {
    expect(defaultReportingInstance({ POD_NAME: "op-1", HOSTNAME: "host" })).toBe("op-1");
    expect(defaultReportingInstance({ HOSTNAME: "host" })).toBe("host");
    expect(defaultReportingInstance({ POD_NAME: "p".repeat(200) })).toHaveLength(128);
    expect(defaultReportingInstance({}).length).toBeGreaterThan(0);
  });

  test("an invalid reportingInstance is a configuration error at construction", () => {
    expect(() => createEventRecorder({ sink: new FakeSink(), logger, reportingInstance: "" })).toThrow(
      /reportingInstance must not be empty/,
    );
  });
});
