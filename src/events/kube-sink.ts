// The EventSink that talks to the API server's events.k8s.io/v1 API through the operator's KubeClient:
// the same keep-alive TLS connections as every other call (a client that opened a connection per
// Event cost a TLS handshake on both sides for each one).
import { ApiError } from "../runtime/api-errors.js";
import { EVENTS } from "../runtime/builtin-kinds.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { SinkError, type EventSink } from "./sink.js";

export interface KubeSinkOptions {
  /** A call not answered within this time counts as a network failure (and is retried). Default 10 s. */
  requestTimeoutMs?: number;
}

function toSinkError(err: unknown): SinkError {
  if (err instanceof ApiError) return new SinkError(err.message, err.status, err.reason, { cause: err });
  return new SinkError(err instanceof Error ? err.message : String(err), undefined, undefined, {
    cause: err,
  });
}

export function kubeEventSink(client: KubeClient, options: KubeSinkOptions = {}): EventSink {
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const events = client.resource(EVENTS);
  return {
    async create(event) {
      try {
        await events.create(event, { timeoutMs });
      } catch (err) {
        throw toSinkError(err);
      }
    },
    async patchSeries({ namespace, name }, series) {
      try {
        await events.mergePatch({ namespace, name }, { series }, { timeoutMs });
      } catch (err) {
        throw toSinkError(err);
      }
    },
  };
}
