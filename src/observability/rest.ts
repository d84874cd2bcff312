// Metrics of the REST edge: requests by API method and status code, latency by method, and Redis
// client errors. The method label is the route's API method id (compute.zoneOperations.get, …) so
// the label set is bounded by the route table, never by the URLs clients send.
import type { IncomingMessage, ServerResponse } from "node:http";
import { matchedRoute } from "../rest/route.js";
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
 * A hook (node:http request and response, with a `next` callback) for the compute REST API under
 * `base`: counts `rest_requests_total{method,code}` and observes `rest_request_duration_seconds{method}`
 * when the response is finished or the client left. Other paths (health, discovery) are not counted.
 */
export function restMetrics(
  sink: MetricsSink,
  routes: readonly RouteShape[],
  base: string,
): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
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
  return (req, res, next) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (!path.startsWith(`${base}/`)) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      // Calls refused before a route served them (a bad body, an unknown path) are matched here.
      const method = matchedRoute(res) ?? match(req.method ?? "GET", path.slice(base.length));
      // A client that went away before the answer has no status; 499 as nginx logs it.
      const code = res.writableFinished ? String(res.statusCode) : "499";
      count(method, code).inc();
      duration(method).observe(Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.on("finish", record);
    res.on("close", record);
    next();
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
