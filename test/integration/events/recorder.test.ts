// The recorder against the real API server: accepted events, series, truncation, fallback, and
// visibility in `kubectl get events` / `kubectl events --for`.
import * as k8s from "@kubernetes/client-node";
import { setImmediate as tick } from "node:timers/promises";
import { LIMITS, TRUNCATION_MARKER, byteLength, toEvent, type ObjectRef } from "../../../src/events/event.js";
import { REPORTING_CONTROLLER } from "../../../src/api/names.js";
import { kubeEventSink } from "../../../src/events/kube-sink.js";
import { httpKubeClient } from "../../../src/runtime/http-kube-client.js";
import { KubeHttp } from "../../../src/runtime/kube-http.js";
import { createEventRecorder, type EventRecorder } from "../../../src/events/recorder.js";
import { SinkError } from "../../../src/events/sink.js";
import { createTestNamespace, kubeConfig } from "../../support/kube.js";
import { CountingSink, REGARDING_RESOURCE, createRegarding, kubectl, listEvents, logger } from "./support.js";

const kc = kubeConfig();
const eventsApi = kc.makeApiClient(k8s.EventsV1Api);
let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let sink: CountingSink;
let recorder: EventRecorder;
let group: ObjectRef;

beforeAll(async () => {
  ns = await createTestNamespace("events");
  group = await createRegarding(ns.name, "group");
  sink = new CountingSink(kubeEventSink(httpKubeClient(new KubeHttp(kc))));
  recorder = createEventRecorder({ sink, logger, reportingInstance: "resize-operator-test-0" });
});
afterAll(async () => {
  await recorder.stop();
  await ns.remove();
});

const byReason = (events: k8s.EventsV1Event[], reason: string) => events.filter((e) => e.reason === reason);

test("events are accepted and shown by kubectl get events and kubectl events --for", async () => {
  const request = await createRegarding(ns.name, "visible");
  recorder.emit({
    regarding: request,
    related: group,
    type: "Normal",
    reason: "Accepted",
    action: "Admit",
    note: "request admitted: 8 instances queued behind 0 requests",
  });
  recorder.emit({
    regarding: request,
    related: group,
    type: "Warning",
    reason: "ProvisioningFailed",
    action: "Provision",
    note: "only 3 of 8 instances became ready within 10m0s",
  });
  await recorder.flush();

  const events = await listEvents(ns.name);
  const [accepted] = byReason(events, "Accepted");
  expect(accepted).toMatchObject({
    type: "Normal",
    action: "Admit",
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: "resize-operator-test-0",
    regarding: { kind: "ConfigMap", name: "visible", namespace: ns.name, uid: request.uid },
    related: { kind: "ConfigMap", name: "group", uid: group.uid },
  });
  expect(accepted?.eventTime).toBeDefined();

  const table = await kubectl("get", "events", "-n", ns.name);
  expect(table).toMatch(/Normal\s+Accepted\s+configmap\/visible\s+request admitted: 8 instances queued/);
  expect(table).toMatch(/Warning\s+ProvisioningFailed\s+configmap\/visible\s+only 3 of 8 instances/);

  const forRequest = await kubectl("events", "--for", `${REGARDING_RESOURCE}/visible`, "-n", ns.name);
  expect(forRequest).toContain("request admitted: 8 instances queued behind 0 requests");
  expect(forRequest).toContain("only 3 of 8 instances became ready within 10m0s");
  const forGroup = await kubectl("events", "--for", `${REGARDING_RESOURCE}/group`, "-n", ns.name);
  expect(forGroup).not.toContain("request admitted");
});

test("50 identical attempt failures: one Event with series.count 50 after a flush, in at most 3 calls", async () => {
  const request = await createRegarding(ns.name, "flaky");
  const before = sink.calls;
  const failure = {
    regarding: request,
    related: group,
    type: "Warning" as const,
    reason: "AttemptFailed",
    action: "Provision",
    note: "2 of 8 instances not ready after 10m0s; rolled back, retrying with backoff",
  };
  recorder.emit(failure);
  await recorder.flush();
  for (let i = 1; i < 50; i++) {
    // Spread out like a reconcile loop would, so the worker sees each occurrence separately.
    recorder.emit({ ...failure, regarding: { ...request, resourceVersion: String(1000 + i) } });
    await tick();
  }
  await recorder.flush();
  const calls = sink.calls - before;

  const events = byReason(await listEvents(ns.name), "AttemptFailed");
  expect(events).toHaveLength(1);
  expect(events[0]?.series?.count).toBe(50);
  expect(events[0]?.series?.lastObservedTime).toBeDefined();
  expect(calls).toBeLessThanOrEqual(3);
  process.stderr.write(`[events] 50 identical failures took ${calls} API calls\n`);

  // kubectl sees one line for the series, not 50.
  const lines = (await kubectl("get", "events", "-n", ns.name))
    .split("\n")
    .filter((l) => l.includes("AttemptFailed"));
  expect(lines).toHaveLength(1);
});

test("a 5 kB note is truncated with a visible marker and accepted", async () => {
  const request = await createRegarding(ns.name, "verbose");
  const note = `scale-up failed: ${"pod is unschedulable: Insufficient nvidia.com/gpu. ".repeat(100)}`;
  expect(byteLength(note)).toBeGreaterThan(5000);
  recorder.emit({ regarding: request, type: "Warning", reason: "LongNote", action: "Provision", note });
  await recorder.flush();
  const [event] = byReason(await listEvents(ns.name), "LongNote");
  expect(event).toBeDefined();
  const stored = event?.note ?? "";
  expect(byteLength(stored)).toBeLessThanOrEqual(LIMITS.note);
  expect(stored.endsWith(TRUNCATION_MARKER)).toBe(true);
  expect(note.startsWith(stored.slice(0, -TRUNCATION_MARKER.length))).toBe(true);
  expect(await kubectl("events", "--for", `${REGARDING_RESOURCE}/verbose`, "-n", ns.name)).toContain(
    "…[truncated]",
  );
});

test("a series whose Event was deleted is created again with its count (NotFound falls back to create)", async () => {
  const request = await createRegarding(ns.name, "expired");
  const event = {
    regarding: request,
    type: "Warning" as const,
    reason: "Expired",
    action: "Provision",
    note: "x",
  };
  recorder.emit(event);
  await recorder.flush();
  const [first] = byReason(await listEvents(ns.name), "Expired");
  const name = first?.metadata?.name ?? "";
  await eventsApi.deleteNamespacedEvent({ name, namespace: ns.name });
  recorder.emit(event);
  await recorder.flush();
  const after = byReason(await listEvents(ns.name), "Expired");
  expect(after).toHaveLength(1);
  expect(after[0]?.metadata?.name).toBe(name);
  expect(after[0]?.series?.count).toBe(2);
});

describe("our limits are the API server's limits", () => {
  // Sent straight through the sink, bypassing the recorder's checks, to prove the server agrees.
  const direct = kubeEventSink(httpKubeClient(new KubeHttp(kc)));
  let regarding: ObjectRef;
  let n = 0;
  beforeAll(async () => {
    regarding = await createRegarding(ns.name, "limits");
  });

  async function send(change: { reason?: string; action?: string; note?: string; instance?: string }) {
    const event = toEvent(
      {
        regarding,
        type: "Normal",
        reason: change.reason ?? "Limit",
        action: change.action ?? "Check",
        note: "",
      },
      {
        reportingInstance: change.instance ?? "test",
        nowMs: Date.now(),
        nameNanos: BigInt(Date.now()) * 1000n + BigInt(n++),
      },
    );
    if (change.note !== undefined) event.note = change.note; // untruncated on purpose
    try {
      await direct.create(event);
      return "accepted";
    } catch (err) {
      if (err instanceof SinkError) return err.status;
      throw err;
    }
  }

  test.each([
    ["reason of 128 bytes", "accepted", { reason: "R".repeat(128) }],
    ["reason of 129 bytes", 422, { reason: "R".repeat(129) }],
    ["reason of 64 two-byte characters (128 bytes)", "accepted", { reason: "é".repeat(64) }],
    ["reason of 65 two-byte characters (130 bytes)", 422, { reason: "é".repeat(65) }],
    ["action of 128 bytes", "accepted", { action: "A".repeat(128) }],
    ["action of 129 bytes", 422, { action: "A".repeat(129) }],
    ["note of 1024 bytes", "accepted", { note: "n".repeat(1024) }],
    ["note of 1025 bytes", 422, { note: "n".repeat(1025) }],
    ["reportingInstance of 128 bytes", "accepted", { instance: "i".repeat(128) }],
    ["reportingInstance of 129 bytes", 422, { instance: "i".repeat(129) }],
    ["empty reason", 422, { reason: "" }],
    ["empty action", 422, { action: "" }],
  ])("%s → %s", async (_name, expected, change) => {
    expect(await send(change)).toBe(expected);
  });
});
