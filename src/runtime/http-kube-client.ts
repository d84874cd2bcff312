// The KubeClient over the API server: every Kubernetes call of the operator goes through here, on the
// shared keep-alive transport of KubeHttp. Paths come from resourcePath, replies are decoded with the
// kind's schema, failures arrive as ApiErrors.
import { z } from "zod";
import { isNotFound, StatusBody } from "./api-errors.js";
import { ApiResourceList, Unstructured } from "./builtin-kinds.js";
import type { KubeHttp, Query } from "./kube-http.js";
import type {
  Addressable,
  CallOptions,
  DeleteOptions,
  KubeClient,
  ListOptions,
  MergePatch,
  ObjectList,
  ResourceClient,
} from "./resource-client.js";
import { groupVersionPath } from "../api/target-ref.js";
import { resourcePath, type ObjectKey, type ResourceKind } from "./resource-kind.js";

const MERGE_PATCH = "application/merge-patch+json";

/** The envelope of a list reply; its items are decoded by whoever knows their kind. */
const ListEnvelope = z.looseObject({
  metadata: z
    .looseObject({ resourceVersion: z.string().optional(), continue: z.string().optional() })
    .optional(),
  items: z.array(z.looseObject({})).nullish(),
});

export interface ListPage {
  readonly items: Record<string, unknown>[];
  readonly resourceVersion: string;
  readonly continue: string | undefined;
}

/** One page of the collection at `path` (shared with the informers' list-watch). */
export async function listPage(
  http: KubeHttp,
  path: string,
  query: Query,
  options: CallOptions = {},
): Promise<ListPage> {
  const reply = ListEnvelope.parse(await http.request("GET", path, { ...options, query }));
  const next = reply.metadata?.continue;
  return {
    items: reply.items ?? [],
    resourceVersion: reply.metadata?.resourceVersion ?? "",
    continue: next === undefined || next === "" ? undefined : next,
  };
}

function nameOf(obj: Addressable, verb: string): ObjectKey {
  const name = obj.metadata?.name;
  if (name === undefined || name === "") throw new Error(`${verb}: the object has no metadata.name`);
  return { name, ...(obj.metadata?.namespace !== undefined && { namespace: obj.metadata.namespace }) };
}

class HttpResourceClient<T extends Addressable> implements ResourceClient<T> {
  constructor(
    private readonly http: KubeHttp,
    readonly kind: ResourceKind<T>,
  ) {}

  private decode(raw: unknown): T {
    return this.kind.schema.parse(raw);
  }

  async get(key: ObjectKey, options: CallOptions = {}): Promise<T> {
    return this.decode(await this.http.request("GET", resourcePath(this.kind, key), options));
  }

  async list(options: ListOptions = {}): Promise<ObjectList<T>> {
    const { namespace, labelSelector, fieldSelector, limit, continue: cont, ...call } = options;
    const page = await listPage(
      this.http,
      resourcePath(this.kind, { namespace }),
      { labelSelector, fieldSelector, limit, continue: cont },
      call,
    );
    // Items of built-in lists carry no apiVersion/kind (the list does); the schema may require them.
    const { apiVersion, kind } = this.kind;
    const items = page.items.map((item) => this.decode({ apiVersion, kind, ...item }));
    return {
      items,
      resourceVersion: page.resourceVersion,
      ...(page.continue !== undefined && { continue: page.continue }),
    };
  }

  async create(obj: T, options: CallOptions = {}): Promise<T> {
    const namespace = this.kind.namespaced ? (obj.metadata?.namespace ?? "") : undefined;
    const path = resourcePath(this.kind, { namespace });
    return this.decode(await this.http.request("POST", path, { ...options, body: obj }));
  }

  async update(obj: T, options: CallOptions = {}): Promise<T> {
    const path = resourcePath(this.kind, nameOf(obj, "update"));
    return this.decode(await this.http.request("PUT", path, { ...options, body: obj }));
  }

  async updateStatus(obj: T, options: CallOptions = {}): Promise<T> {
    const path = resourcePath(this.kind, nameOf(obj, "updateStatus"), "status");
    return this.decode(await this.http.request("PUT", path, { ...options, body: obj }));
  }

  async mergePatch(key: ObjectKey, patch: MergePatch, options: CallOptions = {}): Promise<T> {
    const path = resourcePath(this.kind, key);
    return this.decode(
      await this.http.request("PATCH", path, { ...options, body: patch, contentType: MERGE_PATCH }),
    );
  }

  async delete(key: ObjectKey, options: DeleteOptions = {}): Promise<T | undefined> {
    const { preconditions, ...call } = options;
    const reply = await this.http.request("DELETE", resourcePath(this.kind, key), {
      ...call,
      body: { apiVersion: "v1", kind: "DeleteOptions", ...(preconditions && { preconditions }) },
    });
    // A Status, or the object as it was when it went, means it is gone; an object marked for deletion
    // that still has finalizers is held back until they are removed.
    if (reply === undefined || StatusBody.safeParse(reply).success) return undefined;
    const meta = Unstructured.parse(reply).metadata;
    const held = meta?.deletionTimestamp !== undefined && (meta.finalizers ?? []).length > 0;
    return held ? this.decode(reply) : undefined;
  }
}

export function httpKubeClient(http: KubeHttp): KubeClient {
  return {
    resource: <T extends Addressable>(kind: ResourceKind<T>) => new HttpResourceClient(http, kind),
    async serverResources(apiVersion, options = {}) {
      try {
        return ApiResourceList.parse(await http.request("GET", groupVersionPath(apiVersion), options))
          .resources;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
  };
}
