// Pure: what a ResizeRequest's current state means for one of its Operations. The operations
// controller feeds every change of a request through this and stores the result.
import { operationVerb, type Errors, type Operation, type ResizeRequest } from "../api/index.js";
import { ErrorCode } from "../api/errors.js";
import { FINAL_STATES } from "../api/lifecycle.js";
import { numericId } from "../api/identity.js";
import { failed, INSERT_OPERATION_ANNOTATION, type OperationPatch } from "./model.js";

/** HTTP status an insert failed with, by the first error's code (quota problems are 403, as in GCE). */
function httpStatusOf(errors: Errors): number {
  switch (errors.errors[0]?.code) {
    case ErrorCode.QUOTA_EXCEEDED:
      return 403;
    case ErrorCode.RESOURCE_NOT_FOUND:
      return 404;
    default:
      return 400;
  }
}

/** Errors of a cancel that came too late: the request had already reached a final state. */
export function cancelTooLate(state: string): OperationPatch {
  return failed(
    {
      errors: [
        {
          code: "CONDITION_NOT_MET",
          message: `The resize request is already ${state} and can no longer be cancelled.`,
        },
      ],
    },
    400,
  );
}

function insertProgress(rr: ResizeRequest, location: string): OperationPatch {
  const size = rr.spec.resizeBy ?? rr.spec.instances?.length ?? 0;
  const state = rr.status?.state ?? "CREATING";
  const counts = (created: number, done: boolean, failedCount = 0): OperationPatch => ({
    instancesBulkInsertOperationMetadata: {
      perLocationStatus: {
        [location]: {
          status: done ? "DONE" : "CREATING",
          targetVmCount: size,
          createdVmCount: created,
          ...(failedCount > 0 && { failedToCreateVmCount: failedCount }),
        },
      },
    },
  });
  switch (state) {
    case "CREATING":
      return {
        status: "RUNNING",
        progress: 10,
        statusMessage: "Waiting for admission.",
        ...counts(0, false),
      };
    case "ACCEPTED":
      return { status: "DONE", statusMessage: "The resize request was accepted.", ...counts(0, true) };
    case "SUCCEEDED":
      return { status: "DONE", statusMessage: "The resize request succeeded.", ...counts(size, true) };
    case "CANCELLED":
      return { status: "DONE", statusMessage: "The resize request was cancelled.", ...counts(0, true) };
    case "FAILED": {
      const errors = rr.status?.error ?? { errors: [{ code: "RESOURCE_OPERATION_FAILED" }] };
      return {
        ...failed(errors, httpStatusOf(errors), "The resize request failed."),
        ...counts(0, true, size),
      };
    }
  }
}

/**
 * Whether `rr` is the incarnation of its name that `op` is about: the one whose id is the operation's
 * target; for an insert that has not recorded its target yet, only the request its insert created — the
 * one whose insert annotation names the operation. A request of the same name created by another insert
 * (another requestId, or after a delete) is another incarnation.
 */
export function isIncarnationOf(op: Operation, rr: ResizeRequest): boolean {
  if (op.targetId !== undefined) return numericId(rr.metadata.uid ?? "") === op.targetId;
  if (operationVerb(op.operationType) === "insert")
    return rr.metadata.annotations?.[INSERT_OPERATION_ANNOTATION] === op.name;
  return true;
}

/**
 * Whether the cache cannot tell what became of `op`'s request (docs/reliability.md, V11): a cancel or
 * delete whose own incarnation the cache does not hold. Gone, or not seen yet: a cache whose watch was
 * cut from the API server still holds the name's previous incarnation, or nothing, while the request the
 * call read is active. Finishing the Operation on that sight would answer DONE for a cancel whose request
 * is not CANCELLED, or a delete whose request is still there; the API server's own answer tells which.
 */
export function needsLiveRead(op: Operation, rr: ResizeRequest | undefined): boolean {
  if (op.status === "DONE") return false;
  const verb = operationVerb(op.operationType);
  return (verb === "cancel" || verb === "delete") && !(rr && isIncarnationOf(op, rr));
}

/**
 * The change `rr` (undefined: no request of that name in the cache) brings to `op`, an operation on
 * it in the zone or region named `location`; undefined when there is none. A request of another
 * incarnation under the same name (isIncarnationOf) counts as gone, except for an insert whose own
 * request the controller has not seen yet: it is not finished by another incarnation's deletion. Its
 * request may not exist yet (the insert records its operation before creating it) or not have reached
 * the cache; the insert's statusMessage, set on the first sight of its request, tells.
 */
export function advance(
  op: Operation,
  rr: ResizeRequest | undefined,
  location: string,
): OperationPatch | undefined {
  if (op.status === "DONE") return undefined;
  const current = rr && isIncarnationOf(op, rr) ? rr : undefined;
  const gone: OperationPatch = { status: "DONE", statusMessage: "The resize request no longer exists." };
  const state = current?.status?.state;
  switch (operationVerb(op.operationType)) {
    case "insert":
      if (current)
        return {
          ...insertProgress(current, location),
          ...(op.targetId === undefined && { targetId: numericId(current.metadata.uid ?? "") }),
        };
      return op.targetId !== undefined && op.statusMessage !== undefined ? gone : undefined;
    case "cancel":
      if (!current || state === "CANCELLED") return { status: "DONE" };
      if (state !== undefined && FINAL_STATES.includes(state)) return cancelTooLate(state);
      return { status: "RUNNING", progress: 50 };
    case "delete":
      return current ? { status: "RUNNING", progress: 50 } : { status: "DONE" };
  }
}
