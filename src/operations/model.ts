// Pure rules of Operations: how one is born, and how a change is merged into it. The store applies
// `mergeOperation` inside a compare-and-set, so these rules hold whichever replica writes.
import { randomBytes } from "node:crypto";
import type { Errors, Operation, OperationStatus, OperationType } from "../api/index.js";
import { locationField, type Location } from "../api/location.js";
import { GROUP, REST_KIND } from "../api/names.js";

/**
 * Marks a ResizeRequest created through REST with the name of its insert Operation, so the operations
 * controller knows it needs no second one (requests created with kubectl get theirs from it).
 */
export const INSERT_OPERATION_ANNOTATION = `${GROUP}/insert-operation`;

/** Where an operation lives: zone and region operations are addressed by project, location and name. */
export interface OperationRef {
  readonly project: string;
  readonly location: Location;
  readonly name: string;
}

/** The fields a change may set; everything else is fixed at creation. */
export type OperationPatch = Partial<
  Pick<
    Operation,
    | "status"
    | "statusMessage"
    | "progress"
    | "targetId"
    | "error"
    | "httpErrorStatusCode"
    | "httpErrorMessage"
    | "instancesBulkInsertOperationMetadata"
  >
>;

const RANK: Readonly<Record<OperationStatus, number>> = { PENDING: 0, RUNNING: 1, DONE: 2 };

/**
 * Applies `patch` to `op` at time `now`: status only moves forward (PENDING → RUNNING → DONE) and a
 * DONE operation never changes again; progress never decreases and is 100 once DONE; startTime and
 * endTime are stamped on the first move to RUNNING and DONE. Returns undefined when nothing changes.
 */
export function mergeOperation(op: Operation, patch: OperationPatch, now: string): Operation | undefined {
  if (op.status === "DONE") return undefined;
  const status = patch.status && RANK[patch.status] > RANK[op.status] ? patch.status : op.status;
  const done = status === "DONE";
  const progress = done ? 100 : Math.max(op.progress ?? 0, patch.progress ?? 0);
  const next: Operation = {
    ...op,
    ...(patch.statusMessage !== undefined && { statusMessage: patch.statusMessage }),
    ...(patch.targetId !== undefined && { targetId: patch.targetId }),
    ...(patch.instancesBulkInsertOperationMetadata && {
      instancesBulkInsertOperationMetadata: patch.instancesBulkInsertOperationMetadata,
    }),
    // Errors belong to the outcome: they are recorded only with the move to DONE.
    ...(done &&
      patch.error && {
        error: patch.error,
        ...(patch.httpErrorStatusCode !== undefined && { httpErrorStatusCode: patch.httpErrorStatusCode }),
        ...(patch.httpErrorMessage !== undefined && { httpErrorMessage: patch.httpErrorMessage }),
      }),
    status,
    progress,
    ...(status !== "PENDING" && op.startTime === undefined && { startTime: now }),
    ...(done && { endTime: now }),
  };
  return JSON.stringify(next) === JSON.stringify(op) ? undefined : next;
}

/** Google-style operation name: `operation-<ms>-<random hex>`. */
export function newOperationName(nowMs: number): string {
  return `operation-${nowMs}-${randomBytes(8).toString("hex")}`;
}

/** A random uint64 as a decimal string, the id of an operation. */
export function newOperationId(): string {
  return BigInt("0x" + randomBytes(8).toString("hex")).toString(10);
}

export interface NewOperation {
  readonly ref: OperationRef;
  readonly id: string;
  readonly operationType: OperationType;
  /** URL of the operation's zone or region. */
  readonly locationUrl: string;
  readonly targetLink: string;
  readonly targetId?: string;
  readonly user: string;
  readonly insertTime: string;
  readonly requestId?: string;
  readonly description?: string;
}

export function newOperation(o: NewOperation): Operation {
  return {
    kind: REST_KIND.operation,
    id: o.id,
    name: o.ref.name,
    [locationField(o.ref.location)]: o.locationUrl,
    ...(o.requestId !== undefined && { clientOperationId: o.requestId }),
    operationType: o.operationType,
    targetLink: o.targetLink,
    ...(o.targetId !== undefined && { targetId: o.targetId }),
    status: "PENDING",
    user: o.user,
    progress: 0,
    insertTime: o.insertTime,
    selfLink: `${o.locationUrl}/operations/${o.ref.name}`,
    ...(o.description !== undefined && { description: o.description }),
  };
}

/** HTTP reason phrases as Google writes them in `httpErrorMessage`. */
const HTTP_MESSAGE: Readonly<Record<number, string>> = {
  400: "BAD REQUEST",
  403: "FORBIDDEN",
  404: "NOT FOUND",
  409: "CONFLICT",
  412: "PRECONDITION FAILED",
  500: "INTERNAL SERVER ERROR",
  503: "SERVICE UNAVAILABLE",
};

/** The patch that ends an operation with `errors` and HTTP status `code`. */
export function failed(errors: Errors, code: number, statusMessage?: string): OperationPatch {
  return {
    status: "DONE",
    error: errors,
    httpErrorStatusCode: code,
    httpErrorMessage: HTTP_MESSAGE[code] ?? "ERROR",
    ...(statusMessage !== undefined && { statusMessage }),
  };
}
