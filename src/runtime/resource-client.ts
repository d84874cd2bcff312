// The typed Kubernetes client every caller uses (the role of controller-runtime's client.Client): one
// ResourceClient per kind, whose replies are decoded with the kind's schema and whose failures are
// ApiErrors told apart by the helpers of api-errors.ts. `httpKubeClient` is the real one; tests use the
// in-memory fake of test/support.
import type { ApiResource } from "./builtin-kinds.js";
import type { ObjectKey, ResourceKind } from "./resource-kind.js";

export interface CallOptions {
  /** Whole-call deadline in ms (default 30 s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface ListOptions extends CallOptions {
  /** All namespaces when undefined (namespaced kinds). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; the reply's `continue` fetches the next page. */
  readonly limit?: number;
  readonly continue?: string;
}

export interface ObjectList<T> {
  readonly items: T[];
  readonly resourceVersion: string;
  /** Set when more pages follow. */
  readonly continue?: string;
}

/** DeleteOptions.preconditions: the delete fails with a conflict unless the object still matches. */
export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface DeleteOptions extends CallOptions {
  readonly preconditions?: Preconditions;
}

/**
 * A JSON merge patch (RFC 7386). `metadata.resourceVersion` in a patch makes it conditional
 * (a conflict when the object moved on), `metadata.uid` guards against a re-created namesake.
 */
export interface MergePatch {
  readonly metadata?: {
    readonly resourceVersion?: string | undefined;
    readonly uid?: string | undefined;
    readonly finalizers?: readonly string[];
    readonly labels?: Readonly<Record<string, string | null>>;
    readonly annotations?: Readonly<Record<string, string | null>>;
  };
  readonly [field: string]: unknown;
}

/** What every kind the client handles has: its type, and (unless it is a review) where it lives. */
export interface Addressable {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata?: { readonly name?: string; readonly namespace?: string } | undefined;
}

export interface ResourceClient<T extends Addressable> {
  readonly kind: ResourceKind<T>;
  get(key: ObjectKey, options?: CallOptions): Promise<T>;
  list(options?: ListOptions): Promise<ObjectList<T>>;
  /** POST to the collection of `obj`'s namespace; the created object (or review) as the server stored it. */
  create(obj: T, options?: CallOptions): Promise<T>;
  /** PUT of the whole object; a conflict unless `obj`'s resourceVersion is current (when it has one). */
  update(obj: T, options?: CallOptions): Promise<T>;
  /** PUT of the status subresource: only `obj.status` changes; a conflict as for `update`. */
  updateStatus(obj: T, options?: CallOptions): Promise<T>;
  mergePatch(key: ObjectKey, patch: MergePatch, options?: CallOptions): Promise<T>;
  /**
   * Deletes the object. Resolves with the object when it is still there (finalizers hold it back, its
   * deletionTimestamp set), undefined when it is gone.
   */
  delete(key: ObjectKey, options?: DeleteOptions): Promise<T | undefined>;
}

export interface KubeClient {
  resource<T extends Addressable>(kind: ResourceKind<T>): ResourceClient<T>;
  /** The resources a group version serves (API discovery); undefined when the server does not serve it. */
  serverResources(apiVersion: string, options?: CallOptions): Promise<readonly ApiResource[] | undefined>;
}

/**
 * Whether the API server serves `kind` with its status subresource (its CRD is installed): a controller
 * of an optional kind starts only then, since Helm installs a chart's CRDs on install only.
 */
export async function servesWithStatus(
  client: KubeClient,
  kind: { readonly apiVersion: string; readonly resource: string },
): Promise<boolean> {
  const resources = await client.serverResources(kind.apiVersion);
  return resources?.some((r) => r.name === `${kind.resource}/status`) ?? false;
}
