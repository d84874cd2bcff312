// Start-up calls to the API server (discovery before the manager runs) retried while the server does
// not answer, as client-go's discovery and informers are: an operator started while its API server
// restarts waits for it instead of exiting on the first refused connection.
import type { Logger } from "pino";
import { isTransient } from "./api-errors.js";
import { Backoff, type BackoffPolicy } from "./backoff.js";
import { realClock, sleep, type Clock } from "./clock.js";

export interface StartUpRetry {
  readonly log: Logger;
  /** What the call finds out, for the log ("whether ProvisioningRequests are served"). */
  readonly what: string;
  /** How long to keep trying before start-up fails with the last error. */
  readonly giveUpAfterMs: number;
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
  readonly policy?: BackoffPolicy;
}

const START_UP_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 5_000, factor: 2, jitter: 0.2 };

/** `call()`, tried again after each transient failure until it answers or `giveUpAfterMs` passes. */
export async function retryAtStartUp<T>(call: () => Promise<T>, options: StartUpRetry): Promise<T> {
  const clock = options.clock ?? realClock;
  const backoff = new Backoff(options.policy ?? START_UP_BACKOFF, Number.POSITIVE_INFINITY);
  const until = clock.now() + options.giveUpAfterMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const delayMs = backoff.next(clock.now());
      if (!isTransient(err) || clock.now() + delayMs > until || options.signal?.aborted) throw err;
      options.log.warn(
        { err, retryInMs: Math.round(delayMs) },
        `the API server did not answer ${options.what}; trying again`,
      );
      await sleep(clock, delayMs, options.signal);
    }
  }
}
