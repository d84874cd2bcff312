// Reads and scales any workload through its /scale subresource. The resource path of a kind is found
// with API discovery (cached per apiVersion), so Deployments, StatefulSets, Cluster API
// MachineDeployments and custom resources are all handled the same way.
import { ApiError, type KubeHttp } from "../runtime/kube-http.js";

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** An autoscaling/v1 Scale as the API server returns it (kept whole, to be written back). */
export interface Scale {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

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
      readonly selector: string | undefined;
      /** The Scale read, so that a change can be written under its resourceVersion without reading again. */
      readonly scale: Scale;
    }
  | { readonly found: false; readonly reason: "NotFound" | "NotScalable"; readonly message: string };

const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.status === 404;

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
  private readonly discovery = new Map<string, { at: number; resources: ApiResource[] }>();

  constructor(
    private readonly http: KubeHttp,
    private readonly discoveryTtlMs = 60_000,
  ) {}

  private async resources(apiVersion: string, refresh: boolean): Promise<ApiResource[] | undefined> {
    const cached = this.discovery.get(apiVersion);
    if (cached && !refresh && Date.now() - cached.at < this.discoveryTtlMs) return cached.resources;
    const path = apiVersion === "v1" ? "/api/v1" : `/apis/${apiVersion}`;
    try {
      const list = (await this.http.request("GET", path)) as { resources?: ApiResource[] };
      const resources = list.resources ?? [];
      this.discovery.set(apiVersion, { at: Date.now(), resources });
      return resources;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** The collection path of `ref`'s kind in `namespace`, and whether it has a scale subresource. */
  private async locate(
    namespace: string,
    ref: TargetRef,
  ): Promise<{ path: string; scalable: boolean } | { missing: string }> {
    for (const refresh of [false, true]) {
      const resources = await this.resources(ref.apiVersion, refresh);
      const main = resources?.find((r) => r.kind === ref.kind && !r.name.includes("/"));
      if (!resources || !main) continue;
      const base = ref.apiVersion === "v1" ? "/api/v1" : `/apis/${ref.apiVersion}`;
      const path = main.namespaced ? `${base}/namespaces/${namespace}/${main.name}` : `${base}/${main.name}`;
      return { path, scalable: resources.some((r) => r.name === `${main.name}/scale`) };
    }
    return { missing: `the API server serves no kind ${ref.kind} in ${ref.apiVersion}` };
  }

  async read(namespace: string, ref: TargetRef, readyField: string): Promise<TargetRead> {
    const where = await this.locate(namespace, ref);
    if ("missing" in where) return { found: false, reason: "NotFound", message: where.missing };
    const label = `${ref.kind} ${namespace}/${ref.name}`;
    if (!where.scalable) {
      return { found: false, reason: "NotScalable", message: `${label} has no /scale subresource` };
    }
    try {
      const [object, scale] = await Promise.all([
        this.http.request("GET", `${where.path}/${ref.name}`),
        this.http.request("GET", `${where.path}/${ref.name}/scale`) as Promise<Scale>,
      ]);
      return {
        found: true,
        replicas: scale.spec?.replicas ?? 0,
        readyReplicas: readCount(object, readyField),
        selector: scale.status?.selector,
        scale,
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
    const where = await this.locate(namespace, ref);
    if ("missing" in where || !where.scalable) return false;
    const path = `${where.path}/${ref.name}/scale`;
    const attempt = async (current: Scale): Promise<"done" | "moved" | "conflict"> => {
      if ((current.spec?.replicas ?? 0) !== from) return "moved";
      try {
        await this.http.request("PUT", path, { body: { ...current, spec: { ...current.spec, replicas } } });
        return "done";
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) return "conflict";
        throw err;
      }
    };
    const fresh = async (): Promise<Scale> => (await this.http.request("GET", path)) as Scale;
    let outcome = await attempt(observed ?? (await fresh()));
    if (outcome === "conflict" && observed) outcome = await attempt(await fresh());
    return outcome === "done";
  }
}
