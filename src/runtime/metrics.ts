// The runtime's instruments, behind a tiny interface: the metrics exporter (prom-client or anything
// else) implements MetricsSink later; until then InMemoryMetrics keeps plain numbers that tests and
// status pages can read. Names follow client-go / controller-runtime so dashboards carry over.

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
  queueDepth: "workqueue_depth",
  queueAdds: "workqueue_adds_total",
  queueRetries: "workqueue_retries_total",
  queueLatency: "workqueue_queue_duration_seconds",
  queueWorkDuration: "workqueue_work_duration_seconds",
  queueUnfinished: "workqueue_unfinished_work",
  reconcileTotal: "controller_runtime_reconcile_total",
  reconcileErrors: "controller_runtime_reconcile_errors_total",
  reconcileTime: "controller_runtime_reconcile_time_seconds",
  activeWorkers: "controller_runtime_active_workers",
  leaderStatus: "leader_election_master_status",
  informerRelists: "informer_relists_total",
  informerWatchRestarts: "informer_watch_restarts_total",
} as const;

export interface HistogramSnapshot {
  count: number;
  sum: number;
  max: number;
}

export interface Sample {
  name: string;
  labels: Labels;
  type: "counter" | "gauge" | "histogram";
  value: number | HistogramSnapshot;
}

function seriesKey(name: string, labels: Labels): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `${name}{${parts.join(",")}}`;
}

/** Keeps every series in memory; `get` and `snapshot` read them back. */
export class InMemoryMetrics implements MetricsSink {
  private readonly series = new Map<string, Sample>();

  private entry(name: string, labels: Labels, type: Sample["type"]): Sample {
    const key = seriesKey(name, labels);
    let sample = this.series.get(key);
    if (!sample) {
      sample = {
        name,
        labels: { ...labels },
        type,
        value: type === "histogram" ? { count: 0, sum: 0, max: 0 } : 0,
      };
      this.series.set(key, sample);
    }
    if (sample.type !== type) throw new Error(`metric ${name} registered as ${sample.type}, used as ${type}`);
    return sample;
  }

  counter(name: string, labels: Labels): Counter {
    const s = this.entry(name, labels, "counter");
    return {
      inc: (by = 1) => {
        s.value = (s.value as number) + by;
      },
    };
  }

  gauge(name: string, labels: Labels): Gauge {
    const s = this.entry(name, labels, "gauge");
    return {
      set: (v) => {
        s.value = v;
      },
      inc: (by = 1) => {
        s.value = (s.value as number) + by;
      },
      dec: (by = 1) => {
        s.value = (s.value as number) - by;
      },
    };
  }

  histogram(name: string, labels: Labels): Histogram {
    const s = this.entry(name, labels, "histogram");
    return {
      observe: (v) => {
        const h = s.value as HistogramSnapshot;
        s.value = { count: h.count + 1, sum: h.sum + v, max: Math.max(h.max, v) };
      },
    };
  }

  /** The current value of one series (a number for counters and gauges), or undefined if never touched. */
  get(name: string, labels: Labels): Sample["value"] | undefined {
    return this.series.get(seriesKey(name, labels))?.value;
  }

  snapshot(): Sample[] {
    return [...this.series.values()].map((s) => ({
      ...s,
      value: typeof s.value === "number" ? s.value : { ...s.value },
    }));
  }
}

const noop = { inc: () => undefined, set: () => undefined, dec: () => undefined, observe: () => undefined };

/** Discards everything; the default when no sink is given. */
export const noopMetrics: MetricsSink = {
  counter: () => noop,
  gauge: () => noop,
  histogram: () => noop,
};
