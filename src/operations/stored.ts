// What the operation store (store.ts) takes and gives, and the form Operations are stored in: its
// options and results, the codec of the stored JSON, and the internal signal of a requestId whose
// first call is still in flight.
import { Operation } from "../api/operation.js";
import type { OperationRef } from "./model.js";
import type { RequestIdCall } from "./request-id.js";

export interface CreateOptions {
  /**
   * The client's requestId and the call it comes with: the same call again returns the first operation
   * instead; another call with it is refused (RequestIdConflictError).
   */
  readonly requestId?: { readonly id: string; readonly call: RequestIdCall };
  /** The ResizeRequest the operations controller must advance this operation for. */
  readonly request?: string;
  /**
   * Aborts when the call's client is gone (its connection closed before the answer): nothing is
   * recorded then. Its retry may already have been answered without this try (a replica frozen with
   * the request in hand, docs/reliability.md V6); recording it now would carry out a call its client
   * was told did not happen.
   */
  readonly signal?: AbortSignal;
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
  /** Replicas that must hold a create or delete before it is acknowledged (WAIT); 0 skips WAIT. */
  readonly minReplicaAcks?: number;
  /** How long WAIT may take before the write is reported as unavailable. */
  readonly replicaAckTimeoutMs?: number;
  /** How often `wait` re-reads the operation, should a published change be missed in a failover. */
  readonly waitRecheckMs?: number;
  /**
   * How long a call whose requestId names a PENDING Operation — a call of that requestId still in
   * flight, which the cluster may yet refuse, forgetting the requestId — waits for it to finish: then
   * the requestId is free, or replayed, or refused as another call's, as it stands.
   */
  readonly inFlightWaitMs?: number;
}

/** The default of `inFlightWaitMs`: a retry takes a PENDING Operation over only this long after it came. */
export const IN_FLIGHT_WAIT_MS = 5_000;

/**
 * How long after sending its Operation's record a first try may still send its change (docs/reliability.md,
 * V12). A retry of its requestId takes a PENDING Operation over (and, refused, forgets it) only
 * IN_FLIGHT_WAIT_MS after it came, which is after the record was made; a change sent within this budget
 * therefore reaches the cluster before any such refusal, with 2 s to spare. A first try held longer (its
 * replica frozen) changes nothing, whatever it read of its Operation before the freeze.
 */
export const FIRST_TRY_CHANGE_BUDGET_MS = IN_FLIGHT_WAIT_MS - 2_000;

/** A requestId whose Operation is still PENDING, its call in flight (internal: the store waits). */
export class InFlightError extends Error {
  constructor(
    readonly requestId: string,
    readonly ref: OperationRef,
  ) {
    super(`requestId ${requestId} is bound to a call in flight`);
    this.name = "InFlightError";
  }
}

/**
 * An Operation as stored. Every write validated it first (`encode`), and the keys and channels are
 * ours alone, so reads decode without validating again: zod on every read was the largest share of a
 * zoneOperations.get's CPU.
 */
export function decode(raw: string): Operation {
  return JSON.parse(raw) as Operation;
}

/** The JSON an Operation is stored as, validated against the model first: what `decode` relies on. */
export function encode(operation: Operation): string {
  return JSON.stringify(Operation.parse(operation));
}
