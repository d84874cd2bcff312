// The EventSink that talks to the API server's events.k8s.io/v1 API through the operator's KubeHttp:
// the same keep-alive TLS connections as every other call (a client that opened a connection per
// Event cost a TLS handshake on both sides for each one).
import { ApiError, type KubeHttp } from "../runtime/kube-http.js";
import { SinkError, type EventSink } from "./sink.js";

export interface KubeSinkOptions {
  /** A call not answered within this time counts as a network failure (and is retried). Default 10 s. */
  requestTimeoutMs?: number;
}

function toSinkError(err: unknown): SinkError {
  if (err instanceof ApiError) return new SinkError(err.message, err.status);
  return new SinkError(err instanceof Error ? err.message : String(err), undefined);
}

const eventsPath = (namespace: string): string =>
  `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;

export function kubeEventSink(http: KubeHttp, options: KubeSinkOptions = {}): EventSink {
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  return {
    async create(event) {
      try {
        await http.request("POST", eventsPath(event.metadata?.namespace ?? ""), { body: event, timeoutMs });
      } catch (err) {
        throw toSinkError(err);
      }
    },
    async patchSeries({ namespace, name }, series) {
      try {
        await http.request("PATCH", `${eventsPath(namespace)}/${encodeURIComponent(name)}`, {
          body: { series },
          contentType: "application/merge-patch+json",
          timeoutMs,
        });
      } catch (err) {
        throw toSinkError(err);
      }
    },
  };
}
