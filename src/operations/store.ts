// Operations in Redis. Every write is one server-side script, so replicas never interleave:
//   op:<project>:<loc>:<name>      the Operation as JSON; DONE operations expire after the retention
//   index:<project>:<loc>          sorted set of operation names by insert time (list and paging)
//   request-id:<project>:<uuid>    requestId → "<loc>/<name>", expiring after the retention
//   pending:<project>:<request>    "<loc>/<name>" of operations the operations controller still advances
//   channel op:<project>:<loc>:<name>   every change is published there (the new JSON, "" when deleted),
//                                       which is what `wait` listens to on any replica.
// <loc> is the zone's name for zone operations (the layout of the zonal-only releases, so their data
// stays readable) and `regions/<region>` for region operations; names never contain '/', so the two
// cannot collide and the operation name is what follows the last '/'.
// Changes are compare-and-set: read, merge with the pure rules of model.ts, write only if the stored
// JSON is still what was read. Redis errors other than script bugs become StoreUnavailableError, which
// the REST edge answers with 503.
import type { Redis } from "ioredis";
import { Operation } from "../api/operation.js";
import type { Location } from "../api/location.js";
import { mergeOperation, type OperationPatch, type OperationRef } from "./model.js";

function locationKey(location: Location): string {
  return location.scope === "zones" ? location.name : `regions/${location.name}`;
}

function parseLocationKey(key: string): Location {
  return key.startsWith("regions/")
    ? { scope: "regions", name: key.slice("regions/".length) }
    : { scope: "zones", name: key };
}

/** `<loc>/<name>`, the member form of a reference in the pending sets and requestId keys. */
function member(ref: OperationRef): string {
  return `${locationKey(ref.location)}/${ref.name}`;
}

function parseMember(project: string, text: string): OperationRef {
  const slash = text.lastIndexOf("/");
  return { project, location: parseLocationKey(text.slice(0, slash)), name: text.slice(slash + 1) };
}

/** Redis cannot be reached (or did not answer in time): the caller should answer 503 and retry later. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`operations store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "StoreUnavailableError";
  }
}

const CREATE = `
if ARGV[6] == '1' then
  local existing = redis.call('GET', KEYS[3])
  if existing then return {0, existing} end
end
local set
if ARGV[5] == '' then set = redis.call('SET', KEYS[1], ARGV[1], 'NX')
else set = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[5]) end
if not set then return {2, redis.call('GET', KEYS[1])} end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
if ARGV[6] == '1' then redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[7]) end
if ARGV[8] == '1' then redis.call('SADD', KEYS[4], ARGV[4]) end
redis.call('PUBLISH', KEYS[1], ARGV[1])
return {1, ''}`;

const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('SET', KEYS[1], ARGV[2])
else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
redis.call('PUBLISH', KEYS[1], ARGV[2])
return 1`;

const DELETE = `
local removed = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then redis.call('DEL', KEYS[3]) end
if removed == 1 then redis.call('PUBLISH', KEYS[1], '') end
return removed`;

export interface CreateOptions {
  /** The client's requestId: a second create with it returns the first operation instead. */
  readonly requestId?: string;
  /** The ResizeRequest the operations controller must advance this operation for. */
  readonly request?: string;
}

export interface CreateResult {
  readonly operation: Operation;
  /** False when the requestId or the name was already known and `operation` is the stored one. */
  readonly created: boolean;
}

export interface OperationStoreOptions {
  /** How long DONE operations and requestIds are kept. */
  readonly retentionMs: number;
  readonly prefix?: string;
  readonly now?: () => number;
}

const MAX_CAS_ATTEMPTS = 16;

export class OperationStore {
  private readonly prefix: string;
  private readonly now: () => number;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

  /**
   * `redis` runs commands; `subscriber` is a second connection used only for pub/sub (a subscribed
   * connection can run nothing else).
   */
  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly options: OperationStoreOptions,
  ) {
    this.prefix = options.prefix ?? "resize-operator:";
    this.now = options.now ?? Date.now;
    subscriber.on("message", (channel: string, message: string) => {
      for (const listener of this.listeners.get(channel) ?? []) listener(message);
    });
  }

  /** True while both connections are up. */
  ready(): boolean {
    return this.redis.status === "ready" && this.subscriber.status === "ready";
  }

  private opKey(ref: OperationRef): string {
    return `${this.prefix}op:${ref.project}:${locationKey(ref.location)}:${ref.name}`;
  }
  private indexKey(project: string, location: Location): string {
    return `${this.prefix}index:${project}:${locationKey(location)}`;
  }
  private requestIdKey(project: string, requestId: string): string {
    return `${this.prefix}request-id:${project}:${requestId}`;
  }
  private pendingKey(project: string, request: string): string {
    return `${this.prefix}pending:${project}:${request}`;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      // A ReplyError is Redis refusing a command we sent: a bug here, not an outage.
      if (err instanceof Error && err.name === "ReplyError") throw err;
      throw new StoreUnavailableError(err);
    }
  }

  private ttl(op: Operation): string {
    return op.status === "DONE" ? String(this.options.retentionMs) : "";
  }

  async create(operation: Operation, ref: OperationRef, options: CreateOptions = {}): Promise<CreateResult> {
    const reply = await this.call(() =>
      this.redis.eval(
        CREATE,
        4,
        this.opKey(ref),
        this.indexKey(ref.project, ref.location),
        this.requestIdKey(ref.project, options.requestId ?? ""),
        this.pendingKey(ref.project, options.request ?? ""),
        JSON.stringify(operation),
        Date.parse(operation.insertTime),
        ref.name,
        member(ref),
        this.ttl(operation),
        options.requestId === undefined ? "0" : "1",
        this.options.retentionMs,
        options.request === undefined || operation.status === "DONE" ? "0" : "1",
      ),
    );
    const [code, value] = reply as [number, string | null];
    if (code === 1) return { operation, created: true };
    if (code === 2 && value) return { operation: decode(value), created: false };
    // The requestId is known: return its operation.
    const existing = await this.get(parseMember(ref.project, value ?? ""));
    if (!existing)
      throw new StoreUnavailableError(`operation of requestId ${options.requestId ?? ""} expired`);
    return { operation: existing, created: false };
  }

  async get(ref: OperationRef): Promise<Operation | undefined> {
    const raw = await this.call(() => this.redis.get(this.opKey(ref)));
    return raw === null ? undefined : decode(raw);
  }

  /** Merges `patch` into the operation; returns the stored result (undefined if it does not exist). */
  async update(ref: OperationRef, patch: OperationPatch): Promise<Operation | undefined> {
    const key = this.opKey(ref);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const raw = await this.call(() => this.redis.get(key));
      if (raw === null) return undefined;
      const current = decode(raw);
      const next = mergeOperation(current, patch, new Date(this.now()).toISOString());
      if (!next) return current;
      const json = JSON.stringify(next);
      const reply = await this.call(() =>
        this.redis.eval(COMPARE_AND_SET, 1, key, raw, json, this.ttl(next)),
      );
      if (reply === 1) return next;
      if (reply === -1) return undefined;
    }
    throw new Error(`operation ${ref.name}: too many concurrent updates`);
  }

  /**
   * Removes an operation (zoneOperations.delete, or undoing a create whose mutation failed, together
   * with its requestId so that a retry is processed afresh). Returns false when it did not exist.
   */
  async delete(ref: OperationRef, requestId?: string): Promise<boolean> {
    const reply = await this.call(() =>
      this.redis.eval(
        DELETE,
        3,
        this.opKey(ref),
        this.indexKey(ref.project, ref.location),
        this.requestIdKey(ref.project, requestId ?? ""),
        ref.name,
        requestId ?? "",
      ),
    );
    return reply === 1;
  }

  /** The project's operations in one location, oldest first; expired entries are dropped from the index. */
  async list(project: string, location: Location): Promise<Operation[]> {
    const index = this.indexKey(project, location);
    const names = await this.call(() => this.redis.zrange(index, "0", "-1"));
    if (names.length === 0) return [];
    const raws = await this.call(() =>
      this.redis.mget(names.map((name) => this.opKey({ project, location, name }))),
    );
    const gone = names.filter((_, i) => raws[i] === null);
    if (gone.length > 0) await this.call(() => this.redis.zrem(index, ...gone));
    return raws.flatMap((raw) => (raw === null ? [] : [decode(raw)]));
  }

  /** The operation a requestId created, while the requestId is remembered. */
  async getByRequestId(project: string, requestId: string): Promise<Operation | undefined> {
    const value = await this.call(() => this.redis.get(this.requestIdKey(project, requestId)));
    return value === null ? undefined : this.get(parseMember(project, value));
  }

  /** The operation whose numeric id is `id` (operation paths accept the id as well as the name). */
  async getById(project: string, location: Location, id: string): Promise<Operation | undefined> {
    return (await this.list(project, location)).find((op) => op.id === id);
  }

  /** Operations the controller still has to advance for a request. */
  async pending(project: string, request: string): Promise<OperationRef[]> {
    const members = await this.call(() => this.redis.smembers(this.pendingKey(project, request)));
    return members.map((m) => parseMember(project, m));
  }

  async settle(project: string, request: string, ref: OperationRef): Promise<void> {
    await this.call(() => this.redis.srem(this.pendingKey(project, request), member(ref)));
  }

  /**
   * Resolves with the operation once it is DONE, or with its latest state after `timeoutMs` or when
   * `signal` aborts; undefined if it does not exist. Subscribes before reading, so a change between the
   * read and the subscription cannot be missed.
   */
  async wait(ref: OperationRef, timeoutMs: number, signal?: AbortSignal): Promise<Operation | undefined> {
    const channel = this.opKey(ref);
    const queued: string[] = [];
    let waiter: ((message: string | undefined) => void) | undefined;
    const listener = (message: string): void => {
      if (waiter) waiter(message);
      else queued.push(message);
    };
    await this.listen(channel, listener);
    const deadline = this.now() + timeoutMs;
    const next = (): Promise<string | undefined> =>
      new Promise((resolve) => {
        const finish = (message: string | undefined): void => {
          waiter = undefined;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve(message);
        };
        const onAbort = (): void => {
          finish(undefined);
        };
        const timer = setTimeout(onAbort, Math.max(0, deadline - this.now()));
        signal?.addEventListener("abort", onAbort, { once: true });
        waiter = finish;
        if (signal?.aborted) onAbort();
      });
    try {
      let latest = await this.get(ref);
      while (latest && latest.status !== "DONE") {
        const message = queued.shift() ?? (await next());
        if (message === undefined) break;
        latest = message === "" ? undefined : decode(message);
      }
      return latest;
    } finally {
      await this.unlisten(channel, listener);
    }
  }

  private async listen(channel: string, listener: (message: string) => void): Promise<void> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
    }
    set.add(listener);
    try {
      // Subscribing again to a channel already subscribed is harmless and confirms the subscription.
      await this.call(() => this.subscriber.subscribe(channel));
    } catch (err) {
      await this.unlisten(channel, listener);
      throw err;
    }
  }

  private async unlisten(channel: string, listener: (message: string) => void): Promise<void> {
    const set = this.listeners.get(channel);
    set?.delete(listener);
    if (set?.size !== 0) return;
    this.listeners.delete(channel);
    // Failing to unsubscribe (Redis down) only leaves a subscription the reconnect will drop or keep.
    await this.subscriber.unsubscribe(channel).catch(() => undefined);
  }
}

function decode(raw: string): Operation {
  return Operation.parse(JSON.parse(raw));
}
