// A MetricsSink that keeps every series in memory, so tests can read what the runtime counted.
import type { Counter, Gauge, Histogram, Labels, MetricsSink } from "../../src/runtime/metrics.js";

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
