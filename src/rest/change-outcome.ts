// A mutation's cluster change and what its failure means (docs/reliability.md, linearizability V7). The
// cluster's refusal (an answer: 404, 409, 422 …) changed nothing, so the Operation recorded before it is
// forgotten and a retry starts afresh. A lost answer (a reset connection, a timeout, a 5xx) may hide a
// change that was made: the Operation stays, its requestId stays bound, the call is answered 503 (which
// clients retry with the same requestId), and the retry carries the change out on the Operation's own
// request — or finds it done.
import { isFinalState } from "../api/lifecycle.js";
import { locationPath, type Location, type Operation } from "../api/index.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { advance, isIncarnationOf } from "../operations/advance.js";
import { INSERT_OPERATION_ANNOTATION, type OperationRef } from "../operations/model.js";
import { FIRST_TRY_CHANGE_BUDGET_MS } from "../operations/stored.js";
import { ApiError } from "../runtime/api-errors.js";
import { cancelRequest, deleteRequest, findRequest } from "./cluster.js";
import { BackendError, NotFoundError } from "./errors.js";
import type { CallContext, Reply } from "./route.js";

/** Whether a failed change certainly changed nothing: the cluster answered it, or was never reached. */
export function changedNothing(err: unknown): boolean {
  if (err instanceof ApiError) return err.status >= 400 && err.status < 500;
  return (err as { code?: unknown } | undefined)?.code === "ECONNREFUSED";
}

/**
 * Runs the cluster change of a just-recorded operation. Refused: the operation is forgotten and the
 * refusal answered. Outcome unknown: the operation is kept and the call answered 503.
 */
export async function mutate<T>(
  call: CallContext<unknown, unknown>,
  ref: OperationRef,
  requestId: string | undefined,
  change: () => Promise<T>,
): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (changedNothing(err)) {
      await call.deps.store.delete(ref, requestId);
      throw err;
    }
    call.log.warn({ err, operation: ref.name }, "the outcome of a change is unknown; its operation is kept");
    throw unknownOutcome(ref);
  }
}

function unknownOutcome(ref: OperationRef): BackendError {
  return new BackendError(
    `The change was sent to the Kubernetes API server and its answer lost: it may have been made. Retry the call with the same requestId (operation ${ref.name}).`,
  );
}

/** A try's Operation as it recorded (created) or found it, and when it sent the record (`deps.now`). */
export interface StartedTry {
  readonly ref: OperationRef;
  readonly requestId?: string;
  readonly created: boolean;
  readonly recordSentAt: number;
}

/**
 * Whether a try whose call carries a requestId may still make its change (docs/reliability.md, V10 and
 * V12). A try can be held between recording (or finding) its Operation and sending its change — its
 * replica frozen — while a retry of its requestId is answered: refused, the retry forgot the Operation;
 * carried out, it moved the Operation on. Either way the held try's change must not be made now. Gone,
 * the call is answered 503 (its retry starts afresh); moved on, the answer is the Operation as it stands.
 * A read can itself be held (its answer waits in the socket while the replica is frozen), so a first try
 * past FIRST_TRY_CHANGE_BUDGET_MS since its record changes nothing either: 503, its Operation kept
 * PENDING for its retry to carry out.
 */
export async function answeredMeanwhile(
  call: CallContext<unknown, unknown>,
  started: StartedTry,
): Promise<Operation | undefined> {
  const { ref, requestId } = started;
  if (requestId === undefined) return undefined;
  const op = await call.deps.store.get(ref);
  if (!op)
    throw new BackendError(
      `Another try of this call's requestId was answered while this one was held, and nothing was changed by this one. Retry the call with the same requestId (operation ${ref.name}).`,
    );
  if (op.status !== "PENDING") return op;
  if (started.created && call.deps.now() - started.recordSentAt > FIRST_TRY_CHANGE_BUDGET_MS)
    throw new BackendError(
      `This try was held for more than ${FIRST_TRY_CHANGE_BUDGET_MS / 1000} s before its change, and made none. Retry the call with the same requestId (operation ${ref.name}).`,
    );
  return undefined;
}

export interface RetriedCall {
  readonly project: string;
  readonly location: Location;
  readonly group: string;
  /** The request as the call names it. */
  readonly request: string;
}

/**
 * A cancel or delete retried with the requestId of an Operation not DONE: its first try may have been
 * cut off before or after its change reached the cluster. The change is made again on the Operation's
 * own request (isIncarnationOf), which is idempotent; another incarnation or none means the request
 * the Operation is about is gone. The answer is the Operation as that leaves it.
 */
export async function carryOut(
  call: CallContext<unknown, unknown>,
  op: Operation,
  verb: "cancel" | "delete",
  where: RetriedCall,
): Promise<Reply> {
  const { deps } = call;
  const ref: OperationRef = { project: where.project, location: where.location, name: op.name };
  const found = await findRequest(deps.kube, where.project, where.location, where.group, where.request).catch(
    (err: unknown) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    },
  );
  let own: ResizeRequest | undefined = found && isIncarnationOf(op, found) ? found : undefined;
  // Made again, the change must not forget the Operation (it is the first try's, which may still be in
  // flight): gone meanwhile (404, or replaced under its name: the uid precondition's 409) is gone.
  const again = async (change: (rr: ResizeRequest) => Promise<unknown>): Promise<unknown> => {
    if (!own) return undefined;
    try {
      return await change(own);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 409)) return (own = undefined);
      if (changedNothing(err)) throw err;
      throw unknownOutcome(ref);
    }
  };
  if (verb === "delete" && own) await settleInsert(call, where, own);
  if (verb === "delete" && !own?.metadata.deletionTimestamp) {
    if ((await again((rr) => deleteRequest(deps.kube, rr))) === true) own = undefined;
  }
  if (verb === "cancel" && own && !own.spec.cancel && !isFinalState(own.status?.state))
    await again((rr) => cancelRequest(deps.kube, rr));
  const patch = advance(op, own, locationPath(where.location));
  const updated = patch && (await deps.store.update(ref, patch));
  return { body: updated ?? op };
}

/**
 * Before a request is deleted, the Operation of the insert that created it learns what became of it
 * (docs/reliability.md, V9): an insert whose answer was lost after its create (a Redis failover) leaves
 * its Operation PENDING, and its retry would create the request again once this delete frees the name.
 * Moved on (DONE for a final request, its targetId recorded), the retry answers with it instead.
 */
export async function settleInsert(
  call: CallContext<unknown, unknown>,
  where: { readonly project: string; readonly location: Location },
  rr: ResizeRequest,
): Promise<void> {
  const name = rr.metadata.annotations?.[INSERT_OPERATION_ANNOTATION];
  if (name === undefined) return;
  const ref: OperationRef = { project: where.project, location: where.location, name };
  const op = await call.deps.store.get(ref);
  if (op?.status !== "PENDING") return;
  const patch = advance(op, rr, locationPath(where.location));
  if (patch) await call.deps.store.update(ref, patch);
}
