// Reads and writes the coordination.k8s.io/v1 Lease the leader election uses, with optimistic
// concurrency: an update carries the resourceVersion it was based on, so of two candidates racing for
// the same lease exactly one wins and the other gets 409 Conflict.
import { isAlreadyExists, isConflict, isNotFound } from "./api-errors.js";
import { LEASES, type Lease, type ObjectMeta } from "./builtin-kinds.js";
import type { KubeClient } from "./resource-client.js";

export interface LeaseRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** Epoch ms. */
  acquireTime: number;
  /** Epoch ms. */
  renewTime: number;
  leaseTransitions: number;
}

export interface StoredLease {
  record: LeaseRecord;
  resourceVersion: string;
}

export interface LeaseClient {
  /** The lease, or undefined when it does not exist. */
  get(signal: AbortSignal): Promise<StoredLease | undefined>;
  /** Creates the lease; undefined when someone else created it first. */
  create(record: LeaseRecord, signal: AbortSignal): Promise<StoredLease | undefined>;
  /** Replaces the lease if it is still at `resourceVersion`; undefined on a conflict. */
  update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<StoredLease | undefined>;
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function parseTime(v: string | undefined): number {
  if (v === undefined) return 0;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
}

function stored(lease: Lease): StoredLease {
  const spec = lease.spec ?? {};
  return {
    resourceVersion: lease.metadata?.resourceVersion ?? "",
    record: {
      holderIdentity: spec.holderIdentity ?? "",
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: parseTime(spec.acquireTime),
      renewTime: parseTime(spec.renewTime),
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
  };
}

function toSpec(r: LeaseRecord): NonNullable<Lease["spec"]> {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: formatMicroTime(r.acquireTime),
    renewTime: formatMicroTime(r.renewTime),
    leaseTransitions: r.leaseTransitions,
  };
}

/** A LeaseClient for `namespace/name` over the API server. Each call is bounded by `timeoutMs`. */
export function httpLeaseClient(
  client: KubeClient,
  namespace: string,
  name: string,
  timeoutMs = 5000,
): LeaseClient {
  const leases = client.resource(LEASES);
  const key = { namespace, name };
  // Like client-go's LeaseLock, an update replaces the spec of the lease as last seen and keeps the rest
  // of its metadata: labels and annotations someone else set (e.g. Helm's ownership records, when the
  // chart creates the Lease) must survive a renewal.
  let seenMetadata: Pick<ObjectMeta, "labels" | "annotations" | "ownerReferences"> = {};
  const remember = (lease: Lease): StoredLease => {
    const { labels, annotations, ownerReferences } = lease.metadata ?? {};
    seenMetadata = { labels, annotations, ownerReferences };
    return stored(lease);
  };
  const lostRace = (err: unknown): undefined => {
    if (isConflict(err) || isAlreadyExists(err)) return undefined;
    throw err;
  };
  return {
    async get(signal) {
      try {
        return remember(await leases.get(key, { signal, timeoutMs }));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(record, signal) {
      const lease: Lease = {
        apiVersion: LEASES.apiVersion,
        kind: LEASES.kind,
        metadata: { name, namespace },
        spec: toSpec(record),
      };
      return leases.create(lease, { signal, timeoutMs }).then(remember, lostRace);
    },
    async update(record, resourceVersion, signal) {
      const lease: Lease = {
        apiVersion: LEASES.apiVersion,
        kind: LEASES.kind,
        metadata: { ...seenMetadata, name, namespace, resourceVersion },
        spec: toSpec(record),
      };
      return leases.update(lease, { signal, timeoutMs }).then(remember, lostRace);
    },
  };
}
