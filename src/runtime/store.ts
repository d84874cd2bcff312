// The informer's in-memory cache: objects by "namespace/name" (or "name" for cluster-scoped objects),
// plus optional secondary indexes (for example "requests by group name") and counters (for example
// "requests by namespace and state") kept up to date on every change.
import type { KubeObject } from "./object.js";

/** Computes the index values of an object; an object may appear under several values or none. */
export type IndexFunc<T> = (obj: T) => readonly string[];

export const NAMESPACE_INDEX = "namespace";

/** The cache key of an object: "namespace/name", or "name" when it has no namespace. */
export function objectKey(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error("object without metadata.name");
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

/** Splits a cache key back into namespace and name. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Read access to a cache, handed to reconcilers. Objects are shared: treat them as read-only. */
export interface Lister<T> {
  get(key: string): T | undefined;
  list(namespace?: string): T[];
  keys(): string[];
  byIndex(index: string, value: string): T[];
  /**
   * How many cached objects a counter puts under each of its values (absent: none). Live, not a copy:
   * read it at once, never write it. Reading costs the number of values, not of objects, which is what
   * lets a metric scrape stay cheap at 250,000 cached objects.
   */
  counts(counter: string): ReadonlyMap<string, number>;
}

export class Store<T extends KubeObject> implements Lister<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers: ReadonlyMap<string, IndexFunc<T>>;
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /** An index that keeps only the size of each value's set: no key is held, so it costs no memory per object. */
  private readonly counters: ReadonlyMap<string, { fn: IndexFunc<T>; counts: Map<string, number> }>;

  constructor(
    indexers: Readonly<Record<string, IndexFunc<T>>> = {},
    counters: Readonly<Record<string, IndexFunc<T>>> = {},
  ) {
    const all = new Map<string, IndexFunc<T>>(Object.entries(indexers));
    if (!all.has(NAMESPACE_INDEX))
      all.set(NAMESPACE_INDEX, (o) => (o.metadata?.namespace ? [o.metadata.namespace] : []));
    this.indexers = all;
    for (const name of all.keys()) this.indices.set(name, new Map());
    this.counters = new Map(Object.entries(counters).map(([name, fn]) => [name, { fn, counts: new Map() }]));
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(namespace?: string): T[] {
    return namespace === undefined ? [...this.items.values()] : this.byIndex(NAMESPACE_INDEX, namespace);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  /**
   * The cached objects, read as the iteration reaches them (a Map's live iterator): no copy of the
   * cache is made, an object deleted before its turn is skipped, and one changed is seen as it is then.
   */
  values(): IterableIterator<T> {
    return this.items.values();
  }

  get size(): number {
    return this.items.size;
  }

  byIndex(index: string, value: string): T[] {
    const idx = this.indices.get(index);
    if (!idx) throw new Error(`no index named ${JSON.stringify(index)}`);
    const keys = idx.get(value);
    if (!keys) return [];
    return [...keys].flatMap((k) => {
      const obj = this.items.get(k);
      return obj ? [obj] : [];
    });
  }

  counts(counter: string): ReadonlyMap<string, number> {
    const c = this.counters.get(counter);
    if (!c) throw new Error(`no counter named ${JSON.stringify(counter)}`);
    return c.counts;
  }

  /** Inserts or replaces an object; returns the previous version. */
  set(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    this.index(key, obj);
    return old;
  }

  /** Removes an object by key; returns what was cached. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name);
      if (!idx) continue;
      for (const value of fn(obj)) {
        let keys = idx.get(value);
        if (!keys) idx.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
    for (const { fn, counts } of this.counters.values())
      for (const value of fn(obj)) counts.set(value, (counts.get(value) ?? 0) + 1);
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name);
      if (!idx) continue;
      for (const value of fn(obj)) {
        const keys = idx.get(value);
        keys?.delete(key);
        if (keys?.size === 0) idx.delete(value);
      }
    }
    for (const { fn, counts } of this.counters.values())
      for (const value of fn(obj)) {
        const n = (counts.get(value) ?? 0) - 1;
        if (n > 0) counts.set(value, n);
        else counts.delete(value);
      }
  }
}
