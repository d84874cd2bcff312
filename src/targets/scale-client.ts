// Reads and scales any workload through its /scale subresource. The resource path of a kind is found
// with API discovery (cached per apiVersion), so Deployments, StatefulSets, Cluster API
// MachineDeployments and custom resources are all handled the same way, namespaced or cluster-scoped
// (a Karpenter NodePool: addressed without a namespace). A call the API server forbids (403) is not an
// error but a refusal the group shows (errors.ts, targetAccessRefusal). With a TargetCache (the
// controller's informers, targets/informers.ts) a target is read from memory wherever the cache can serve
// it, and from the API server only where it cannot; resize_target_reads_total counts both.
import { apiGroupOf, targetLabel } from "../api/target-kinds.js";
import { targetRefProblem } from "../api/target-ref.js";
import { isConflict, isNotFound } from "../runtime/api-errors.js";
import {
  scaleOf,
  unstructuredOf,
  type ApiResource,
  type Scale,
  type Unstructured,
} from "../runtime/builtin-kinds.js";
import type { MetricsSink } from "../runtime/metrics.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { ObjectKey, ResourceLocation } from "../runtime/resource-kind.js";
import type { TargetUnavailable } from "./view.js";
import { countAt } from "./scale-mapping.js";
import { scopeRefusal, targetAccessRefusal, type ServedKind, type TargetAccess } from "./access.js";
import type { CachedTarget, TargetCache } from "./informers.js";

/** Target reads by source: `cache` (an informer's, no call) or `api` (GET of the object and its /scale). */
export const TARGET_READS_METRIC = "resize_target_reads_total";

export interface TargetRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

/** Writes of /scale tried again on a fresh read after a conflict (client-go's DefaultRetry has 5 steps). */
const SCALE_CONFLICT_RETRIES = 4;

export type TargetRead =
  | {
      readonly found: true;
      readonly replicas: number;
      readonly readyReplicas: number;
      /** False while the workload has not caught up with its last change (see settledOf). */
      readonly settled: boolean;
      readonly selector: string | undefined;
      /**
       * The Scale read, or built from the cached object (scale-mapping.ts; its resourceVersion is the
       * object's), so that a change can be written under its resourceVersion without reading again.
       */
      readonly scale: Scale;
      /** What discovery serves for the kind: its resource and whether it is namespaced. */
      readonly served: ServedKind;
      /** The target object as read (e.g. a Karpenter NodePool's limits). */
      readonly object: Unstructured;
    }
  | TargetUnavailable;

/**
 * Whether the target's ready count describes its current spec, as `kubectl rollout status` checks: its
 * controller has observed the latest generation, and no instance beyond the wanted replicas is still
 * there (after a scale-down the ready count keeps counting the pods being removed, so a scale-up right
 * after it would look ready before any of its own instances is). Fields a kind does not report are
 * not held against it.
 */
function settledOf(
  object: unknown,
  scale: { spec?: { replicas?: number }; status?: { replicas?: number } },
): boolean {
  const o = object as { metadata?: { generation?: unknown }; status?: { observedGeneration?: unknown } };
  const generation = o.metadata?.generation;
  const observed = o.status?.observedGeneration;
  if (typeof generation === "number" && typeof observed === "number" && observed < generation) return false;
  const current = scale.status?.replicas;
  return !(typeof current === "number" && current > (scale.spec?.replicas ?? 0));
}

/** A target's key: a cluster-scoped one has no namespace (`scope` undefined). */
const objectKey = (scope: string | undefined, name: string): ObjectKey =>
  scope === undefined ? { name } : { namespace: scope, name };

export interface ScaleClientOptions {
  readonly discoveryTtlMs?: number;
  /**
   * How long a forbidden /scale update is remembered: meanwhile read() answers with that refusal, so the
   * group shows it and its requests wait, instead of trying the same update at every pass.
   */
  readonly refusedUpdateTtlMs?: number;
  /**
   * `Kind.group` of the cluster-scoped kinds a group may target (--cluster-scoped-targets): with it,
   * read() refuses what the admission policy did not cover (targets/access.ts, scopeRefusal). The
   * kubectl plugin, which only shows what its user may read, passes none.
   */
  readonly clusterScopedTargets?: ReadonlySet<string>;
  /** Where targets are read from memory when it can serve them (the controller's; the plugin has none). */
  readonly cache?: TargetCache;
  readonly metrics?: MetricsSink;
  readonly now?: () => number;
}

/** A call's answer, or why the target cannot be used. */
type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly why: TargetUnavailable };

export class ScaleClient {
  private readonly discovery = new Map<string, { at: number; resources: readonly ApiResource[] }>();
  private readonly refusedUpdates = new Map<string, { at: number; why: TargetUnavailable }>();
  private readonly discoveryTtlMs: number;
  private readonly refusedUpdateTtlMs: number;
  private readonly now: () => number;
  private readonly clusterScopedTargets: ReadonlySet<string> | undefined;
  private readonly cache: TargetCache | undefined;
  private readonly reads: { readonly cache: () => void; readonly api: () => void } | undefined;

  constructor(
    private readonly client: KubeClient,
    options: ScaleClientOptions = {},
  ) {
    this.discoveryTtlMs = options.discoveryTtlMs ?? 60_000;
    this.refusedUpdateTtlMs = options.refusedUpdateTtlMs ?? 5_000;
    this.now = options.now ?? Date.now;
    this.clusterScopedTargets = options.clusterScopedTargets;
    this.cache = options.cache;
    const { metrics } = options;
    this.reads = metrics && {
      cache: () => {
        metrics.counter(TARGET_READS_METRIC, { source: "cache" }).inc();
      },
      api: () => {
        metrics.counter(TARGET_READS_METRIC, { source: "api" }).inc();
      },
    };
  }

  private async resources(apiVersion: string, refresh: boolean): Promise<readonly ApiResource[] | undefined> {
    const cached = this.discovery.get(apiVersion);
    if (cached && !refresh && this.now() - cached.at < this.discoveryTtlMs) return cached.resources;
    const resources = await this.client.serverResources(apiVersion);
    if (resources) this.discovery.set(apiVersion, { at: this.now(), resources });
    return resources;
  }

  /** Where `ref`'s kind lives, and whether it has a scale subresource. */
  private async locate(
    ref: TargetRef,
  ): Promise<{ where: ResourceLocation; scalable: boolean } | { missing: string }> {
    // Never a URL from a string the grammar refuses (a group created before the CRD enforced it).
    const problem = targetRefProblem(ref);
    if (problem) return { missing: problem };
    for (const refresh of [false, true]) {
      const resources = await this.resources(ref.apiVersion, refresh);
      const main = resources?.find((r) => r.kind === ref.kind && !r.name.includes("/"));
      if (!resources || !main) continue;
      return {
        where: { apiVersion: ref.apiVersion, resource: main.name, namespaced: main.namespaced },
        scalable: resources.some((r) => r.name === `${main.name}/scale`),
      };
    }
    return { missing: `the API server serves no kind ${ref.kind} in ${ref.apiVersion}` };
  }

  /** One call on the target: NotFound and a 403 become the reason the target cannot be used. */
  private async call<T>(
    ref: TargetRef,
    access: TargetAccess,
    request: () => Promise<T>,
  ): Promise<Outcome<T>> {
    try {
      return { ok: true, value: await request() };
    } catch (err) {
      if (isNotFound(err)) {
        const message = `${targetLabel(ref.kind, ref.name, access.namespace)} does not exist`;
        return { ok: false, why: { found: false, reason: "NotFound", message } };
      }
      const refused = targetAccessRefusal(err, access);
      if (refused) return { ok: false, why: refused };
      throw err;
    }
  }

  private static key(namespace: string | undefined, ref: TargetRef): string {
    return `${ref.apiVersion}/${ref.kind}/${namespace ?? ""}/${ref.name}`;
  }

  /** The refusal of an update of this target within refusedUpdateTtlMs, if any. */
  private refusedUpdate(key: string): TargetUnavailable | undefined {
    const refused = this.refusedUpdates.get(key);
    if (refused && this.now() - refused.at < this.refusedUpdateTtlMs) return refused.why;
    this.refusedUpdates.delete(key);
    return undefined;
  }

  /** `namespace` is the group's; a cluster-scoped target is read without it. */
  async read(namespace: string, ref: TargetRef, readyField: string): Promise<TargetRead> {
    const problem = targetRefProblem(ref);
    if (problem)
      return {
        found: false,
        reason: "InvalidTargetRef",
        message: `${problem}; the operator does not use it.`,
      };
    const located = await this.locate(ref);
    if ("missing" in located) return { found: false, reason: "NotFound", message: located.missing };
    const { where } = located;
    const scope = where.namespaced ? namespace : undefined;
    if (!located.scalable) {
      const message = `${targetLabel(ref.kind, ref.name, scope)} has no /scale subresource`;
      return { found: false, reason: "NotScalable", message };
    }
    const served = { resource: where.resource, namespaced: where.namespaced };
    const refused =
      (this.clusterScopedTargets && scopeRefusal(ref, served, this.clusterScopedTargets)) ||
      this.refusedUpdate(ScaleClient.key(scope, ref));
    if (refused) return refused;
    const cached = await this.cache?.lookup(ref, where, scope, ref.name);
    if (cached) {
      this.reads?.cache();
      return fromCache(cached, readyField, served);
    }
    this.reads?.api();
    const access = {
      verb: "get",
      resource: where.resource,
      apiGroup: apiGroupOf(ref.apiVersion),
      name: ref.name,
      namespace: scope,
    } as const;
    const key = objectKey(scope, ref.name);
    const [object, scale] = await Promise.all([
      this.call(ref, access, () => this.client.resource(unstructuredOf(where, ref.kind)).get(key)),
      this.call(ref, { ...access, subresource: "scale" }, () =>
        this.client.resource(scaleOf(where)).get(key),
      ),
    ]);
    if (!object.ok) return object.why;
    if (!scale.ok) return scale.why;
    return {
      found: true,
      replicas: scale.value.spec?.replicas ?? 0,
      readyReplicas: countAt(object.value, readyField),
      settled: settledOf(object.value, scale.value),
      selector: scale.value.status?.selector,
      scale: scale.value,
      served,
      object: object.value,
    };
  }

  /**
   * Sets the replicas, but only if the target still has `from`, written under the resourceVersion of
   * the Scale it was read in. `observed` (the Scale read or built from the cache earlier in this pass)
   * saves the read; when the object changed since (often only its status, or the cache was a moment
   * behind), /scale is read once more and checked again. A write that lands is handed to the cache
   * (own-writes.ts), so that the next pass sees it even before the informer delivers it. Returns
   * false, changing nothing, when the target's replicas moved in the meantime, or when the API server
   * forbids the call: read() then answers with that refusal for refusedUpdateTtlMs.
   */
  async scale(
    namespace: string,
    ref: TargetRef,
    from: number,
    replicas: number,
    observed?: Scale,
  ): Promise<boolean> {
    const located = await this.locate(ref);
    if ("missing" in located || !located.scalable) return false;
    const { where } = located;
    const scope = where.namespaced ? namespace : undefined;
    const scales = this.client.resource(scaleOf(where));
    const access = {
      resource: where.resource,
      apiGroup: apiGroupOf(ref.apiVersion),
      subresource: "scale",
      name: ref.name,
      namespace: scope,
    } as const;
    // Which call a 403 answered, for the refusal's message.
    let verb: "get" | "update" = "get";
    const attempt = async (current: Scale): Promise<"done" | "moved" | "conflict"> => {
      if ((current.spec?.replicas ?? 0) !== from) return "moved";
      verb = "update";
      try {
        const written = await scales.update({ ...current, spec: { ...current.spec, replicas } });
        const resourceVersion = written.metadata.resourceVersion;
        // Until the cache delivers this write, a read of it shows what we wrote (own-writes.ts).
        if (resourceVersion !== undefined)
          this.cache?.wrote(where, scope, ref.name, { replicas, resourceVersion });
        return "done";
      } catch (err) {
        if (isConflict(err)) return "conflict";
        throw err;
      }
    };
    const fresh = (): Promise<Scale> => {
      verb = "get";
      return scales.get(objectKey(scope, ref.name));
    };
    try {
      let outcome = await attempt(observed ?? (await fresh()));
      // A conflict whose fresh read still shows `from` is someone else's write to another field (a
      // Karpenter NodePool's status is rewritten as its NodeClaims go, and the node-limit hold is ours):
      // try again on the fresh copy, as client-go's RetryOnConflict does, rather than a whole pass later.
      for (let retry = 0; outcome === "conflict" && retry < SCALE_CONFLICT_RETRIES; retry++)
        outcome = await attempt(await fresh());
      return outcome === "done";
    } catch (err) {
      const refused = targetAccessRefusal(err, { ...access, verb });
      if (!refused) throw err;
      this.refusedUpdates.set(ScaleClient.key(scope, ref), { at: this.now(), why: refused });
      return false;
    }
  }
}

/** A target read from the cache: the same view a GET of the object and its /scale gives. */
function fromCache(cached: CachedTarget, readyField: string, served: ServedKind): TargetRead {
  const { object, scale } = cached;
  return {
    found: true,
    replicas: scale.spec?.replicas ?? 0,
    readyReplicas: countAt(object, readyField),
    // Our write not delivered yet: its controller has not observed it either.
    settled: !cached.ownWritePending && settledOf(object, scale),
    selector: scale.status?.selector,
    scale,
    served,
    object,
  };
}
