// Metrics of the REST edge: requests by API method and status code, latency by method, and Redis
// client errors. The method label is the route's API method id (compute.zoneOperations.get, …) so
// the label set is bounded by the route table, never by the URLs clients send.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Counter, Gauge, Histogram, MetricsSink } from "../runtime/metrics.js";
import { DOMAIN_METRIC } from "./metrics.js";

/** The part of a route the middleware needs (a structural subset of src/rest's Route). */
export interface RouteShape {
  readonly id: string;
  readonly httpMethod: string;
  /** Relative to the REST base, with `{param}` placeholders. */
  readonly path: string;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** Matches a request path (below the REST base) to a route id; "other" for anything unknown. */
export function routeMatcher(routes: readonly RouteShape[]): (httpMethod: string, path: string) => string {
  const compiled = routes.map((r) => ({
    id: r.id,
    httpMethod: r.httpMethod,
    regexp: new RegExp(
      `^/${r.path
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith("{") ? "[^/]+" : escapeRegExp(part)))
        .join("")}/?$`,
    ),
  }));
  return (httpMethod, path) =>
    compiled.find((r) => r.httpMethod === httpMethod && r.regexp.test(path))?.id ?? "other";
}

/**
 * An onRequest hook of the app's Fastify instance for the compute REST API under `base`: counts
 * `rest_requests_total{method,code}` and observes `rest_request_duration_seconds{method}` when the
 * answer is finished or the client left. Other paths (health, discovery) are not counted.
 */
export function restMetrics(
  sink: MetricsSink,
  routes: readonly RouteShape[],
  base: string,
): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void {
  const match = routeMatcher(routes);
  // One instrument per label set, made once: prom-client hashes the labels on every `labels()`, a
  // visible share of a cheap call's CPU. Bounded: methods come from the route table, codes are ours.
  const counts = new Map<string, Counter>();
  const durations = new Map<string, Histogram>();
  const count = (method: string, code: string): Counter => {
    const key = `${method} ${code}`;
    let counter = counts.get(key);
    if (!counter) counts.set(key, (counter = sink.counter(DOMAIN_METRIC.restRequests, { method, code })));
    return counter;
  };
  const duration = (method: string): Histogram => {
    let histogram = durations.get(method);
    if (!histogram)
      durations.set(method, (histogram = sink.histogram(DOMAIN_METRIC.restDuration, { method })));
    return histogram;
  };
  return (request, reply, done) => {
    const path = request.url.split("?")[0] ?? "/";
    if (!path.startsWith(`${base}/`)) {
      done();
      return;
    }
    const started = process.hrtime.bigint();
    // Fastify's hooks do not see every end: onResponse runs only for an answer that was finished, and
    // onRequestAbort watches the request's 'close', which Node emits once its body is read, so a
    // client that leaves a call with a body is missed. The response's own events are watched, never
    // written to: 'finish' when the answer is complete, 'close' also when the client left first.
    const answer = reply.raw;
    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      // The compute route that served the call says so on the call's record (rest/compute.ts); calls
      // refused before one served them (a bad body, an unknown path) are matched here.
      const method = request.call?.route ?? match(request.method, path.slice(base.length));
      // A client that went away before the answer has no status; 499 as nginx logs it.
      const code = answer.writableFinished ? String(reply.statusCode) : "499";
      count(method, code).inc();
      duration(method).observe(Number(process.hrtime.bigint() - started) / 1e9);
    };
    answer.on("finish", record);
    answer.on("close", record);
    done();
  };
}

/** `redis_errors_total{client}`: call `inc()` for every error a Redis client reports. */
export function redisErrors(sink: MetricsSink, client: string): { inc(): void } {
  return sink.counter(DOMAIN_METRIC.redisErrors, { client });
}

/** `redis_masters_short_of_replicas`: set by the replica watch (redis/replicas.ts). */
export function redisShortMasters(sink: MetricsSink): Gauge {
  return sink.gauge(DOMAIN_METRIC.redisShortMasters, {});
}
