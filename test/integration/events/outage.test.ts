// The API server stops for 30 s: emit() keeps returning at once, and events emitted during the outage
// and after it arrive once the server is back. Kept in its own file because it stops the shared
// kube-apiserver; it is always restarted, even when an assertion fails.
import * as k8s from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { startComponent, stopComponent } from "../../../testbed/components.js";
import { kubeEventSink } from "../../../src/events/kube-sink.js";
import { httpKubeClient } from "../../../src/runtime/http-kube-client.js";
import { KubeHttp } from "../../../src/runtime/kube-http.js";
import { createEventRecorder } from "../../../src/events/recorder.js";
import type { EmitRequest } from "../../../src/events/event.js";
import { createTestNamespace, eventually, kubeConfig, untilClusterRecovered } from "../../support/kube.js";
import { createRegarding, listEvents, logger } from "./support.js";

const OUTAGE_MS = 30_000;

test("with the API server stopped for 30 s, emit() returns at once and the events arrive afterwards", async () => {
  const dir = process.env.TESTBED_DIR;
  if (!dir) throw new Error("TESTBED_DIR is not set: run under the jest global setup");
  const kc = kubeConfig();
  const ns = await createTestNamespace("events-outage");
  const regarding = await createRegarding(ns.name, "outage");
  const recorder = createEventRecorder({
    sink: kubeEventSink(httpKubeClient(new KubeHttp(kc)), { requestTimeoutMs: 2000 }),
    logger,
    reportingInstance: "resize-operator-test-0",
    backoff: { maxMs: 4000 },
  });
  const event = (reason: string): EmitRequest => ({
    regarding,
    type: "Warning",
    reason,
    action: "Provision",
    note: `${reason} while the API server may be down`,
  });

  try {
    recorder.emit(event("BeforeOutage"));
    await recorder.flush();

    const emitMs: number[] = [];
    const notAccepted: string[] = [];
    const timed = (request: EmitRequest) => {
      const before = recorder.stats().emitted;
      const started = performance.now();
      recorder.emit(request);
      emitMs.push(performance.now() - started);
      // Accepted by the time emit() returns: it never waits for the (stopped) server.
      if (recorder.stats().emitted !== before + 1) notAccepted.push(request.reason);
    };
    let repeats = 0;
    await stopComponent(dir, "kube-apiserver");
    try {
      const until = Date.now() + OUTAGE_MS;
      for (let i = 0; Date.now() < until; i++) {
        timed(event(`DuringOutage${Math.min(i, 5)}`));
        timed(event("RepeatedDuringOutage"));
        repeats++;
        await sleep(1000);
      }
    } finally {
      startComponent(dir, "kube-apiserver");
      const health = new k8s.Health(kc);
      await eventually(
        "kube-apiserver /readyz",
        async () => ((await health.readyz({})) ? true : undefined),
        90_000,
      );
      await untilClusterRecovered();
    }
    timed(event("AfterOutage"));

    // Synchronous the whole time (the time each emit took is reported below, not asserted).
    expect(notAccepted).toEqual([]);
    expect(repeats).toBeGreaterThanOrEqual(25);

    const expected = [
      "BeforeOutage",
      ...[0, 1, 2, 3, 4, 5].map((i) => `DuringOutage${i}`),
      "RepeatedDuringOutage",
      "AfterOutage",
    ];
    const arrived = await eventually(
      "every event emitted during and after the outage",
      async () => {
        const reasons = new Set((await listEvents(ns.name)).map((e) => e.reason));
        return expected.every((r) => reasons.has(r)) ? reasons : undefined;
      },
      60_000,
    );
    expect([...arrived].sort()).toEqual([...expected].sort());

    await recorder.flush();
    const repeated = (await listEvents(ns.name)).filter((e) => e.reason === "RepeatedDuringOutage");
    expect(repeated).toHaveLength(1);
    expect(repeated[0]?.series?.count).toBe(repeats);
    const stats = recorder.stats();
    // Retries prove the server really was unreachable while the events were emitted.
    expect(stats.retried).toBeGreaterThan(0);
    expect(stats).toMatchObject({ dropped: 0, failed: 0, invalid: 0 });
    process.stderr.write(
      `[events] outage: ${emitMs.length} emits, slowest ${Math.max(...emitMs).toFixed(2)} ms; ${stats.retried} retried calls\n`,
    );
  } finally {
    await recorder.stop();
    await ns.remove();
  }
}, 240_000);
