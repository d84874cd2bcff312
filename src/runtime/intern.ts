// Shared strings for cached objects. A decoded API object holds every string its JSON held, each one a
// fresh copy: across 100,000 cached requests the same namespace, group, zone, condition type, reason and
// message exist 100,000 times. Interning them as an object enters the cache keeps one copy of each (the
// cached objects are read-only, so sharing is invisible to readers). Strings that are distinct per
// object — names, uids, resource versions, links, timestamps, annotations — would only fill the table:
// they are shared within their own object (a creation time repeated in a condition), never across.
/** A bounded set of shared strings: when full it starts afresh, so distinct values cannot grow it. */
export class StringTable {
  private readonly strings = new Map<string, string>();

  constructor(readonly capacity = 16_384) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError("capacity must be a positive integer");
  }

  /** The table's copy of `s` (adding `s` if it has none). */
  intern(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    // Objects interned before keep their (equal) copies: a clear costs sharing, never correctness.
    if (this.strings.size >= this.capacity) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }

  get size(): number {
    return this.strings.size;
  }
}

/** Keys whose strings Kubernetes makes distinct per object (metadata identity, times, annotations). */
const KUBERNETES_PER_OBJECT = new Set(["name", "generateName", "uid", "resourceVersion", "annotations"]);

/**
 * True for a key whose string values (or whose subtree's) are distinct per object: Kubernetes' own
 * (`KUBERNETES_PER_OBJECT`), every time (`…Time`, `…Timestamp`), and the kind's own `extra` keys.
 */
export function perObjectKeys(extra: readonly string[] = []): (key: string) => boolean {
  const keys = new Set([...KUBERNETES_PER_OBJECT, ...extra]);
  return (key) => keys.has(key) || key.endsWith("Time") || key.endsWith("Timestamp");
}

/**
 * Replaces, in place, every string of `value` (a decoded JSON tree owned by the caller) by its shared
 * copy: from `table`, or for keys `perObject` names, from a table of this object alone. Returns `value`.
 */
export function internStrings<T>(value: T, table: StringTable, perObject: (key: string) => boolean): T {
  const own = new Map<string, string>();
  const local = (s: string): string => {
    const known = own.get(s);
    if (known !== undefined) return known;
    own.set(s, s);
    return s;
  };
  const walk = (node: unknown, shared: boolean): unknown => {
    if (typeof node === "string") return shared ? table.intern(node) : local(node);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) node[i] = walk(node[i], shared);
    } else if (node !== null && typeof node === "object") {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) record[key] = walk(record[key], shared && !perObject(key));
    }
    return node;
  };
  return walk(value, true) as T;
}
