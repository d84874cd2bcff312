// The runtime's instruments, behind a tiny interface: the /metrics exporter (src/observability, on
// prom-client) implements MetricsSink; tests read plain numbers from the in-memory sink of
// test/support. Names follow client-go / controller-runtime so dashboards carry over.

export type Labels = Readonly<Record<string, string>>;

export interface Counter {
  inc(by?: number): void;
}

export interface Gauge {
  set(value: number): void;
  inc(by?: number): void;
  dec(by?: number): void;
}

/** A distribution of observations (durations in seconds). */
export interface Histogram {
  observe(value: number): void;
}

export interface MetricsSink {
  counter(name: string, labels: Labels): Counter;
  gauge(name: string, labels: Labels): Gauge;
  histogram(name: string, labels: Labels): Histogram;
}

/** The metric names the runtime emits. */
export const METRIC = {
  workqueueDepth: "workqueue_depth",
  workqueueAdds: "workqueue_adds_total",
  workqueueRetries: "workqueue_retries_total",
  workqueueLatency: "workqueue_queue_duration_seconds",
  workqueueWorkDuration: "workqueue_work_duration_seconds",
  workqueueUnfinished: "workqueue_unfinished_work",
  reconcileTotal: "controller_runtime_reconcile_total",
  reconcileErrors: "controller_runtime_reconcile_errors_total",
  reconcileTime: "controller_runtime_reconcile_time_seconds",
  activeWorkers: "controller_runtime_active_workers",
  leaderStatus: "leader_election_master_status",
  informerRelists: "informer_relists_total",
  informerWatchRestarts: "informer_watch_restarts_total",
} as const;

const noop = { inc: () => undefined, set: () => undefined, dec: () => undefined, observe: () => undefined };

/** Discards everything; the default when no sink is given. */
export const noopMetrics: MetricsSink = {
  counter: () => noop,
  gauge: () => noop,
  histogram: () => noop,
};
