// The EventSink that talks to the API server through @kubernetes/client-node's EventsV1Api.
import {
  ApiException,
  EventsV1Api,
  Observable,
  PatchStrategy,
  setHeaderOptions,
  type ConfigurationOptions,
  type KubeConfig,
  type ObservableMiddleware,
} from "@kubernetes/client-node";
import { SinkError, type EventSink } from "./sink.js";

export interface KubeSinkOptions {
  /** A call not answered within this time counts as a network failure (and is retried). Default 10 s. */
  requestTimeoutMs?: number;
}

/** Aborts each request after `ms`, so a hung connection cannot stall the recorder's worker. */
function timeoutMiddleware(ms: number): ObservableMiddleware {
  return {
    pre: (request) => {
      request.setSignal(AbortSignal.timeout(ms));
      return new Observable(Promise.resolve(request));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
}

function toSinkError(err: unknown): SinkError {
  if (err instanceof ApiException) {
    const status: unknown = err.code;
    const body: unknown = err.body;
    const message =
      typeof body === "object" && body !== null && "message" in body && typeof body.message === "string"
        ? body.message
        : `HTTP ${String(status)}`;
    return new SinkError(message, typeof status === "number" ? status : undefined);
  }
  return new SinkError(err instanceof Error ? err.message : String(err), undefined);
}

export function kubeEventSink(kc: KubeConfig, options: KubeSinkOptions = {}): EventSink {
  const api = kc.makeApiClient(EventsV1Api);
  const timeout: ConfigurationOptions = {
    middleware: [timeoutMiddleware(options.requestTimeoutMs ?? 10_000)],
    middlewareMergeStrategy: "append",
  };
  const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch, timeout);
  return {
    async create(event) {
      const namespace = event.metadata?.namespace ?? "";
      try {
        await api.createNamespacedEvent({ namespace, body: event }, timeout);
      } catch (err) {
        throw toSinkError(err);
      }
    },
    async patchSeries({ namespace, name }, series) {
      try {
        await api.patchNamespacedEvent({ name, namespace, body: { series } }, mergePatch);
      } catch (err) {
        throw toSinkError(err);
      }
    },
  };
}
