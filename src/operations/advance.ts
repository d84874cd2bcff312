// Pure: what a ResizeRequest's current state means for one of its Operations. The operations
// controller feeds every change of a request through this and stores the result.
import { operationVerb, type Errors, type Operation, type ResizeRequest } from "../api/index.js";
import { ErrorCode } from "../api/errors.js";
import { FINAL_STATES } from "../api/lifecycle.js";
import { numericId } from "../api/identity.js";
import { failed, type OperationPatch } from "./model.js";

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
 * The change `rr` (undefined: the request no longer exists) brings to `op`, an operation on it in
 * the zone or region named `location`; undefined when there is none. A request whose id differs from the operation's target is
 * another incarnation under the same name and counts as gone.
 */
export function advance(
  op: Operation,
  rr: ResizeRequest | undefined,
  location: string,
): OperationPatch | undefined {
  if (op.status === "DONE") return undefined;
  const current =
    rr && op.targetId !== undefined && numericId(rr.metadata.uid ?? "") !== op.targetId ? undefined : rr;
  const gone: OperationPatch = { status: "DONE", statusMessage: "The resize request no longer exists." };
  const state = current?.status?.state;
  switch (operationVerb(op.operationType)) {
    case "insert":
      return current ? insertProgress(current, location) : gone;
    case "cancel":
      if (!current || state === "CANCELLED") return { status: "DONE" };
      if (state !== undefined && FINAL_STATES.includes(state)) return cancelTooLate(state);
      return { status: "RUNNING", progress: 50 };
    case "delete":
      return current ? { status: "RUNNING", progress: 50 } : { status: "DONE" };
  }
}
