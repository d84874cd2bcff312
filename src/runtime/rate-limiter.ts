// Work queue rate limiters, modelled on client-go's workqueue: a per-item exponential limiter for
// failures, a token bucket for the whole queue, and MaxOf to combine them. All pure apart from the clock.
import type { Clock } from "./clock.js";

export interface RateLimiter {
  /** How long `item` should wait before it is processed again, in ms. Counts as one retry. */
  when(item: string): number;
  /** Stops tracking `item`: its next failure starts the backoff from the beginning. */
  forget(item: string): void;
  /** How many times `item` has been requeued since the last `forget`. */
  numRequeues(item: string): number;
}

/** `baseMs * 2^failures`, capped at `maxMs`, per item (client-go: 5 ms .. 1000 s). */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {
    if (baseMs <= 0 || maxMs < baseMs) throw new RangeError("need 0 < baseMs <= maxMs");
  }

  when(item: string): number {
    const failures = this.failures.get(item) ?? 0;
    this.failures.set(item, failures + 1);
    const delay = this.baseMs * Math.pow(2, failures);
    return Number.isFinite(delay) ? Math.min(delay, this.maxMs) : this.maxMs;
  }

  forget(item: string): void {
    this.failures.delete(item);
  }

  numRequeues(item: string): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * A token bucket over all items (client-go: 10 qps, burst 100). Each call reserves one token, possibly in
 * the future, and returns the wait until that token exists — like golang.org/x/time/rate's Reserve.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    private readonly qps = 10,
    private readonly burst = 100,
  ) {
    if (qps <= 0 || burst < 1) throw new RangeError("need qps > 0 and burst >= 1");
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: string): number {
    const now = this.clock.now();
    // Time may only move forward for the bucket; a reservation in the future keeps `last` ahead of now.
    const elapsed = Math.max(0, now - this.last);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
    this.last = Math.max(this.last, now);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.qps);
  }

  forget(_item: string): void {
    // The bucket is shared by all items: there is nothing per item to forget.
  }

  numRequeues(_item: string): number {
    return 0;
  }
}

/** The longest wait any of the limiters asks for; every limiter sees every call. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new RangeError("MaxOfRateLimiter needs at least one limiter");
    this.limiters = limiters;
  }

  when(item: string): number {
    return Math.max(...this.limiters.map((l) => l.when(item)));
  }

  forget(item: string): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: string): number {
    return Math.max(...this.limiters.map((l) => l.numRequeues(item)));
  }
}

/** client-go's DefaultControllerRateLimiter: per-item 5 ms .. 1000 s, overall 10 qps with burst 100. */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialFailureRateLimiter(5, 1_000_000),
    new BucketRateLimiter(clock, 10, 100),
  );
}
