// Targets from shared informers, so that a group's pass reads its target from memory instead of two GETs
// (the object and its /scale). One informer per kind and scope (the operator's --namespace, all
// namespaces, or none for a cluster-scoped kind such as Karpenter's NodePool), created through the
// manager the first time a group targeting that kind is reconciled, as the Node informers are
// (node-informers.ts). The cache holds only what a pass reads (leanTarget). A target change calls
// `onChange`, so that its groups are reconciled at once instead of at their next poll.
//
// The cache cannot serve a kind whose /scale fields are unknown (scale-mapping.ts: neither in the table
// nor in a CRD the operator may read) or that the operator may not list and watch (only `get` granted,
// e.g. through the chart's rbac.extraTargetRules): lookup() then answers undefined and the caller reads
// the API server. A refused list is checked again after `retryMs`, a CRD read again after `crdTtlMs`.
// Until a new informer's first list arrives, and for an object it does not hold (yet: a NotFound
// decides a group's fate, so it is the API server's to say), the caller reads the API server too.
import { apiGroupOf } from "../api/target-kinds.js";
import { isForbidden, isNotFound } from "../runtime/api-errors.js";
import { unstructuredOf, Unstructured, type Scale } from "../runtime/builtin-kinds.js";
import { realClock, type Clock } from "../runtime/clock.js";
import type { Informer } from "../runtime/informer.js";
import type { InformerSpec } from "../runtime/manager.js";
import type { KubeObject } from "../runtime/object.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { resourcePath, type ResourceLocation } from "../runtime/resource-kind.js";
import type { Transform } from "../runtime/transform.js";
import { HOLD_ANNOTATION } from "./karpenter/node-limit.js";
import { TtlCache } from "../runtime/ttl-cache.js";
import { OwnWrites, type OwnWrite } from "./own-writes.js";
import { crdScalePaths, knownScalePaths, scaleOfObject } from "./scale-mapping.js";
import { type ScalePaths } from "./kind.js";
import type { TargetOf } from "./access.js";

/** A target as the cache holds it, with our own write not yet delivered laid over its Scale. */
export interface CachedTarget {
  readonly object: Unstructured;
  readonly scale: Scale;
  /** True while the Scale carries a write of ours that the cache has not delivered yet. */
  readonly ownWritePending: boolean;
}

/** A target object that changed: its kind's API group, kind, namespace (none: cluster-scoped), name. */
export interface ChangedTarget {
  readonly apiGroup: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

/** What the ScaleClient asks of the cache (targets/scale-client.ts). */
export interface TargetCache {
  /** The target, or undefined when the cache cannot serve it now (the caller reads the API server). */
  lookup(
    ref: TargetOf,
    where: ResourceLocation,
    scope: string | undefined,
    name: string,
  ): Promise<CachedTarget | undefined>;
  /** Our scale write succeeded: lay it over the cached object until the cache delivers it. */
  wrote(where: ResourceLocation, scope: string | undefined, name: string, write: OwnWrite): void;
}

export interface TargetInformersOptions {
  /** The manager's shared informers (`mgr.informer`). */
  readonly informer: <T extends KubeObject>(spec: InformerSpec<T>) => Informer<T>;
  readonly client: KubeClient;
  /** The operator's --namespace: namespaced kinds are watched there only; all namespaces when undefined. */
  readonly namespace: string | undefined;
  readonly onChange: (target: ChangedTarget) => void;
  /** How long "may not list" and "no known /scale fields" are believed (default 10 s). */
  readonly retryMs?: number;
  /** How long a CRD's /scale fields are reused (default 60 s, as discovery in targets/scale-client.ts). */
  readonly crdTtlMs?: number;
  readonly clock?: Clock;
}

const CRDS: ResourceLocation = {
  apiVersion: "apiextensions.k8s.io/v1",
  resource: "customresourcedefinitions",
  namespaced: false,
};

/** Spec fields never read and often large: a pod or node template, a StatefulSet's volume claims. */
const UNREAD_SPEC = new Set(["template", "volumeClaimTemplates"]);

/**
 * The cache keeps of a target only what a pass reads: the metadata that names and versions it, the
 * spec without templates (replicas, selector, a NodePool's limits) and the status (counts, conditions).
 * Labels, annotations (but the operator's hold on a NodePool's node limit, targets/karpenter/node-limit.ts),
 * managedFields and owner references are dropped.
 */
export const leanTarget: Transform = (raw) => {
  const {
    apiVersion,
    kind,
    metadata = {},
    spec,
    status,
  } = raw as KubeObject & {
    spec?: Record<string, unknown>;
    status?: unknown;
  };
  const m = metadata as Record<string, unknown>;
  const kept = ["name", "namespace", "uid", "resourceVersion", "generation", "deletionTimestamp"];
  const hold = (m["annotations"] as Record<string, string> | undefined)?.[HOLD_ANNOTATION];
  return {
    apiVersion,
    kind,
    metadata: Object.fromEntries([
      ...kept.filter((k) => m[k] !== undefined).map((k) => [k, m[k]] as const),
      ...(hold === undefined ? [] : [["annotations", { [HOLD_ANNOTATION]: hold }] as const]),
    ]),
    ...(spec !== undefined && {
      spec: Object.fromEntries(Object.entries(spec).filter(([k]) => !UNREAD_SPEC.has(k))),
    }),
    ...(status !== undefined && { status }),
  };
};

interface KindCache {
  readonly informer: Informer<Unstructured>;
  readonly paths: ScalePaths;
}

export class TargetInformers implements TargetCache {
  private readonly kinds = new Map<string, KindCache>();
  private readonly permission: TtlCache<string, boolean>;
  private readonly crds: TtlCache<string, ScalePaths | undefined>;
  private readonly ownWrites = new OwnWrites();

  constructor(private readonly options: TargetInformersOptions) {
    const clock = options.clock ?? realClock;
    const retryMs = options.retryMs ?? 10_000;
    this.permission = new TtlCache({ ttlMs: retryMs, maxEntries: 1000, clock });
    this.crds = new TtlCache({ ttlMs: options.crdTtlMs ?? 60_000, maxEntries: 1000, clock });
  }

  /** The collection the informer of `where` watches. */
  private collection(where: ResourceLocation): string {
    return resourcePath(where, { namespace: where.namespaced ? this.options.namespace : undefined });
  }

  private static targetKey(where: ResourceLocation, scope: string | undefined, name: string): string {
    return `${where.apiVersion}/${where.resource}/${scope ?? ""}/${name}`;
  }

  async lookup(
    ref: TargetOf,
    where: ResourceLocation,
    scope: string | undefined,
    name: string,
  ): Promise<CachedTarget | undefined> {
    const path = this.collection(where);
    let cached = this.kinds.get(path);
    if (!cached) {
      const paths = knownScalePaths(ref.apiVersion, ref.kind) ?? (await this.crdPaths(ref, where));
      if (!paths || !(await this.permission.get(path, () => this.mayList(where, ref.kind)))) return undefined;
      cached = this.kinds.get(path) ?? this.start(ref, where, path, paths);
    }
    if (!cached.informer.hasSynced()) return undefined;
    const object = cached.informer.lister.get(scope === undefined ? name : `${scope}/${name}`);
    if (!object) return undefined;
    const scale = scaleOfObject(object, cached.paths);
    const write = this.ownWrites.pending(
      TargetInformers.targetKey(where, scope, name),
      object.metadata?.resourceVersion ?? "",
    );
    if (!write) return { object, scale, ownWritePending: false };
    return {
      object,
      scale: {
        ...scale,
        metadata: { ...scale.metadata, resourceVersion: write.resourceVersion },
        spec: { ...scale.spec, replicas: write.replicas },
      },
      ownWritePending: true,
    };
  }

  wrote(where: ResourceLocation, scope: string | undefined, name: string, write: OwnWrite): void {
    if (this.kinds.has(this.collection(where)))
      this.ownWrites.record(TargetInformers.targetKey(where, scope, name), write);
  }

  /** The /scale fields a custom resource's CRD declares for the target's version, if readable. */
  private crdPaths(ref: TargetOf, where: ResourceLocation): Promise<ScalePaths | undefined> {
    const group = apiGroupOf(ref.apiVersion);
    if (group === "") return Promise.resolve(undefined);
    const version = ref.apiVersion.slice(group.length + 1);
    return this.crds.get(`${where.resource}.${group}`, async () => {
      try {
        const crd = await this.options.client
          .resource(unstructuredOf(CRDS, "CustomResourceDefinition"))
          .get({ name: `${where.resource}.${group}` });
        return crdScalePaths(crd, version);
      } catch (err) {
        // Not a custom resource (an aggregated API), or no permission: the caller reads /scale.
        if (isNotFound(err) || isForbidden(err)) return undefined;
        throw err;
      }
    });
  }

  /** One list call of a single object: whether the operator may list the kind where it would watch it. */
  private async mayList(where: ResourceLocation, kind: string): Promise<boolean> {
    try {
      await this.options.client
        .resource(unstructuredOf(where, kind))
        .list({ ...(where.namespaced && { namespace: this.options.namespace }), limit: 1 });
      return true;
    } catch (err) {
      if (isForbidden(err)) return false;
      throw err;
    }
  }

  private start(ref: TargetOf, where: ResourceLocation, path: string, paths: ScalePaths): KindCache {
    const informer = this.options.informer<Unstructured>({
      name: `targets(${path})`,
      path,
      transform: leanTarget,
      decode: (raw) => Unstructured.parse(raw),
    });
    const apiGroup = apiGroupOf(ref.apiVersion);
    const changed = (obj: Unstructured, resourceVersion: string | undefined): void => {
      const namespace = obj.metadata?.namespace;
      const name = obj.metadata?.name ?? "";
      this.ownWrites.delivered(TargetInformers.targetKey(where, namespace, name), resourceVersion);
      this.options.onChange({ apiGroup, kind: ref.kind, namespace, name });
    };
    informer.addEventHandler({
      onAdd: (obj) => {
        changed(obj, obj.metadata?.resourceVersion ?? "");
      },
      onUpdate: (before, after) => {
        // A resync (the same object again) is no change.
        if (before.metadata?.resourceVersion !== after.metadata?.resourceVersion)
          changed(after, after.metadata?.resourceVersion ?? "");
      },
      onDelete: (obj) => {
        changed(obj, undefined);
      },
    });
    const cached = { informer, paths };
    this.kinds.set(path, cached);
    return cached;
  }
}
