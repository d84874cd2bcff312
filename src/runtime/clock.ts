// Time as a dependency: every timer of the runtime, the event recorder and the operations store goes
// through a Clock, so unit tests drive queues, rate limiters, leader election and the recorder with the
// fake clock of test/support instead of waiting in real time.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Runs `fn` once after `ms`; the returned timer can be cancelled. Real timers keep the process alive
   * (a candidate waiting for its next retry may have nothing else pending) unless `keepAlive` is false,
   * for housekeeping that must not hold a finished process open.
   */
  setTimer(fn: () => void, ms: number, options?: { readonly keepAlive?: boolean }): Timer;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms, options) {
    const handle = setTimeout(fn, Math.max(0, ms));
    if (options?.keepAlive === false) handle.unref();
    return {
      cancel: () => {
        clearTimeout(handle);
      },
    };
  },
};

/**
 * `signal.aborted`, read through a call: TypeScript narrows a property it has already tested and would
 * otherwise treat a re-check after an await as dead code.
 */
export function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** Resolves after `ms`, or early (without rejecting) when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      resolve();
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
