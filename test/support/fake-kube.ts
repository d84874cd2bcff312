// An in-memory KubeClient for unit tests, behaving like the API server where the operator relies on it:
// resourceVersions (a conflict on a stale one, in updates, merge patches and delete preconditions),
// status subresources (an update leaves status alone, updateStatus touches only status), finalizers
// (a delete marks the object, removing its last finalizer lets it go), /scale of any object with
// spec.replicas, keys served sorted as for custom resources, and discovery. Failures and crashes are
// injected per call: fail the Nth write, or let it land and throw after it.
import { randomUUID } from "node:crypto";
import { ApiError } from "../../src/runtime/api-errors.js";
import type { ApiResource } from "../../src/runtime/builtin-kinds.js";
import type {
  Addressable,
  CallOptions,
  DeleteOptions,
  KubeClient,
  ListOptions,
  MergePatch,
  ObjectList,
  ResourceClient,
} from "../../src/runtime/resource-client.js";
import type { ObjectKey, ResourceKind, ResourceLocation } from "../../src/runtime/resource-kind.js";

export type Verb = "get" | "list" | "create" | "update" | "updateStatus" | "mergePatch" | "delete";

/** One call as the fake saw it. */
export interface FakeCall {
  readonly verb: Verb;
  /** e.g. "resizerequests", "deployments/scale". */
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
}

export const isWrite = (call: FakeCall): boolean => call.verb !== "get" && call.verb !== "list";

/** A simulated crash of the caller's process: never a Kubernetes answer. */
export class CrashError extends Error {
  constructor(readonly call: FakeCall) {
    super(`crashed at ${call.verb} ${call.resource} ${call.name ?? ""}`);
    this.name = "CrashError";
  }
}

export interface Injection {
  /** Which calls it applies to; the `nth` matching one (0-based, counted from injection) is hit. */
  readonly match: (call: FakeCall) => boolean;
  readonly nth?: number;
  /**
   * "before": the call fails and changes nothing. "after": the call lands, then fails (a crash or a
   * lost reply after the server committed the write).
   */
  readonly when: "before" | "after";
  readonly error: (call: FakeCall) => Error;
}

type Json = Record<string, unknown>;

const conflict = (what: string): ApiError =>
  new ApiError(409, "Conflict", `Operation cannot be fulfilled on ${what}: the object has been modified`);
const notFound = (what: string): ApiError => new ApiError(404, "NotFound", `${what} not found`);

/** A 409 Conflict, as the API server answers a write based on a stale resourceVersion. */
export const conflictError = (call: FakeCall): ApiError => conflict(`${call.resource} "${call.name ?? ""}"`);

function isJson(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** As the API server serves custom resources: JSON (undefined dropped), keys sorted. */
function served(value: unknown): unknown {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : isJson(v)
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, x]) => [k, sort(x)]),
          )
        : v;
  return sort(JSON.parse(JSON.stringify(value)));
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJson(patch)) return patch;
  const base: Json = isJson(target) ? target : {};
  const merged = Object.entries(patch).map(([k, v]): [string, unknown] => [
    k,
    v === null ? null : mergePatch(base[k], v),
  ]);
  // A null in the patch removes the field.
  return Object.fromEntries(
    [...Object.entries(base).filter(([k]) => !(k in patch)), ...merged].filter(([, v]) => v !== null),
  );
}

function field(obj: unknown, path: string): unknown {
  let value = obj;
  for (const part of path.split(".")) value = isJson(value) ? value[part] : undefined;
  return value;
}

/** Equality selectors only ("a=b,c=d"), which is all the operator uses. */
function matches(selector: string | undefined, lookup: (key: string) => unknown): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [key = "", value = ""] = term.split("=");
    const actual = lookup(key.trim());
    return (typeof actual === "string" || typeof actual === "number" ? String(actual) : "") === value.trim();
  });
}

const metaOf = (obj: Json): Json => (isJson(obj.metadata) ? obj.metadata : {});
const stringOr = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** `served` of an object that must stay one. */
function servedObject(value: object): Json {
  const out = served(value);
  if (!isJson(out)) throw new Error("not an object");
  return out;
}

export class FakeKube implements KubeClient {
  private readonly objects = new Map<string, Json>();
  private readonly discovery = new Map<string, ApiResource[]>();
  private injections: { rule: Injection; seen: number }[] = [];
  private revision = 0;
  /** Every call, in order (reads too). */
  readonly calls: FakeCall[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Serves `resources` in discovery of `apiVersion` (e.g. "apps/v1": deployments, deployments/scale). */
  serve(apiVersion: string, resources: readonly ApiResource[]): this {
    this.discovery.set(apiVersion, [...(this.discovery.get(apiVersion) ?? []), ...resources]);
    return this;
  }

  inject(rule: Injection): this {
    this.injections.push({ rule, seen: 0 });
    return this;
  }

  /** The writes seen so far (landed or not). */
  writes(): FakeCall[] {
    return this.calls.filter(isWrite);
  }

  /** Stores `obj` as it is (a fixture), with a uid and resourceVersion when it has none. */
  seed(where: ResourceLocation, obj: object): Json {
    const stored = servedObject(obj);
    const meta = metaOf(stored);
    const key = this.key(where, { namespace: stringOr(meta.namespace), name: String(meta.name) });
    const full = servedObject({
      ...stored,
      metadata: { ...this.created(), ...meta, resourceVersion: this.nextVersion() },
    });
    this.objects.set(key, full);
    return full;
  }

  /** The stored object (raw JSON), or undefined. */
  peek(where: ResourceLocation, key: ObjectKey): Json | undefined {
    const obj = this.objects.get(this.key(where, key));
    return obj && structuredClone(obj);
  }

  resource<T extends Addressable>(kind: ResourceKind<T>): ResourceClient<T> {
    return new FakeResourceClient(this, kind);
  }

  async serverResources(apiVersion: string): Promise<readonly ApiResource[] | undefined> {
    await Promise.resolve();
    return this.discovery.get(apiVersion);
  }

  // ---- used by FakeResourceClient ----

  /** Records the call and applies injections around `body`. */
  async call<R>(call: FakeCall, body: () => R): Promise<R> {
    this.calls.push(call);
    await Promise.resolve();
    const hit = (when: Injection["when"]): Injection | undefined => {
      for (const entry of this.injections) {
        if (entry.rule.when !== when || !entry.rule.match(call)) continue;
        const index = entry.seen++;
        if (index === (entry.rule.nth ?? 0)) return entry.rule;
      }
      return undefined;
    };
    const before = hit("before");
    if (before) throw before.error(call);
    const result = body();
    const after = hit("after");
    if (after) throw after.error(call);
    return result;
  }

  key(where: ResourceLocation, key: Pick<ObjectKey, "name"> & { namespace?: string | undefined }): string {
    const namespace = where.namespaced ? (key.namespace ?? "") : "";
    return `${where.apiVersion}|${where.resource}|${namespace}|${key.name}`;
  }

  get(where: ResourceLocation, key: ObjectKey): Json {
    const obj = this.objects.get(this.key(where, key));
    if (!obj) throw notFound(`${where.resource} "${key.name}"`);
    return obj;
  }

  all(where: ResourceLocation, namespace: string | undefined): Json[] {
    const prefix = `${where.apiVersion}|${where.resource}|`;
    return [...this.objects.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .map(([, v]) => v)
      .filter((o) => namespace === undefined || !where.namespaced || metaOf(o).namespace === namespace);
  }

  /** Stores a new version of an object; one whose deletion only waited for finalizers goes away. */
  put(where: ResourceLocation, obj: Json): Json | undefined {
    const meta = metaOf(obj);
    const key = this.key(where, { namespace: stringOr(meta.namespace), name: String(meta.name) });
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (meta.deletionTimestamp !== undefined && finalizers.length === 0) {
      this.objects.delete(key);
      return undefined;
    }
    const stored = servedObject({ ...obj, metadata: { ...meta, resourceVersion: this.nextVersion() } });
    this.objects.set(key, stored);
    return stored;
  }

  remove(where: ResourceLocation, key: ObjectKey): void {
    this.objects.delete(this.key(where, key));
  }

  currentVersion(): string {
    return String(this.revision);
  }

  created(): Json {
    return { uid: randomUUID(), creationTimestamp: new Date(this.now()).toISOString(), generation: 1 };
  }

  deletionTime(): string {
    return new Date(this.now()).toISOString();
  }

  private nextVersion(): string {
    this.revision += 1;
    return String(this.revision);
  }
}

/** A write based on `resourceVersion` must find the object still at it (an empty one is unconditional). */
function checkVersion(current: Json, resourceVersion: unknown, what: string): void {
  if (
    resourceVersion !== undefined &&
    resourceVersion !== "" &&
    resourceVersion !== metaOf(current).resourceVersion
  )
    throw conflict(what);
}

class FakeResourceClient<T extends Addressable> implements ResourceClient<T> {
  constructor(
    private readonly fake: FakeKube,
    readonly kind: ResourceKind<T>,
  ) {}

  private get resourceName(): string {
    return this.kind.subresource ? `${this.kind.resource}/${this.kind.subresource}` : this.kind.resource;
  }

  private describe(verb: Verb, namespace: string | undefined, name: string | undefined): FakeCall {
    return { verb, resource: this.resourceName, namespace, name };
  }

  private decode(raw: unknown): T {
    return this.kind.schema.parse(structuredClone(raw));
  }

  /** The Scale of an object with spec.replicas, versioned as the object (as the API server does). */
  private scaleOf(obj: Json): Json {
    const meta = metaOf(obj);
    const labels = field(obj, "spec.selector.matchLabels");
    const selector = isJson(labels)
      ? Object.entries(labels)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(",")
      : undefined;
    return {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
      },
      spec: { replicas: field(obj, "spec.replicas") ?? 0 },
      status: { replicas: field(obj, "status.replicas") ?? 0, ...(selector !== undefined && { selector }) },
    };
  }

  private keyOf(obj: Addressable, verb: string): ObjectKey {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`${verb}: the object has no metadata.name`);
    return { name, ...(obj.metadata.namespace !== undefined && { namespace: obj.metadata.namespace }) };
  }

  get(key: ObjectKey, _options?: CallOptions): Promise<T> {
    return this.fake.call(this.describe("get", key.namespace, key.name), () => {
      const obj = this.fake.get(this.kind, key);
      return this.decode(this.kind.subresource === "scale" ? this.scaleOf(obj) : obj);
    });
  }

  list(options: ListOptions = {}): Promise<ObjectList<T>> {
    return this.fake.call(this.describe("list", options.namespace, undefined), () => {
      const items = this.fake
        .all(this.kind, options.namespace)
        .filter((o) =>
          matches(options.labelSelector, (k) => {
            const labels = metaOf(o).labels;
            return isJson(labels) ? labels[k] : undefined;
          }),
        )
        .filter((o) => matches(options.fieldSelector, (path) => field(o, path)))
        .map((o) => this.decode(o));
      return { items, resourceVersion: this.fake.currentVersion() };
    });
  }

  create(obj: T, _options?: CallOptions): Promise<T> {
    return this.fake.call(this.describe("create", obj.metadata?.namespace, obj.metadata?.name), () => {
      const raw = servedObject(obj);
      const meta = metaOf(raw);
      if (meta.name === undefined) return this.decode(raw); // a review: answered, not stored
      const key = this.keyOf(obj, "create");
      if (this.fake.peek(this.kind, key))
        throw new ApiError(409, "AlreadyExists", `${this.kind.resource} "${key.name}" already exists`);
      const stored = this.fake.put(this.kind, { ...raw, metadata: { ...this.fake.created(), ...meta } });
      return this.decode(stored);
    });
  }

  update(obj: T, _options?: CallOptions): Promise<T> {
    const key = this.keyOf(obj, "update");
    return this.fake.call(this.describe("update", key.namespace, key.name), () => {
      const current = this.fake.get(this.kind, key);
      const raw = servedObject(obj);
      const what = `${this.resourceName} "${key.name}"`;
      checkVersion(current, metaOf(raw).resourceVersion, what);
      if (this.kind.subresource === "scale") {
        const replicas = field(raw, "spec.replicas");
        const spec = { ...(isJson(current.spec) ? current.spec : {}), replicas };
        return this.decode(this.scaleOf(this.fake.put(this.kind, { ...current, spec }) ?? current));
      }
      // The main resource cannot change status (it has a status subresource), nor identity.
      const generation = Number(metaOf(current).generation ?? 1);
      const specChanged = JSON.stringify(served(raw.spec)) !== JSON.stringify(served(current.spec));
      const next = {
        ...raw,
        status: current.status,
        metadata: {
          ...metaOf(raw),
          uid: metaOf(current).uid,
          creationTimestamp: metaOf(current).creationTimestamp,
          deletionTimestamp: metaOf(current).deletionTimestamp,
          generation: specChanged ? generation + 1 : generation,
        },
      };
      return this.decode(this.fake.put(this.kind, next) ?? next);
    });
  }

  updateStatus(obj: T, _options?: CallOptions): Promise<T> {
    const key = this.keyOf(obj, "updateStatus");
    return this.fake.call(this.describe("updateStatus", key.namespace, key.name), () => {
      const current = this.fake.get(this.kind, key);
      const raw = servedObject(obj);
      checkVersion(current, metaOf(raw).resourceVersion, `${this.resourceName} "${key.name}"`);
      const next = { ...current, status: raw.status };
      return this.decode(this.fake.put(this.kind, next) ?? next);
    });
  }

  mergePatch(key: ObjectKey, patch: MergePatch, _options?: CallOptions): Promise<T> {
    return this.fake.call(this.describe("mergePatch", key.namespace, key.name), () => {
      const current = this.fake.get(this.kind, key);
      const what = `${this.resourceName} "${key.name}"`;
      checkVersion(current, patch.metadata?.resourceVersion, what);
      if (patch.metadata?.uid !== undefined && patch.metadata.uid !== metaOf(current).uid)
        throw new ApiError(
          409,
          "Conflict",
          `Precondition failed: UID in precondition: ${patch.metadata.uid}`,
        );
      const patched = mergePatch(current, served(patch));
      if (!isJson(patched)) throw new Error("mergePatch: not an object");
      // Status belongs to its subresource; a patch of the main resource leaves it alone.
      const next = { ...patched, status: current.status };
      return this.decode(this.fake.put(this.kind, next) ?? next);
    });
  }

  delete(key: ObjectKey, options: DeleteOptions = {}): Promise<T | undefined> {
    return this.fake.call(this.describe("delete", key.namespace, key.name), () => {
      const current = this.fake.get(this.kind, key);
      const meta = metaOf(current);
      const { uid, resourceVersion } = options.preconditions ?? {};
      if (uid !== undefined && uid !== meta.uid)
        throw new ApiError(409, "Conflict", `Precondition failed: UID in precondition: ${uid}`);
      checkVersion(current, resourceVersion, `${this.resourceName} "${key.name}"`);
      const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
      if (finalizers.length === 0) {
        this.fake.remove(this.kind, key);
        return undefined;
      }
      const marked = this.fake.put(this.kind, {
        ...current,
        metadata: { ...meta, deletionTimestamp: meta.deletionTimestamp ?? this.fake.deletionTime() },
      });
      return marked && this.decode(marked);
    });
  }
}
