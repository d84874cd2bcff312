// Reads and writes the coordination.k8s.io/v1 Lease the leader election uses, with optimistic
// concurrency: an update carries the resourceVersion it was based on, so of two candidates racing for
// the same lease exactly one wins and the other gets 409 Conflict.
import { ApiError, type KubeHttp } from "./kube-http.js";

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

function parseTime(v: unknown): number {
  if (typeof v !== "string") return 0;
  const t = Date.parse(v);
  return Number.isNaN(t) ? 0 : t;
}

interface LeaseJson {
  metadata?: { resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

function fromJson(body: unknown): StoredLease {
  const lease = body as LeaseJson;
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

function toSpec(r: LeaseRecord): Record<string, unknown> {
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
  client: KubeHttp,
  namespace: string,
  name: string,
  timeoutMs = 5000,
): LeaseClient {
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const item = `${collection}/${encodeURIComponent(name)}`;
  // Like client-go's LeaseLock, an update replaces the spec of the lease as last seen and keeps the rest
  // of its metadata: labels and annotations someone else set (e.g. Helm's ownership records, when the
  // chart creates the Lease) must survive a renewal.
  let seenMetadata: Record<string, unknown> = {};
  const remember = (body: unknown): StoredLease => {
    const metadata = (body as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    const { labels, annotations, ownerReferences } = metadata ?? {};
    seenMetadata = { labels, annotations, ownerReferences };
    return fromJson(body);
  };
  const conflictToUndefined = (err: unknown): undefined => {
    if (err instanceof ApiError && (err.status === 409 || err.reason === "AlreadyExists")) return undefined;
    throw err;
  };
  return {
    async get(signal) {
      try {
        return remember(await client.request("GET", item, { signal, timeoutMs }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return undefined;
        throw err;
      }
    },
    async create(record, signal) {
      const body = {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name, namespace },
        spec: toSpec(record),
      };
      return client
        .request("POST", collection, { body, signal, timeoutMs })
        .then(remember, conflictToUndefined);
    },
    async update(record, resourceVersion, signal) {
      const body = {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { ...seenMetadata, name, namespace, resourceVersion },
        spec: toSpec(record),
      };
      return client.request("PUT", item, { body, signal, timeoutMs }).then(remember, conflictToUndefined);
    },
  };
}
