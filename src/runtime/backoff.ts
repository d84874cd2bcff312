// Exponential backoff, pure: callers keep the attempt count and pass in the random source, so the
// numbers are reproducible in tests.

export interface BackoffPolicy {
  /** Delay of the first retry, in ms. */
  readonly initialMs: number;
  /** Upper bound of any delay, in ms (before jitter). */
  readonly maxMs: number;
  /** Growth per attempt; 2 doubles. */
  readonly factor: number;
  /** Adds up to `jitter * delay` at random, so that many clients retrying at once spread out. 0 disables. */
  readonly jitter: number;
}

/** `initialMs * factor^attempt`, capped at `maxMs`; attempt 0 is the first retry. */
export function exponentialDelay(policy: BackoffPolicy, attempt: number): number {
  if (attempt < 0 || !Number.isFinite(attempt)) throw new RangeError(`invalid attempt ${attempt}`);
  const raw = policy.initialMs * Math.pow(policy.factor, attempt);
  // Math.pow overflows to Infinity for large attempts; the cap keeps the result finite.
  return Number.isFinite(raw) ? Math.min(raw, policy.maxMs) : policy.maxMs;
}

/** `delayMs` plus up to `jitter * delayMs`, using `random()` in [0, 1). */
export function withJitter(delayMs: number, jitter: number, random: () => number = Math.random): number {
  return jitter > 0 ? delayMs + random() * jitter * delayMs : delayMs;
}

/** The delay before retry number `attempt` (0-based), jittered as the policy says. */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  return withJitter(exponentialDelay(policy, attempt), policy.jitter, random);
}

/**
 * A retry counter with a reset rule: once an operation has stayed healthy for `resetAfterMs`, the next
 * failure starts again from the initial delay (client-go's reflector backoff does the same).
 */
export class Backoff {
  private attempt = 0;
  private lastFailure: number | undefined;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly resetAfterMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Records a failure at `now` and returns how long to wait before retrying. */
  next(now: number): number {
    if (this.lastFailure !== undefined && now - this.lastFailure > this.resetAfterMs) this.attempt = 0;
    this.lastFailure = now;
    return backoffDelay(this.policy, this.attempt++, this.random);
  }
}
