// Reads and scales any workload through its /scale subresource. The resource path of a kind is found
// with API discovery (cached per apiVersion), so Deployments, StatefulSets, Cluster API
// MachineDeployments and custom resources are all handled the same way.
import { isConflict, isNotFound } from "../runtime/api-errors.js";
import {
  scaleOf,
  unstructuredOf,
  type ApiResource,
  type Scale,
  type Unstructured,
} from "../runtime/builtin-kinds.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { ResourceLocation } from "../runtime/resource-kind.js";

export interface TargetRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

export type TargetRead =
  | {
      readonly found: true;
      readonly replicas: number;
      readonly readyReplicas: number;
      /** False while the workload has not caught up with its last change (see settledOf). */
      readonly settled: boolean;
      readonly selector: string | undefined;
      /** The Scale read, so that a change can be written under its resourceVersion without reading again. */
      readonly scale: Scale;
      /** The target object as read (e.g. a Karpenter NodePool's limits). */
      readonly object: Unstructured;
    }
  | { readonly found: false; readonly reason: "NotFound" | "NotScalable"; readonly message: string };

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

/** Reads a dotted path such as `status.readyReplicas`; anything but a number counts as 0. */
function readCount(obj: unknown, path: string): number {
  let value: unknown = obj;
  for (const part of path.split(".")) {
    value =
      typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

export class ScaleClient {
  private readonly discovery = new Map<string, { at: number; resources: readonly ApiResource[] }>();

  constructor(
    private readonly client: KubeClient,
    private readonly discoveryTtlMs = 60_000,
  ) {}

  private async resources(apiVersion: string, refresh: boolean): Promise<readonly ApiResource[] | undefined> {
    const cached = this.discovery.get(apiVersion);
    if (cached && !refresh && Date.now() - cached.at < this.discoveryTtlMs) return cached.resources;
    const resources = await this.client.serverResources(apiVersion);
    if (resources) this.discovery.set(apiVersion, { at: Date.now(), resources });
    return resources;
  }

  /** Where `ref`'s kind lives, and whether it has a scale subresource. */
  private async locate(
    ref: TargetRef,
  ): Promise<{ where: ResourceLocation; scalable: boolean } | { missing: string }> {
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

  async read(namespace: string, ref: TargetRef, readyField: string): Promise<TargetRead> {
    const located = await this.locate(ref);
    if ("missing" in located) return { found: false, reason: "NotFound", message: located.missing };
    const label = `${ref.kind} ${namespace}/${ref.name}`;
    if (!located.scalable) {
      return { found: false, reason: "NotScalable", message: `${label} has no /scale subresource` };
    }
    const key = { namespace, name: ref.name };
    try {
      const [object, scale] = await Promise.all([
        this.client.resource(unstructuredOf(located.where, ref.kind)).get(key),
        this.client.resource(scaleOf(located.where)).get(key),
      ]);
      return {
        found: true,
        replicas: scale.spec?.replicas ?? 0,
        readyReplicas: readCount(object, readyField),
        settled: settledOf(object, scale),
        selector: scale.status?.selector,
        scale,
        object,
      };
    } catch (err) {
      if (isNotFound(err)) return { found: false, reason: "NotFound", message: `${label} does not exist` };
      throw err;
    }
  }

  /**
   * Sets the replicas, but only if the target still has `from`, written under the resourceVersion of
   * the Scale it was read in. `observed` (the Scale read earlier in this pass) saves the read; when the
   * object changed since (often only its status), it is read once more and checked again. Returns
   * false, changing nothing, when the target's replicas moved in the meantime.
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
    const scales = this.client.resource(scaleOf(located.where));
    const attempt = async (current: Scale): Promise<"done" | "moved" | "conflict"> => {
      if ((current.spec?.replicas ?? 0) !== from) return "moved";
      try {
        await scales.update({ ...current, spec: { ...current.spec, replicas } });
        return "done";
      } catch (err) {
        if (isConflict(err)) return "conflict";
        throw err;
      }
    };
    const fresh = (): Promise<Scale> => scales.get({ namespace, name: ref.name });
    let outcome = await attempt(observed ?? (await fresh()));
    if (outcome === "conflict" && observed) outcome = await attempt(await fresh());
    return outcome === "done";
  }
}
