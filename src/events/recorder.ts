// The asynchronous, bounded event recorder. `emit()` decides synchronously (validation, series
// bookkeeping) and hands writes to one background worker through a bounded buffer, so reconciliation
// never waits for, or fails because of, the API server. The worker performs the calls through an
// EventSink, retrying only transient failures.
import { hostname } from "node:os";
import type { Logger } from "pino";
import { backoffDelay, type BackoffPolicy } from "../runtime/backoff.js";
import { isAborted, realClock, sleep, type Clock, type Timer } from "../runtime/clock.js";
import {
  LIMITS,
  checkReportingInstance,
  checkRequest,
  isomorphismKey,
  nextNameNanos,
  toEvent,
  truncateBytes,
  type EmitRequest,
} from "./event.js";
import {
  DEFAULT_TIMING,
  SeriesBook,
  fallbackCreate,
  markWritten,
  planWrite,
  type SeriesEntry,
  type WritePlan,
} from "./series.js";
import { classify, type EventSink, type Failure } from "./sink.js";

/** Retries of one write: the runtime's jittered exponential backoff, within a total budget. */
export interface RetryPolicy extends BackoffPolicy {
  /** Give up retrying one write after this long. */
  readonly giveUpAfterMs: number;
}

/** From 250 ms up to 10 s (plus up to half again of jitter), for at most 2 minutes per write. */
export const DEFAULT_RETRY: RetryPolicy = {
  initialMs: 250,
  maxMs: 10_000,
  factor: 2,
  jitter: 0.5,
  giveUpAfterMs: 120_000,
};

export interface RecorderOptions {
  sink: EventSink;
  logger: Logger;
  /** Id of this operator instance; defaults to the pod name (`POD_NAME`, else the host name). */
  reportingInstance?: string;
  /** Writes waiting for the worker; beyond it events are dropped and counted. Default 1000. */
  bufferSize?: number;
  /** Default 30 minutes. */
  heartbeatMs?: number;
  /** Default 6 minutes. */
  seriesIdleMs?: number;
  /** Default 4096 remembered isomorphism keys. */
  maxSeries?: number;
  /** How often heartbeats and idle ends are checked. Default: a quarter of the shorter period, 1–30 s. */
  sweepIntervalMs?: number;
  backoff?: Partial<RetryPolicy>;
  /** Time and timers (the sweeper, retry waits, the stop deadline); the real clock by default. */
  clock?: Clock;
  /** Injectable for tests: jitter source in [0, 1). */
  random?: () => number;
}

export interface RecorderStats {
  /** emit() calls accepted (repeats of a series included). */
  emitted: number;
  /** emit() calls refused because the request would never be accepted by the API server. */
  invalid: number;
  /** Writes dropped: buffer full, emitted after stop(), or still buffered at the stop deadline. */
  dropped: number;
  /** Writes abandoned: rejected with a 4xx, or transient failures beyond the retry budget. */
  failed: number;
  /** Successful API calls (create or patch). */
  written: number;
  /** API calls retried after a transient failure. */
  retried: number;
  /** Writes waiting in the buffer now. */
  buffered: number;
  /** Isomorphism keys remembered now. */
  series: number;
}

/** What the reconciler depends on. */
export interface EventRecorder {
  /** Records an event. Returns at once; never throws; never waits for the API server. */
  emit(request: EmitRequest): void;
  /** Writes every unwritten series count and waits until the buffer is empty. */
  flush(): Promise<void>;
  /** Stops accepting events and writes what it can within `deadlineMs` (default 5 s). */
  stop(deadlineMs?: number): Promise<void>;
  stats(): RecorderStats;
}

/** The pod name (downward API `POD_NAME`, else the host name, which Kubernetes sets to the pod name). */
export function defaultReportingInstance(env: NodeJS.ProcessEnv = process.env): string {
  const name = env.POD_NAME || env.HOSTNAME || hostname();
  return truncateBytes(name, LIMITS.reportingInstance);
}

type Outcome = "ok" | Exclude<Failure, "retry"> | "gave-up";

export function createEventRecorder(options: RecorderOptions): EventRecorder {
  return new BufferedEventRecorder(options);
}

class BufferedEventRecorder implements EventRecorder {
  private readonly sink: EventSink;
  private readonly log: Logger;
  private readonly instance: string;
  private readonly bufferSize: number;
  private readonly backoff: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly book: SeriesBook;
  private readonly sweepMs: number;
  private sweeper: Timer | undefined;
  /** Aborted at the stop deadline: cuts retry waits short. */
  private readonly abort = new AbortController();

  /** The entries waiting for their write, oldest first (at most bufferSize). */
  private readonly buffer: SeriesEntry[] = [];
  private readonly inBuffer = new Set<SeriesEntry>();
  /** The entry being written; its write loop picks up anything that becomes due meanwhile. */
  private current: SeriesEntry | undefined;
  private worker: Promise<void> | undefined;
  private lastNanos = 0n;
  private closed = false;
  private stopping: Promise<void> | undefined;
  private full = false;
  private readonly counters = { emitted: 0, invalid: 0, dropped: 0, failed: 0, written: 0, retried: 0 };

  constructor(options: RecorderOptions) {
    this.sink = options.sink;
    this.instance = options.reportingInstance ?? defaultReportingInstance();
    const problems = checkReportingInstance(this.instance);
    if (problems.length > 0) throw new Error(`event recorder: ${problems.join("; ")}`);
    this.log = options.logger.child({ component: "event-recorder", reportingInstance: this.instance });
    this.bufferSize = options.bufferSize ?? 1000;
    this.backoff = { ...DEFAULT_RETRY, ...options.backoff };
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    const heartbeatMs = options.heartbeatMs ?? DEFAULT_TIMING.heartbeatMs;
    const idleMs = options.seriesIdleMs ?? DEFAULT_TIMING.idleMs;
    this.book = new SeriesBook({ heartbeatMs, idleMs, maxKeys: options.maxSeries ?? DEFAULT_TIMING.maxKeys });
    this.sweepMs =
      options.sweepIntervalMs ?? Math.min(30_000, Math.max(1000, Math.min(heartbeatMs, idleMs) / 4));
    this.armSweeper();
  }

  /** The next sweep; heartbeats alone must not keep the process alive. */
  private armSweeper(): void {
    this.sweeper = this.clock.setTimer(
      () => {
        this.sweep();
        if (!this.closed) this.armSweeper();
      },
      this.sweepMs,
      { keepAlive: false },
    );
  }

  emit(request: EmitRequest): void {
    try {
      if (this.closed) {
        this.counters.dropped++;
        this.log.debug({ reason: request.reason }, "event emitted after stop; dropped");
        return;
      }
      const problems = checkRequest(request);
      if (problems.length > 0) {
        this.counters.invalid++;
        this.log.error(
          { reason: request.reason, action: request.action, problems },
          "invalid event; not recorded",
        );
        return;
      }
      const now = this.clock.now();
      const observation = this.book.observe(isomorphismKey(request, this.instance), now, () => {
        this.lastNanos = nextNameNanos(this.lastNanos, now);
        return toEvent(request, { reportingInstance: this.instance, nowMs: now, nameNanos: this.lastNanos });
      });
      this.counters.emitted++;
      if (observation.evicted) this.schedule(observation.evicted);
      if (observation.write) this.schedule(observation.entry);
    } catch (err) {
      // Malformed input from an untyped caller (a missing `regarding`, say) must not escape emit().
      this.counters.invalid++;
      this.log.error({ err }, "event recorder failed to accept an event");
    }
  }

  async flush(): Promise<void> {
    for (const entry of this.book.pending()) this.schedule(entry);
    await this.idle();
  }

  stop(deadlineMs = 5000): Promise<void> {
    this.stopping ??= this.shutdown(deadlineMs);
    return this.stopping;
  }

  stats(): RecorderStats {
    return { ...this.counters, buffered: this.buffer.length, series: this.book.size };
  }

  /** Schedules heartbeats and the final writes of series that went idle. */
  private sweep(): void {
    for (const entry of this.book.due(this.clock.now())) this.schedule(entry);
  }

  private async shutdown(deadlineMs: number): Promise<void> {
    this.sweeper?.cancel();
    for (const entry of this.book.pending()) this.schedule(entry);
    this.closed = true;
    const timer = this.clock.setTimer(() => {
      this.abort.abort();
    }, deadlineMs);
    const deadline = new Promise<void>((resolve) => {
      this.abort.signal.addEventListener("abort", () => {
        resolve();
      });
    });
    await Promise.race([this.idle(), deadline]);
    timer.cancel();
    this.abort.abort();
    if (this.buffer.length > 0) {
      this.counters.dropped += this.buffer.length;
      this.log.warn({ dropped: this.buffer.length }, "event recorder stopped with writes still buffered");
      this.buffer.length = 0;
      this.inBuffer.clear();
    }
  }

  private async idle(): Promise<void> {
    while (this.worker) await this.worker;
  }

  /** Puts `entry` in the buffer unless it is there already (its write will carry the latest count). */
  private schedule(entry: SeriesEntry): void {
    if (this.inBuffer.has(entry) || this.current === entry || this.abort.signal.aborted) return;
    if (this.buffer.length >= this.bufferSize) {
      this.counters.dropped++;
      if (!this.full) this.log.warn({ bufferSize: this.bufferSize }, "event buffer full; dropping events");
      this.full = true;
      return;
    }
    if (this.full) this.log.info("event buffer has room again");
    this.full = false;
    this.buffer.push(entry);
    this.inBuffer.add(entry);
    this.worker ??= this.drain().finally(() => {
      this.worker = undefined;
    });
  }

  private async drain(): Promise<void> {
    for (let entry = this.buffer.shift(); entry; entry = this.buffer.shift()) {
      this.inBuffer.delete(entry);
      this.current = entry;
      let settled = false;
      try {
        settled = await this.sync(entry);
      } catch (err) {
        // sync() handles sink failures itself; this keeps the worker alive through anything else.
        this.counters.failed++;
        this.log.error({ err }, "event write failed unexpectedly");
      }
      this.current = undefined;
      // Something may have become due between sync() returning and this line.
      if (settled && planWrite(entry)) this.schedule(entry);
    }
  }

  /** Brings the server's copy of `entry` up to date, one call at a time; false when a write was abandoned. */
  private async sync(entry: SeriesEntry): Promise<boolean> {
    for (let plan = planWrite(entry); plan; plan = planWrite(entry)) {
      let outcome = await this.attempt(plan);
      const fallback = outcome === "not-found" && plan.kind === "patch";
      if (fallback) {
        // The Event expired or was deleted while its series continued: create it again, with the series.
        plan = fallbackCreate(entry);
        outcome = await this.attempt(plan);
      }
      if (outcome === "ok") {
        markWritten(entry, plan, this.clock.now());
      } else if (outcome === "already-exists" && plan.kind === "create") {
        // An earlier attempt reached the server although its response was lost, or another write won
        // a race: the Event exists. Its series is patched next, except right after a fallback, where
        // patching could only repeat the same two answers; the next flush writes it then.
        entry.written = Math.max(entry.written, 1);
        if (fallback) return true;
      } else {
        this.counters.failed++;
        this.book.forget(entry);
        return false;
      }
    }
    return true;
  }

  /** One write with retries: transient failures only, with jittered backoff, within the retry budget. */
  private async attempt(plan: WritePlan): Promise<Outcome> {
    const started = this.clock.now();
    const fields = this.describe(plan);
    for (let retry = 0; ; retry++) {
      try {
        if (plan.kind === "create") await this.sink.create(plan.event);
        else await this.sink.patchSeries({ namespace: plan.namespace, name: plan.name }, plan.series);
        this.counters.written++;
        this.log.debug(fields, "event written");
        return "ok";
      } catch (err) {
        const failure = classify(err);
        if (failure === "not-found" || failure === "already-exists") return failure;
        if (failure === "rejected") {
          this.log.error({ ...fields, err }, "API server rejected the event; not retried");
          return "rejected";
        }
        const delay = backoffDelay(this.backoff, retry, this.random);
        if (this.abort.signal.aborted || this.clock.now() - started + delay > this.backoff.giveUpAfterMs) {
          this.log.warn({ ...fields, err, retries: retry }, "event write failed; giving up");
          return "gave-up";
        }
        this.counters.retried++;
        this.log.debug({ ...fields, err, retry, delayMs: Math.round(delay) }, "event write failed; retrying");
        await sleep(this.clock, delay, this.abort.signal);
        if (isAborted(this.abort.signal)) {
          this.log.warn({ ...fields, retries: retry + 1 }, "event write abandoned at stop deadline");
          return "gave-up";
        }
      }
    }
  }

  /** Log fields for a write; the note is left out, it may be long. */
  private describe(plan: WritePlan): Record<string, unknown> {
    return plan.kind === "create"
      ? {
          call: "create",
          namespace: plan.event.metadata?.namespace,
          event: plan.event.metadata?.name,
          reason: plan.event.reason,
          count: plan.count,
        }
      : { call: "patch", namespace: plan.namespace, event: plan.name, count: plan.count };
  }
}
