// Pure bookkeeping of event series with client-go semantics (k8s.io/client-go/tools/events): the first
// occurrence of an isomorphism key creates an Event, the second turns it into a series by a patch, and
// later repeats are only counted here, to be written on a heartbeat, when the series ends (idle), or on
// an explicit flush. No I/O and no clock of its own: callers pass the time in.
import type { EventsV1Event, EventsV1EventSeries } from "@kubernetes/client-node";
import { microTime } from "./event.js";

export interface SeriesTiming {
  /** A series with unwritten repeats is written at least this often. */
  heartbeatMs: number;
  /** A key not seen for this long ends: its series gets a final write and the next repeat starts a new Event. */
  idleMs: number;
  /** Upper bound on remembered keys; the oldest is ended early beyond it, bounding memory. */
  maxKeys: number;
}

export const DEFAULT_TIMING: SeriesTiming = {
  heartbeatMs: 30 * 60_000,
  idleMs: 6 * 60_000,
  maxKeys: 4096,
};

export interface SeriesEntry {
  readonly key: string;
  /** The Event as built for the first occurrence; its name and note stay those of the first occurrence. */
  readonly event: EventsV1Event;
  /** Occurrences observed, including the first. */
  count: number;
  lastObservedMs: number;
  /** What the server holds: 0 nothing yet, 1 the singleton, n ≥ 2 a series with count n. */
  written: number;
  lastWriteMs: number;
  /** Set when every observed occurrence must be written, not only the create and the turn into a series. */
  flushRequested: boolean;
}

/** One API call that brings the server's copy of an entry up to date. */
export type WritePlan =
  | { kind: "create"; event: EventsV1Event; count: number }
  | { kind: "patch"; namespace: string; name: string; series: EventsV1EventSeries; count: number };

function seriesOf(entry: SeriesEntry): EventsV1EventSeries {
  return { count: entry.count, lastObservedTime: microTime(entry.lastObservedMs) };
}

/** The first occurrence's Event carrying the series so far (client-node models are plain JSON shapes). */
function withSeries(entry: SeriesEntry): EventsV1Event {
  return entry.count >= 2 ? Object.assign({}, entry.event, { series: seriesOf(entry) }) : entry.event;
}

function target(entry: SeriesEntry): { namespace: string; name: string } {
  return { namespace: entry.event.metadata?.namespace ?? "", name: entry.event.metadata?.name ?? "" };
}

/**
 * The next call for `entry`, or undefined when nothing is due. Creating and turning a singleton into a
 * series are due at once; further counts only when a flush was requested.
 */
export function planWrite(entry: SeriesEntry): WritePlan | undefined {
  const count = entry.count;
  if (entry.written === 0) {
    // A create may already carry the series when repeats arrived while it waited in the buffer.
    return { kind: "create", event: withSeries(entry), count };
  }
  const becameSeries = entry.written === 1 && count >= 2;
  const flushDue = entry.flushRequested && count > entry.written;
  if (!becameSeries && !flushDue) return undefined;
  return { kind: "patch", ...target(entry), series: seriesOf(entry), count };
}

/** The create that replaces a patch whose Event vanished (expired or deleted): client-go's fallback. */
export function fallbackCreate(entry: SeriesEntry): WritePlan {
  return { kind: "create", event: withSeries(entry), count: entry.count };
}

/** Records that `plan` reached the server at `nowMs`. */
export function markWritten(entry: SeriesEntry, plan: WritePlan, nowMs: number): void {
  entry.written = Math.max(entry.written, plan.count);
  entry.lastWriteMs = nowMs;
  if (entry.written >= entry.count) entry.flushRequested = false;
}

export interface Observation {
  entry: SeriesEntry;
  /** The entry needs a write now (first occurrence, or the second turning it into a series). */
  write: boolean;
  /** An entry pushed out by `maxKeys`; it needs a final write when it has unwritten counts. */
  evicted?: SeriesEntry;
}

export class SeriesBook {
  private readonly entries = new Map<string, SeriesEntry>();

  constructor(private readonly timing: SeriesTiming = DEFAULT_TIMING) {}

  get size(): number {
    return this.entries.size;
  }

  /** Counts one occurrence of `key`; `build` makes the Event only when the key starts a new one. */
  observe(key: string, nowMs: number, build: () => EventsV1Event): Observation {
    const known = this.entries.get(key);
    if (known) {
      known.count++;
      known.lastObservedMs = nowMs;
      return { entry: known, write: known.count === 2 };
    }
    const entry: SeriesEntry = {
      key,
      event: build(),
      count: 1,
      lastObservedMs: nowMs,
      written: 0,
      lastWriteMs: nowMs,
      flushRequested: false,
    };
    this.entries.set(key, entry);
    let evicted: SeriesEntry | undefined;
    if (this.entries.size > this.timing.maxKeys) {
      // Map iteration follows insertion order, so the first entry is the oldest key.
      const oldest = this.entries.values().next().value;
      if (oldest) {
        this.entries.delete(oldest.key);
        oldest.flushRequested = true;
        if (oldest.count > oldest.written) evicted = oldest;
      }
    }
    return evicted ? { entry, write: true, evicted } : { entry, write: true };
  }

  /**
   * Entries whose unwritten counts are due at `nowMs` (flagged for a flush): series idle for
   * `idleMs` end (forgotten after this call), series not written for `heartbeatMs` get a heartbeat.
   * Idle singletons are forgotten without a write.
   */
  due(nowMs: number): SeriesEntry[] {
    const due: SeriesEntry[] = [];
    for (const entry of this.entries.values()) {
      const idle = nowMs - entry.lastObservedMs >= this.timing.idleMs;
      if (idle) this.entries.delete(entry.key);
      const unwritten = entry.count > entry.written;
      const heartbeat = nowMs - entry.lastWriteMs >= this.timing.heartbeatMs;
      if (unwritten && (idle || heartbeat)) {
        entry.flushRequested = true;
        due.push(entry);
      }
    }
    return due;
  }

  /** Every entry with counts the server does not have yet, flagged for a flush. */
  pending(): SeriesEntry[] {
    const pending: SeriesEntry[] = [];
    for (const entry of this.entries.values()) {
      if (entry.count > entry.written) {
        entry.flushRequested = true;
        pending.push(entry);
      }
    }
    return pending;
  }

  /** Drops `entry` so the next occurrence of its key starts a new Event (after a write was abandoned). */
  forget(entry: SeriesEntry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }
}
