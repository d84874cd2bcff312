// Metrics for the operator: the prom-client MetricsSink, domain metrics, the /metrics server, and the
// REST edge's middleware. See docs/performance.md for the figures they back.
export { BUCKETS, DOMAIN_METRIC, HELP, PromMetrics, type PromMetricsOptions } from "./metrics.js";
export { planEventMetrics, registerDomainMetrics, type DomainSources } from "./domain.js";
export { metricsServer } from "./server.js";
export { redisErrors, redisShortMasters, restMetrics, routeMatcher, type RouteShape } from "./rest.js";
