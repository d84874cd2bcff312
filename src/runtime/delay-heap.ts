// The work queue's delayed keys: a binary min-heap by due time, so that one timer (for the earliest)
// serves every delayed key. One timer per key, as before, cost a timer object for each of them; the
// retention controller delays every finished request until it expires, 100,000 timers at 100,000
// cached requests. Entries are never removed from the middle: a key whose time moved earlier leaves its
// old entry behind, and `popDue` skips entries that no longer match the key's current time.
export class DelayHeap {
  private readonly entries: { at: number; key: string }[] = [];
  /** Each delayed key's current due time. */
  private readonly due = new Map<string, number>();

  /** Delays `key` until `at`; if it is already delayed, the earlier time wins. Returns whether `at` was kept. */
  push(key: string, at: number): boolean {
    const current = this.due.get(key);
    if (current !== undefined && current <= at) return false;
    this.due.set(key, at);
    this.entries.push({ at, key });
    this.up(this.entries.length - 1);
    return true;
  }

  /** The earliest due time, or undefined when nothing is delayed. */
  next(): number | undefined {
    this.dropStale();
    return this.entries[0]?.at;
  }

  /** Removes and returns the keys due at `now` or before, earliest first. */
  popDue(now: number): string[] {
    const keys: string[] = [];
    for (;;) {
      this.dropStale();
      const top = this.entries[0];
      if (!top || top.at > now) return keys;
      this.pop();
      this.due.delete(top.key);
      keys.push(top.key);
    }
  }

  get size(): number {
    return this.due.size;
  }

  clear(): void {
    this.entries.length = 0;
    this.due.clear();
  }

  private dropStale(): void {
    for (let top = this.entries[0]; top && this.due.get(top.key) !== top.at; top = this.entries[0])
      this.pop();
  }

  private pop(): void {
    const last = this.entries.pop();
    if (last && this.entries.length > 0) {
      this.entries[0] = last;
      this.down(0);
    }
  }

  private up(i: number): void {
    const e = this.entries;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((e[parent]?.at ?? -Infinity) <= (e[i]?.at ?? -Infinity)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const e = this.entries;
    for (;;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let least = i;
      if (l < e.length && (e[l]?.at ?? Infinity) < (e[least]?.at ?? Infinity)) least = l;
      if (r < e.length && (e[r]?.at ?? Infinity) < (e[least]?.at ?? Infinity)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private swap(a: number, b: number): void {
    const e = this.entries;
    const t = e[a];
    const u = e[b];
    if (t === undefined || u === undefined) return;
    e[a] = u;
    e[b] = t;
  }
}
