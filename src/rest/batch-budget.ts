// What one caller's batches may cost before any part is authenticated. Every part is authenticated on
// its own (a TokenReview per distinct token, cached), so without a bound one unauthenticated batch of
// 1,000 parts with 1,000 tokens costs 1,000 TokenReviews and pushes every caller's reviews out of the
// cache. A batch may carry at most a few distinct credentials, and each caller (its address) has a budget
// of parts that refills over time, both checked before any part runs.

/** Distinct credentials (Authorization headers, access_token / oauth_token parameters) per batch. */
export const MAX_CREDENTIALS_PER_BATCH = 8;

interface Part {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The distinct credentials a batch's parts would be authenticated with. */
export function credentialsOf(
  parts: readonly Part[],
  inherited: Readonly<Record<string, string>>,
): Set<string> {
  const found = new Set<string>();
  for (const part of parts) {
    const header = part.headers["authorization"] ?? inherited["authorization"];
    if (header !== undefined) found.add(`header:${header}`);
    const query = part.path.indexOf("?");
    if (query < 0) continue;
    const params = new URLSearchParams(part.path.slice(query + 1));
    for (const name of ["access_token", "oauth_token"])
      for (const v of params.getAll(name)) found.add(`token:${v}`);
  }
  return found;
}

export interface PartBudgetOptions {
  /** Parts a caller may send at once (a full bucket). */
  readonly capacity: number;
  /** Parts given back per second. */
  readonly refillPerSecond: number;
  readonly now: () => number;
  /** Callers remembered at most; the longest idle are forgotten (they start again with a full bucket). */
  readonly maxCallers: number;
}

/** A token bucket of parts per caller. */
export class PartBudget {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  constructor(private readonly options: PartBudgetOptions) {}

  /** Takes `parts` from `caller`'s bucket; false (and nothing taken) when it does not hold that many. */
  take(caller: string, parts: number): boolean {
    const { capacity, refillPerSecond, now, maxCallers } = this.options;
    const atMs = now();
    const bucket = this.buckets.get(caller) ?? { tokens: capacity, atMs };
    const tokens = Math.min(capacity, bucket.tokens + ((atMs - bucket.atMs) / 1000) * refillPerSecond);
    const allowed = tokens >= parts;
    // Re-inserted: the Map's order is then least recently used first.
    this.buckets.delete(caller);
    this.buckets.set(caller, { tokens: allowed ? tokens - parts : tokens, atMs });
    while (this.buckets.size > maxCallers) {
      const oldest = this.buckets.keys().next().value;
      if (oldest === undefined) break;
      this.buckets.delete(oldest);
    }
    return allowed;
  }
}
