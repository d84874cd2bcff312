// Time as a dependency: every timer in the runtime goes through a Clock so unit tests can drive queues,
// rate limiters and leader election with a FakeClock instead of waiting in real time.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Runs `fn` once after `ms`; the returned timer can be cancelled. Real timers keep the process alive:
   * a candidate waiting for its next retry may have nothing else pending.
   */
  setTimer(fn: () => void, ms: number): Timer;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
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

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

/** A manually advanced clock. Timers fire in due order, including timers scheduled while advancing. */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const entry: Pending = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.pending.push(entry);
    return {
      cancel: () => {
        this.pending = this.pending.filter((p) => p !== entry);
      },
    };
  }

  /** Number of timers not yet fired. */
  get timers(): number {
    return this.pending.length;
  }

  /** Moves time forward by `ms`, firing due timers one by one and letting promise callbacks run between them. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushPromises();
      const next = this.nextDue(target);
      if (!next) break;
      this.pending = this.pending.filter((p) => p !== next);
      this.current = Math.max(this.current, next.at);
      next.fn();
    }
    this.current = target;
    await flushPromises();
  }

  private nextDue(limit: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.pending) {
      if (p.at > limit) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    return best;
  }
}

/** Lets every already-queued promise continuation run (several macrotask turns deep). */
export async function flushPromises(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
