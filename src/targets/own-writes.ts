// Read-your-own-writes over a target's informer cache. A scale write lands on the API server a few ms
// before its watch event reaches the cache; a pass in between would see the old replicas and could take
// the change for undone (another writer's). So each successful write is remembered and laid over the
// cached object until the cache has delivered that resourceVersion or a newer one.
//
// resourceVersions are etcd revisions: one counter for the whole store, so a later write to an object
// always has a larger one. Kubernetes 1.35 made that a promise (KEP-5504, "Comparable Resource
// Version": a resourceVersion is a positive integer without leading zeros, and two of one resource
// compare as integers; client-go's CompareResourceVersion). An API server that hands out anything else
// breaks the promise, and then an overlay lasts until the next update of the object the cache delivers.

/** What our last successful scale write set, and the resourceVersion the server answered with. */
export interface OwnWrite {
  readonly replicas: number;
  readonly resourceVersion: string;
}

const COMPARABLE = /^[1-9][0-9]*$/;

/**
 * -1, 0 or 1 as `a` is older than, the same as or newer than `b` (KEP-5504: arbitrary-length integers,
 * so by length first, then digit by digit); undefined when either is not such an integer.
 */
export function compareResourceVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  if (!COMPARABLE.test(a) || !COMPARABLE.test(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/**
 * Whether the cache, holding the object at `cached`, has caught up with `write`: it has delivered the
 * write's resourceVersion or a newer one. `update` says the object at `cached` arrived as an informer
 * update after the write; for resourceVersions that cannot be compared, that is the only sign of it.
 */
export function caughtUp(write: OwnWrite, cached: string, update: boolean): boolean {
  const order = compareResourceVersions(cached, write.resourceVersion);
  return order === undefined ? update : order >= 0;
}

/** The remembered writes per target key; the informers clear them as the cache catches up. */
export class OwnWrites {
  private readonly writes = new Map<string, OwnWrite>();

  record(key: string, write: OwnWrite): void {
    this.writes.set(key, write);
  }

  /** The write to lay over the object cached at `cached`, or undefined once the cache has caught up. */
  pending(key: string, cached: string): OwnWrite | undefined {
    const write = this.writes.get(key);
    if (write && caughtUp(write, cached, false)) this.writes.delete(key);
    return this.writes.get(key);
  }

  /** An informer delivered the object at `resourceVersion` (undefined: it was deleted). */
  delivered(key: string, resourceVersion: string | undefined): void {
    const write = this.writes.get(key);
    if (write && (resourceVersion === undefined || caughtUp(write, resourceVersion, true)))
      this.writes.delete(key);
  }

  get size(): number {
    return this.writes.size;
  }
}
