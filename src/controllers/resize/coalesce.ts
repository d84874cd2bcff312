// Rate-limits a per-key write to once per interval: the group's status is a summary of its queue, so
// writing it on every pass (1.1 writes per request under load) buys nothing a reader can see. A
// withheld write is not lost: the caller reconciles the key again when the interval is over, and the
// summary decided then is written.
export class WriteCoalescer {
  private readonly lastWrite = new Map<string, number>();

  constructor(private readonly intervalMs: number) {}

  /** How long `key` must wait before its next write: 0 when it may write now. */
  waitMs(key: string, nowMs: number): number {
    const last = this.lastWrite.get(key);
    return last === undefined ? 0 : Math.max(0, last + this.intervalMs - nowMs);
  }

  wrote(key: string, nowMs: number): void {
    this.lastWrite.set(key, nowMs);
  }

  forget(key: string): void {
    this.lastWrite.delete(key);
  }
}
