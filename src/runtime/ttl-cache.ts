// The one cache of answers that cost a round trip and stay true for a while: REST's TokenReviews and
// SubjectAccessReviews (rest/auth.ts) and the dashboard's RBAC answers (dashboard/authz.ts). Bounded,
// so a flood of distinct tokens cannot grow it; expiring by the Clock, so tests drive it with the fake
// clock; and it asks once for concurrent lookups of one key, because the live stream checks every open
// connection at once for each watch event and would otherwise send one review per connection.
import { realClock, type Clock } from "./clock.js";

export interface TtlCacheOptions<V> {
  /** How long an answer is reused, counted from when it arrived. */
  readonly ttlMs: number;
  /** Upper bound of entries; when full, the oldest lookup is forgotten first. */
  readonly maxEntries: number;
  readonly clock?: Clock;
  /**
   * Whether an answer is remembered (default: every one). One that is not still serves the lookups
   * merged with it, so a denial is asked once however many callers wait for it.
   */
  readonly keep?: (value: V) => boolean;
}

interface Entry<V> {
  readonly value: Promise<V>;
  /** When the answer stops being reused; undefined while the lookup is in flight. */
  expires?: number;
}

export class TtlCache<K, V> {
  /** In insertion order (a Map's), which is lookup order: the first entry is the oldest. */
  private readonly entries = new Map<K, Entry<V>>();
  private readonly clock: Clock;

  constructor(private readonly options: TtlCacheOptions<V>) {
    this.clock = options.clock ?? realClock;
  }

  /**
   * The answer for `key`: the remembered one while it is fresh, the pending one while a lookup is in
   * flight, else a new `lookup()`. A rejected lookup is forgotten (an error is not an answer).
   */
  get(key: K, lookup: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && (hit.expires === undefined || hit.expires > this.clock.now())) return hit.value;
    this.entries.delete(key);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.options.maxEntries) break;
      this.entries.delete(oldest);
    }
    let value: Promise<V>;
    try {
      value = lookup();
    } catch (err) {
      // A lookup that throws before returning its promise fails like one that rejects.
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const entry: Entry<V> = { value };
    this.entries.set(key, entry);
    const settle = (kept: boolean): void => {
      // Evicted or replaced meanwhile: the entry there now is not this lookup's.
      if (this.entries.get(key) !== entry) return;
      if (kept) entry.expires = this.clock.now() + this.options.ttlMs;
      else this.entries.delete(key);
    };
    value.then(
      (answer) => {
        settle(this.options.keep?.(answer) ?? true);
      },
      () => {
        settle(false);
      },
    );
    return value;
  }

  /** Entries held now, fresh, pending or expired but not yet dropped (tests). */
  get size(): number {
    return this.entries.size;
  }
}
