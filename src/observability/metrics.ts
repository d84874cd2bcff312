// The runtime's MetricsSink on prom-client: one Registry per process, metric families created lazily
// on first use (named by the runtime, e.g. workqueue_adds_total) with the label names of that use.
// Help texts and histogram buckets live in the tables below, so /metrics describes every family the
// same way whoever touches it first.
import {
  Counter as PromCounter,
  Gauge as PromGauge,
  Histogram as PromHistogram,
  Registry,
  collectDefaultMetrics,
} from "prom-client";
import { TARGET_READS_METRIC } from "../targets/scale-client.js";
import type { Counter, Gauge, Histogram, Labels, MetricsSink } from "../runtime/metrics.js";
import { METRIC } from "../runtime/metrics.js";

/** Metric names of the domain and the HTTP edge (the runtime's are in METRIC). */
export const DOMAIN_METRIC = {
  requests: "resize_requests",
  queueLength: "resize_group_queue_length",
  provisioningDuration: "resize_provisioning_duration_seconds",
  attempts: "resize_attempts_total",
  queueWait: "resize_queue_wait_seconds",
  queueHeadEta: "resize_queue_head_eta_seconds",
  queueDeadlineExceeded: "resize_queue_deadline_exceeded_total",
  eventsEmitted: "resize_events_emitted_total",
  eventsDropped: "resize_events_dropped_total",
  eventsFailed: "resize_events_failed_total",
  eventsWritten: "resize_events_written_total",
  restRequests: "rest_requests_total",
  restDuration: "rest_request_duration_seconds",
  redisErrors: "redis_errors_total",
  redisShortMasters: "redis_masters_short_of_replicas",
  targetReads: TARGET_READS_METRIC,
} as const;

export const HELP: Readonly<Record<string, string>> = {
  [METRIC.workqueueDepth]: "Current depth of the work queue.",
  [METRIC.workqueueAdds]: "Total number of adds handled by the work queue.",
  [METRIC.workqueueRetries]: "Total number of retries (rate-limited re-adds) handled by the work queue.",
  [METRIC.workqueueLatency]: "How long in seconds an item stays in the work queue before being requested.",
  [METRIC.workqueueWorkDuration]: "How long in seconds processing an item from the work queue takes.",
  [METRIC.workqueueUnfinished]: "Items handed to workers and not yet done.",
  [METRIC.reconcileTotal]: "Total number of reconciliations per controller and result.",
  [METRIC.reconcileErrors]: "Total number of reconciliation errors per controller.",
  [METRIC.reconcileTime]: "Length of time per reconciliation per controller.",
  [METRIC.activeWorkers]: "Number of currently used workers per controller.",
  [METRIC.leaderStatus]: "1 while this replica holds the leader-election lease, 0 otherwise.",
  [METRIC.informerRelists]: "Full lists an informer made (start-up, expired watch, resync from scratch).",
  [METRIC.informerWatchRestarts]: "Watches an informer restarted after they ended or failed.",
  [DOMAIN_METRIC.requests]: "ResizeRequests in the informer cache by namespace and state.",
  [DOMAIN_METRIC.queueLength]: "ResizeRequests waiting in a group's queue (condition Queued=True).",
  [DOMAIN_METRIC.provisioningDuration]:
    "Seconds from a provisioning attempt's record to its outcome (succeeded, failed, abandoned).",
  [DOMAIN_METRIC.attempts]: "Provisioning attempts by outcome (started, succeeded, failed, abandoned).",
  [DOMAIN_METRIC.queueWait]:
    "Seconds from a request's creation until it left its group's queue: its first attempt started (outcome started), or it ended without one (cancelled, deadline).",
  [DOMAIN_METRIC.queueHeadEta]:
    "Seconds from now until the head of a group's queue is expected to be provisioned, by the basis of the queue model's ETA (exact, estimated); absent while the queue is empty or the ETA unknown.",
  [DOMAIN_METRIC.queueDeadlineExceeded]:
    "Requests failed by their queue deadline (maxQueueDuration; reason QueueDeadlineExceeded) per group.",
  [DOMAIN_METRIC.eventsEmitted]: "Events accepted by the event recorder (series repeats included).",
  [DOMAIN_METRIC.eventsDropped]: "Event writes dropped: buffer full, or still buffered at shutdown.",
  [DOMAIN_METRIC.eventsFailed]: "Event writes abandoned after a 4xx or the retry budget.",
  [DOMAIN_METRIC.eventsWritten]: "Event API calls that succeeded (create or series patch).",
  [DOMAIN_METRIC.targetReads]:
    "Reads of a group's target by source: cache (a shared informer's, no API call) or api (GET of the object and its /scale, where the operator may not list and watch the kind or does not know its /scale fields).",
  [DOMAIN_METRIC.restRequests]: "REST API requests by method (API method id) and HTTP status code.",
  [DOMAIN_METRIC.restDuration]: "REST API request latency in seconds by method.",
  [DOMAIN_METRIC.redisErrors]: "Redis commands or connections that failed, by client role.",
  [DOMAIN_METRIC.redisShortMasters]:
    "Redis masters (Cluster shards, the Sentinel master) with fewer replicas in sync than --redis-min-replica-acks: their writes cannot be acknowledged (0 when all can).",
};

// controller-runtime's reconcile_time buckets (5 ms .. 60 s) and client-go's workqueue buckets
// (10 ns .. 1000 s, factor 10): dashboards written for those carry over unchanged.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
const WORKQUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);
// Attempts wait for real instances: seconds to the default 10-minute timeout and beyond.
const PROVISIONING_BUCKETS = [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600];
// Queue waits run from seconds (room free) to days (a long queue): up to a day.
const QUEUE_WAIT_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 43200, 86400];
const REST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];

export const BUCKETS: Readonly<Record<string, readonly number[]>> = {
  [METRIC.reconcileTime]: RECONCILE_BUCKETS,
  [METRIC.workqueueLatency]: WORKQUEUE_BUCKETS,
  [METRIC.workqueueWorkDuration]: WORKQUEUE_BUCKETS,
  [DOMAIN_METRIC.provisioningDuration]: PROVISIONING_BUCKETS,
  [DOMAIN_METRIC.queueWait]: QUEUE_WAIT_BUCKETS,
  [DOMAIN_METRIC.restDuration]: REST_BUCKETS,
};

type Family =
  | { kind: "counter"; labelNames: string; metric: PromCounter }
  | { kind: "gauge"; labelNames: string; metric: PromGauge }
  | { kind: "histogram"; labelNames: string; metric: PromHistogram };

const labelSignature = (labels: Labels): string => Object.keys(labels).sort().join(",");

export interface PromMetricsOptions {
  /** Also export Node's process metrics (CPU, RSS, heap, event-loop lag) with prom-client's defaults. */
  readonly processMetrics?: boolean;
}

export class PromMetrics implements MetricsSink {
  readonly registry = new Registry();
  private readonly families = new Map<string, Family>();

  constructor(options: PromMetricsOptions = {}) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  counter(name: string, labels: Labels): Counter {
    const child = this.family(name, "counter", labels).labels(labels);
    return {
      inc: (by = 1) => {
        child.inc(by);
      },
    };
  }

  gauge(name: string, labels: Labels): Gauge {
    const child = this.family(name, "gauge", labels).labels(labels);
    return {
      set: (v) => {
        child.set(v);
      },
      inc: (by = 1) => {
        child.inc(by);
      },
      dec: (by = 1) => {
        child.dec(by);
      },
    };
  }

  histogram(name: string, labels: Labels): Histogram {
    const child = this.family(name, "histogram", labels).labels(labels);
    return {
      observe: (v) => {
        child.observe(v);
      },
    };
  }

  /** The Prometheus text exposition of every family. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  private family(name: string, kind: "counter", labels: Labels): PromCounter;
  private family(name: string, kind: "gauge", labels: Labels): PromGauge;
  private family(name: string, kind: "histogram", labels: Labels): PromHistogram;
  private family(
    name: string,
    kind: Family["kind"],
    labels: Labels,
  ): PromCounter | PromGauge | PromHistogram {
    const labelNames = labelSignature(labels);
    const existing = this.families.get(name);
    if (existing) {
      // A family's label names are fixed by its first use; a mismatch is a programming error that
      // prom-client would otherwise report as an obscure "Added label … is not included" later.
      if (existing.kind !== kind || existing.labelNames !== labelNames)
        throw new Error(
          `metric ${name} registered as ${existing.kind}{${existing.labelNames}}, used as ${kind}{${labelNames}}`,
        );
      return existing.metric;
    }
    const config = {
      name,
      help: HELP[name] ?? name,
      labelNames: Object.keys(labels).sort(),
      registers: [this.registry],
    };
    let family: Family;
    if (kind === "counter") family = { kind, labelNames, metric: new PromCounter(config) };
    else if (kind === "gauge") family = { kind, labelNames, metric: new PromGauge(config) };
    else {
      const buckets = BUCKETS[name];
      family = {
        kind,
        labelNames,
        metric: new PromHistogram({ ...config, ...(buckets && { buckets: [...buckets] }) }),
      };
    }
    this.families.set(name, family);
    return family.metric;
  }
}
