// Operations in Redis (key layout: keys.ts). Every write is one server-side script whose keys share the
// project's hash tag, so replicas never interleave and a Redis Cluster runs it on one node.
// Every change is published on the channel named like the operation's key (the new JSON, "" when
// deleted), which is what `wait` listens to on any replica. Classic PUBLISH is used in every topology:
// a Redis Cluster broadcasts it to all nodes, so a subscriber on any node hears it.
// Creates and deletes are acknowledged only once `minReplicaAcks` replicas have them (WAIT on the same
// connection, right after the script): a failover then cannot lose what a REST client was told. A
// create that is not replicated in time is undone and reported as unavailable, so the client's retry
// (same requestId) starts afresh instead of finding half a state.
// Changes are compare-and-set: read, merge with the pure rules of model.ts, write only if the stored
// JSON is still what was read. Redis errors other than script bugs become StoreUnavailableError, which
// the REST edge answers with 503.
import type { ChainableCommander } from "ioredis";
import { Operation } from "../api/operation.js";
import type { Location } from "../api/location.js";
import type { RedisClient } from "../redis/clients.js";
import { Channels } from "./channels.js";
import { openMailbox, RECHECK } from "./mailbox.js";
import { mergeOperation, type OperationPatch, type OperationRef } from "./model.js";
import { DEFAULT_PREFIX, member, OperationKeys, parseMember } from "./keys.js";
import { parseRequestIdValue, requestIdValue, sameCall, type RequestIdCall } from "./request-id.js";
import {
  COMPARE_AND_SET,
  CREATE,
  DELETE,
  RequestIdConflictError,
  storeError,
  StoreUnavailableError,
} from "./scripts.js";

export { storeError, StoreUnavailableError } from "./scripts.js";
import {
  decode,
  encode,
  InFlightError,
  IN_FLIGHT_WAIT_MS,
  type CreateOptions,
  type CreateResult,
  type OperationStoreOptions,
} from "./stored.js";

const MAX_CAS_ATTEMPTS = 16;
/** How often a call waiting for a requestId's first call in flight re-reads its Operation. */
const IN_FLIGHT_POLL_MS = 50;
/**
 * How long a failed call keeps /readyz unready when nothing succeeds after it: long enough to be
 * seen, short enough that a replica taken out of its Service gets traffic (and a chance) again.
 */
const FAILURE_MEMORY_MS = 3000;

export class OperationStore {
  private readonly keys: OperationKeys;
  private readonly now: () => number;
  private readonly minReplicaAcks: number;
  private readonly replicaAckTimeoutMs: number;
  private readonly channels: Channels;
  /**
   * When the last call failed as unavailable, until one succeeds: a Cluster client stays "ready"
   * while one shard fails over, so the connection status alone would not tell /readyz.
   */
  private failedAt: number | undefined;

  /**
   * `redis` runs commands; `subscriber` is a second connection used only for pub/sub (a subscribed
   * connection can run nothing else).
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly options: OperationStoreOptions,
  ) {
    this.keys = new OperationKeys(options.prefix ?? DEFAULT_PREFIX);
    this.now = options.now ?? Date.now;
    this.minReplicaAcks = options.minReplicaAcks ?? 0;
    this.replicaAckTimeoutMs = options.replicaAckTimeoutMs ?? 1000;
    this.channels = new Channels(subscriber, (fn) => this.call(fn));
  }

  /** True while both connections are up. */
  ready(): boolean {
    const failing = this.failedAt !== undefined && this.now() - this.failedAt < FAILURE_MEMORY_MS;
    return !failing && this.redis.status === "ready" && this.subscriber.status === "ready";
  }

  private opKey(ref: OperationRef): string {
    return this.keys.op(ref);
  }
  private indexKey(project: string, location: Location): string {
    return this.keys.index(project, location);
  }
  private requestIdKey(project: string, requestId: string): string {
    return this.keys.requestId(project, requestId);
  }
  private pendingKey(project: string, request: string): string {
    return this.keys.pending(project, request);
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const result = await fn();
      this.failedAt = undefined;
      return result;
    } catch (err) {
      throw this.failed(err);
    }
  }

  private failed(err: unknown): unknown {
    const mapped = storeError(err);
    if (mapped instanceof StoreUnavailableError) this.failedAt = this.now();
    return mapped;
  }

  /**
   * Runs `addScript` (which adds one script to the pipeline) and, when replicas are required, WAIT in the same pipeline: on the same
   * connection, so WAIT covers the script's write. Returns the script's reply and whether enough
   * replicas acknowledged.
   */
  private async durable(addScript: (pipeline: ChainableCommander) => void): Promise<{
    reply: unknown;
    replicated: boolean;
    acks: number;
  }> {
    const pipeline = this.redis.pipeline();
    addScript(pipeline);
    if (this.minReplicaAcks > 0) pipeline.wait(this.minReplicaAcks, this.replicaAckTimeoutMs);
    const results = await this.call(async () => {
      const replies = await pipeline.exec();
      if (!replies) throw new Error("pipeline aborted");
      return replies;
    });
    const [scriptError, reply] = results[0] ?? [new Error("no reply")];
    if (scriptError) throw this.failed(scriptError);
    if (this.minReplicaAcks === 0) return { reply, replicated: true, acks: 0 };
    const [waitError, acks] = results[1] ?? [new Error("no WAIT reply")];
    if (waitError) throw this.failed(waitError);
    const count = typeof acks === "number" ? acks : 0;
    return { reply, replicated: count >= this.minReplicaAcks, acks: count };
  }

  private notReplicated(acks: number): StoreUnavailableError {
    this.failedAt = this.now();
    return new StoreUnavailableError(
      `${acks} of ${this.minReplicaAcks} replicas acknowledged the write within ${this.replicaAckTimeoutMs}ms`,
    );
  }

  private ttl(op: Operation): string {
    return op.status === "DONE" ? String(this.options.retentionMs) : "";
  }

  async create(operation: Operation, ref: OperationRef, options: CreateOptions = {}): Promise<CreateResult> {
    const deadline = this.now() + (this.options.inFlightWaitMs ?? IN_FLIGHT_WAIT_MS);
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        return await this.createOnce(operation, ref, options, this.now() < deadline);
      } catch (err) {
        if (!(err instanceof InFlightError)) throw err;
        await this.settled(err.ref, deadline);
      }
    }
  }

  private async createOnce(
    operation: Operation,
    ref: OperationRef,
    options: CreateOptions,
    waitInFlight: boolean,
  ): Promise<CreateResult> {
    const pending = options.request !== undefined && operation.status !== "DONE";
    const { requestId } = options;
    const { reply, replicated, acks } = await this.durable((p) =>
      p.eval(
        CREATE,
        4,
        this.opKey(ref),
        this.indexKey(ref.project, ref.location),
        this.requestIdKey(ref.project, requestId?.id ?? ""),
        this.pendingKey(ref.project, options.request ?? ""),
        encode(operation),
        Date.parse(operation.insertTime),
        ref.name,
        member(ref),
        this.ttl(operation),
        requestId === undefined ? "0" : "1",
        this.options.retentionMs,
        pending ? "1" : "0",
        requestId === undefined ? "" : requestIdValue(member(ref), requestId.call),
      ),
    );
    const [code, value] = reply as [number, string | null];
    if (!replicated) {
      // Undo our own write (best effort: the master may be the thing that is failing), so that the
      // client's retry with the same requestId creates the operation afresh.
      if (code === 1) await this.remove(ref, requestId?.id, pending ? options.request : undefined);
      throw this.notReplicated(acks);
    }
    if (code === 1) return { operation, created: true };
    if (code === 2 && value) return { operation: decode(value), created: false };
    // The requestId is known: its operation, if this is the call it was first used for.
    const existing = await this.replayed(ref.project, requestId, value ?? "", waitInFlight);
    if (!existing) throw new StoreUnavailableError(`operation of requestId ${requestId?.id ?? ""} expired`);
    return { operation: existing, created: false };
  }

  /**
   * The operation a stored requestId value names, once `requestId`'s call is the one bound to it. With
   * `waitInFlight`, an operation still PENDING (its call in flight: it may yet be refused and forget
   * the requestId) or gone between the two reads (just refused) is InFlightError: the caller waits for
   * it and reads the requestId again. Neither another call nor the same call retried is answered from
   * a call that may yet be undone: the retry would acknowledge an Operation the first try then removes.
   */
  private async replayed(
    project: string,
    requestId: CreateOptions["requestId"],
    value: string,
    waitInFlight: boolean,
  ): Promise<Operation | undefined> {
    const stored = parseRequestIdValue(value);
    const ref = parseMember(project, stored.member);
    const operation = await this.get(ref);
    if (requestId && waitInFlight && (operation === undefined || operation.status === "PENDING"))
      throw new InFlightError(requestId.id, ref);
    if (requestId && !sameCall(stored, operation, requestId.call))
      throw new RequestIdConflictError(requestId.id);
    return operation;
  }

  /** Waits, until `deadline`, for the PENDING operation `ref` of a call in flight to move on or be removed. */
  private async settled(ref: OperationRef, deadline: number): Promise<void> {
    while (this.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
      if ((await this.get(ref))?.status !== "PENDING") return;
    }
  }

  private async remove(ref: OperationRef, requestId?: string, request?: string): Promise<boolean> {
    const reply = await this.call(() =>
      this.redis.eval(
        DELETE,
        4,
        this.opKey(ref),
        this.indexKey(ref.project, ref.location),
        this.requestIdKey(ref.project, requestId ?? ""),
        this.pendingKey(ref.project, request ?? ""),
        ref.name,
        requestId ?? "",
        request === undefined ? "" : member(ref),
      ),
    ).catch(() => 0);
    return reply === 1;
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
      const json = encode(next);
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
    const { reply, replicated, acks } = await this.durable((p) =>
      p.eval(
        DELETE,
        4,
        this.opKey(ref),
        this.indexKey(ref.project, ref.location),
        this.requestIdKey(ref.project, requestId ?? ""),
        this.pendingKey(ref.project, ""),
        ref.name,
        requestId ?? "",
        "",
      ),
    );
    if (!replicated) throw this.notReplicated(acks);
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

  /**
   * The operation a requestId created, while the requestId is remembered, when `call` is the call it
   * was first used for (RequestIdConflictError otherwise).
   */
  async getByRequestId(
    project: string,
    requestId: string,
    call: RequestIdCall,
  ): Promise<Operation | undefined> {
    const deadline = this.now() + (this.options.inFlightWaitMs ?? IN_FLIGHT_WAIT_MS);
    for (;;) {
      const value = await this.call(() => this.redis.get(this.requestIdKey(project, requestId)));
      if (value === null) return undefined;
      try {
        return await this.replayed(project, { id: requestId, call }, value, this.now() < deadline);
      } catch (err) {
        if (!(err instanceof InFlightError)) throw err;
        await this.settled(err.ref, deadline);
      }
    }
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
    const deadline = this.now() + timeoutMs;
    const recheckMs = this.options.waitRecheckMs ?? 5000;
    const mailbox = await openMailbox(this.channels, this.opKey(ref), {
      deadline,
      recheckMs,
      now: this.now,
      signal,
    });
    try {
      let latest = await this.get(ref);
      while (latest && latest.status !== "DONE") {
        const message = await mailbox.next();
        if (message === undefined) break;
        if (message === RECHECK) {
          try {
            latest = await this.get(ref);
          } catch {
            // Redis is failing over: keep the last state and listen on.
          }
        } else latest = message === "" ? undefined : decode(message);
      }
      return latest;
    } finally {
      await mailbox.close();
    }
  }
}
