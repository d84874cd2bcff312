// Retry delays for transient failures: exponential, capped, with jitter so that several replicas
// recovering from the same outage do not hit the API server in lockstep.

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** Give up retrying one write after this long. */
  giveUpAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 10_000, giveUpAfterMs: 120_000 };

/** Delay before retry number `retry` (0-based): half fixed, half random ("equal jitter"). */
export function backoffDelay(policy: BackoffPolicy, retry: number, random: () => number): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(retry, 30));
  return ceiling / 2 + (random() * ceiling) / 2;
}
