// A rate-limited, delaying work queue with client-go's guarantees:
// - de-duplication: a key added while it is queued is queued once;
// - exclusivity: a key handed to one worker is not handed to another until `done`; adds that arrive
//   meanwhile are remembered and the key is queued again on `done`, so the latest state is reconciled;
// - delays: `addAfter` and `addRateLimited` keep the earliest pending time per key.
// One deliberate difference: `shutDown` stops handing out work at once (queued keys are dropped), because
// a controller that lost its lease must not start reconciling anything new. `drained` waits for in-flight
// keys to be `done`.
import { realClock, type Clock, type Timer } from "./clock.js";
import { DelayHeap } from "./delay-heap.js";
import { METRIC, noopMetrics, type MetricsSink } from "./metrics.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.js";

export interface WorkQueueOptions {
  /** Names the queue in metrics and logs. */
  name: string;
  clock?: Clock;
  /** Decides `addRateLimited` delays; defaults to client-go's controller limiter. */
  rateLimiter?: RateLimiter;
  metrics?: MetricsSink;
}

/** The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WorkQueue {
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter;
  private queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiting = new DelayHeap();
  /** The one timer of the delayed keys, armed for the earliest; its due time. */
  private wakeUp: { at: number; timer: Timer } | undefined;
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private readonly drainWaiters: (() => void)[] = [];
  private readonly enqueuedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private stopping = false;
  private readonly m;

  constructor(options: WorkQueueOptions) {
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    const metrics = options.metrics ?? noopMetrics;
    const labels = { name: options.name };
    this.m = {
      depth: metrics.gauge(METRIC.workqueueDepth, labels),
      adds: metrics.counter(METRIC.workqueueAdds, labels),
      retries: metrics.counter(METRIC.workqueueRetries, labels),
      latency: metrics.histogram(METRIC.workqueueLatency, labels),
      work: metrics.histogram(METRIC.workqueueWorkDuration, labels),
      unfinished: metrics.gauge(METRIC.workqueueUnfinished, labels),
    };
  }

  /** Queues `key` unless it is already queued; a key being processed is queued again after `done`. */
  add(key: string): void {
    if (this.stopping || this.dirty.has(key)) return;
    this.m.adds.inc();
    this.dirty.add(key);
    if (!this.enqueuedAt.has(key)) this.enqueuedAt.set(key, this.clock.now());
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.m.depth.set(this.queue.length);
    this.dispatch();
  }

  /** Adds `key` after `delayMs`; if it is already waiting, the earlier time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopping) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    if (this.waiting.push(key, this.clock.now() + delayMs)) this.arm();
  }

  /** Keeps the one timer set for the earliest delayed key. */
  private arm(): void {
    const at = this.waiting.next();
    if (this.wakeUp && this.wakeUp.at === at) return;
    this.wakeUp?.timer.cancel();
    this.wakeUp = undefined;
    if (at === undefined) return;
    const timer = this.clock.setTimer(
      () => {
        this.wakeUp = undefined;
        for (const key of this.waiting.popDue(this.clock.now())) this.add(key);
        this.arm();
        // Node fires a longer timer at once; a key due later than that wakes the queue once on the way.
      },
      Math.min(at - this.clock.now(), MAX_TIMER_MS),
    );
    this.wakeUp = { at, timer };
  }

  /** Adds `key` after the delay the rate limiter assigns (per-item backoff, overall rate). */
  addRateLimited(key: string): void {
    if (this.stopping) return;
    this.m.retries.inc();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Ends the backoff of `key` (call after it was processed successfully). Does not remove it from the queue. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * The next key to process, waiting until one is available; undefined once the queue is shut down. The
   * caller owns the key until it calls `done(key)`.
   */
  get(): Promise<string | undefined> {
    if (this.stopping) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.getters.push(resolve);
      this.dispatch();
    });
  }

  /** Marks `key` processed; if it was added meanwhile it is queued again. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined) this.m.work.observe((this.clock.now() - started) / 1000);
    this.m.unfinished.set(this.processing.size);
    if (this.dirty.has(key) && !this.stopping) {
      this.queue.push(key);
      this.m.depth.set(this.queue.length);
      this.dispatch();
    }
    if (this.processing.size === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  /** Keys queued and ready (not counting delayed or in-flight keys). */
  get length(): number {
    return this.queue.length;
  }

  /** Keys currently handed out to workers. */
  get inFlight(): number {
    return this.processing.size;
  }

  /** Keys waiting for a delay to pass. */
  get delayed(): number {
    return this.waiting.size;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** Stops the queue: waiting `get` calls return undefined, queued and delayed keys are dropped. */
  shutDown(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.wakeUp?.timer.cancel();
    this.wakeUp = undefined;
    this.waiting.clear();
    this.queue = [];
    this.dirty.clear();
    this.enqueuedAt.clear();
    this.m.depth.set(0);
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /** Resolves once no key is in flight. */
  drained(): Promise<void> {
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private dispatch(): void {
    while (this.getters.length > 0 && this.queue.length > 0) {
      const key = this.queue.shift();
      const getter = this.getters.shift();
      if (key === undefined || getter === undefined) return;
      this.dirty.delete(key);
      this.processing.add(key);
      const now = this.clock.now();
      const queuedAt = this.enqueuedAt.get(key);
      this.enqueuedAt.delete(key);
      if (queuedAt !== undefined) this.m.latency.observe((now - queuedAt) / 1000);
      this.startedAt.set(key, now);
      this.m.depth.set(this.queue.length);
      this.m.unfinished.set(this.processing.size);
      getter(key);
    }
  }
}
