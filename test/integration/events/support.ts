// Shared pieces of the event recorder's integration tests: the object events are about, a counting
// sink decorator (calls still reach the real API server), and the pinned kubectl.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { pino } from "pino";
import type { ObjectRef } from "../../../src/events/event.js";
import type { EventSink } from "../../../src/events/sink.js";
import { kubeConfig } from "../../support/kube.js";

export const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

/**
 * The kind events are about, as `kubectl events --for` spells it. Until the ResizeRequest CRD lands the
 * tests use ConfigMaps; switching means changing this and `createRegarding` only.
 */
export const REGARDING_RESOURCE = "configmap";

export async function createRegarding(namespace: string, name: string): Promise<ObjectRef> {
  const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
  const cm = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name } } });
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace,
    name,
    uid: cm.metadata?.uid ?? "",
    resourceVersion: cm.metadata?.resourceVersion ?? "",
  };
}

/** Wraps a sink and counts the calls that go through it; it does not answer anything itself. */
export class CountingSink implements EventSink {
  creates = 0;
  patches = 0;
  constructor(private readonly inner: EventSink) {}
  get calls(): number {
    return this.creates + this.patches;
  }
  create(...args: Parameters<EventSink["create"]>): Promise<void> {
    this.creates++;
    return this.inner.create(...args);
  }
  patchSeries(...args: Parameters<EventSink["patchSeries"]>): Promise<void> {
    this.patches++;
    return this.inner.patchSeries(...args);
  }
}

const run = promisify(execFile);

/** Runs the pinned kubectl against the test cluster; returns stdout. */
export async function kubectl(...args: string[]): Promise<string> {
  const bin = process.env.KUBECTL;
  const kubeconfig = process.env.KUBECONFIG;
  if (!bin || !kubeconfig) throw new Error("KUBECTL and KUBECONFIG must be set by the jest global setup");
  const { stdout } = await run(bin, ["--kubeconfig", kubeconfig, ...args], { timeout: 30_000 });
  return stdout;
}

export async function listEvents(namespace: string): Promise<k8s.EventsV1Event[]> {
  const api = kubeConfig().makeApiClient(k8s.EventsV1Api);
  return (await api.listNamespacedEvent({ namespace })).items;
}
