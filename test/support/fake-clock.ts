// A manually advanced Clock for unit tests: time moves only when a test says so, and timers fire in due
// order, so tests of timing behaviour neither sleep nor depend on the machine's speed.
import type { Clock, Timer } from "../../src/runtime/clock.js";

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
