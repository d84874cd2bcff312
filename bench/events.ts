// Event series: 1,000 emits of one event through the real recorder and the real API-server sink,
// counted by a decorator around the sink. Baseline, measured in the same run: the same 1,000
// occurrences written the way a recorder without series does it, one Event object each.
import { pino } from "pino";
import type { EventsV1Event } from "@kubernetes/client-node";
import { createEventRecorder } from "../src/events/recorder.js";
import { kubeEventSink } from "../src/events/kube-sink.js";
import type { EventSink } from "../src/events/sink.js";
import { httpKubeClient } from "../src/runtime/http-kube-client.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { kubeConfig, log, machine, namespace, pool, report, round } from "./lib.js";

const REPEATS = 1000;

function counting(sink: EventSink): { sink: EventSink; calls: () => number } {
  let calls = 0;
  return {
    sink: {
      create: (e) => {
        calls++;
        return sink.create(e);
      },
      patchSeries: (t, s) => {
        calls++;
        return sink.patchSeries(t, s);
      },
    },
    calls: () => calls,
  };
}

export async function eventSeries(): Promise<void> {
  const kc = kubeConfig();
  const http = new KubeHttp(kc);
  const client = httpKubeClient(http);
  const ns = await namespace(http, "bench-events");
  const regarding = {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    namespace: ns.name,
    name: "repeated",
    uid: "00000000-0000-4000-8000-000000000001",
  };

  log(`events: ${REPEATS} emits of one event through the recorder`);
  const counted = counting(kubeEventSink(client));
  const recorder = createEventRecorder({ sink: counted.sink, logger: pino({ level: "warn" }) });
  const started = Date.now();
  for (let i = 0; i < REPEATS; i++)
    recorder.emit({
      type: "Warning",
      reason: "AttemptFailed",
      action: "Provision",
      note: "the same note",
      regarding,
    });
  await recorder.flush();
  const recorderMs = Date.now() - started;
  const stats = recorder.stats();
  await recorder.stop(5000);

  log(`events: baseline, ${REPEATS} Event objects`);
  const naive = counting(kubeEventSink(client));
  const baseStarted = Date.now();
  await pool(
    Array.from({ length: REPEATS }, (_, i) => i),
    8,
    (i) => {
      const now = new Date().toISOString().replace("Z", "000Z");
      const event: EventsV1Event = {
        metadata: { name: `repeated.${String(i)}`, namespace: ns.name },
        eventTime: now as unknown as Date,
        type: "Warning",
        reason: "AttemptFailed",
        action: "Provision",
        note: "the same note",
        regarding,
        reportingController: "compute.resize-operator.dev/resize-controller",
        reportingInstance: "bench",
      };
      return naive.sink.create(event);
    },
  );
  const baselineMs = Date.now() - baseStarted;
  await ns.remove();

  report({
    bench: "events",
    repeats: REPEATS,
    apiCalls: counted.calls(),
    target: "apiCalls <= 3",
    recorderSeconds: round(recorderMs / 1000, 2),
    dropped: stats.dropped,
    baselineApiCalls: naive.calls(),
    baselineSeconds: round(baselineMs / 1000, 2),
    ratio: round(counted.calls() / naive.calls(), 4),
    machine: machine(),
  });
}
