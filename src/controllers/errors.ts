// The errors the controller records on requests (Compute Engine's error structure, docs/design.md §3.4), built in one place so
// status.error, status.lastAttempt.error, events and conditions say the same thing.
import { ErrorCode, type Errors } from "../api/errors.js";
import { locationField, type Location } from "../api/location.js";
import { GROUP } from "../api/names.js";

/** Error codes beyond the model's admission codes; `code` is an open string in the compute API. */
export const AttemptErrorCode = {
  ...ErrorCode,
  /** All instances were not ready in time and no scheduling problem was seen. */
  PROVISIONING_TIMEOUT: "PROVISIONING_TIMEOUT",
  /** The target's replicas were changed by someone else while an attempt was in progress. */
  TARGET_MODIFIED: "TARGET_MODIFIED",
} as const;

function single(
  code: string,
  message: string,
  reason: string,
  metadatas: Record<string, string> = {},
): Errors {
  return {
    errors: [
      {
        code,
        message,
        errorDetails: [{ errorInfo: { reason, domain: GROUP, metadatas } }],
      },
    ],
  };
}

export function quotaExceeded(args: {
  requested: number;
  maxSize: number;
  location: Location;
  group: string;
}): Errors {
  return {
    errors: [
      {
        code: ErrorCode.QUOTA_EXCEEDED,
        location: "spec.resizeBy",
        message: `the request asks for ${args.requested} instances but group ${args.group} allows at most ${args.maxSize} (spec.maxSize), so it can never fit`,
        errorDetails: [
          {
            quotaInfo: {
              metricName: `${GROUP}/instances`,
              limitName: "maxSize",
              dimensions: {
                [locationField(args.location)]: args.location.name,
                instanceGroupManager: args.group,
              },
              limit: args.maxSize,
            },
          },
        ],
      },
    ],
  };
}

export const notFound = (message: string): Errors =>
  single(ErrorCode.RESOURCE_NOT_FOUND, message, "RESOURCE_NOT_FOUND");

export const notScalable = (message: string): Errors =>
  single(ErrorCode.UNSUPPORTED_OPERATION, message, "TARGET_NOT_SCALABLE");

/** A target the operator will never scale, whatever is granted (targets/access.ts, TargetResourceMismatch). */
export const unsupportedTarget = (message: string): Errors =>
  single(ErrorCode.UNSUPPORTED_OPERATION, message, "TARGET_RESOURCE_MISMATCH");

/** Instance names the group's target cannot create (api/instance-names.ts). */
export const unsupportedNames = (message: string): Errors =>
  single(ErrorCode.UNSUPPORTED_OPERATION, message, "INSTANCE_NAMES_NOT_HONOURED");

export function attemptTimedOut(args: {
  wanted: number;
  ready: number;
  /** How long the attempt waited: the provisioningTimeout, or less when rolled back early. */
  timeout: string;
  unschedulable: string | undefined;
  /** What went wrong with the new instances (default: they could not be scheduled). */
  cause?: string;
  /** Why nothing will add capacity, when the attempt is rolled back before its timeout (capacity.ts). */
  noCapacity?: string;
}): Errors {
  const base = `only ${args.ready} of ${args.wanted} instances were ready after ${args.timeout}`;
  const counts = { ready: String(args.ready), wanted: String(args.wanted) };
  if (args.unschedulable === undefined)
    return single(AttemptErrorCode.PROVISIONING_TIMEOUT, base, "PROVISIONING_TIMEOUT", counts);
  const why = args.noCapacity === undefined ? "" : ` and ${args.noCapacity}`;
  return single(
    AttemptErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED,
    `${base}: ${args.cause ?? "new instances could not be scheduled"}${why}: ${args.unschedulable}`,
    "ZONE_RESOURCE_POOL_EXHAUSTED",
    { ...counts, ...(args.noCapacity !== undefined && { rolledBackEarly: "true" }) },
  );
}

/** The status reason and condition reason of a request failed by its queue deadline. */
export const QUEUE_DEADLINE_EXCEEDED = "QueueDeadlineExceeded";

export function queueDeadlineExceeded(args: {
  waited: string;
  maxQueueDuration: string;
  /** "the request" or "the group": whose spec.maxQueueDuration set the deadline. */
  setBy: "request" | "group";
  group: string;
  /** What it waited for, e.g. "for room: needs 4, room 2 under maxSize 8" or "behind 3 requests". */
  waitingFor: string;
}): Errors {
  return {
    errors: [
      {
        code: ErrorCode.DEADLINE_EXCEEDED,
        ...(args.setBy === "request" && { location: "spec.maxQueueDuration" }),
        message: `waited ${args.waited} in the queue of group ${args.group} ${args.waitingFor}; the ${args.setBy}'s maxQueueDuration of ${args.maxQueueDuration} elapsed`,
        errorDetails: [
          {
            errorInfo: {
              reason: "QUEUE_DEADLINE_EXCEEDED",
              domain: GROUP,
              metadatas: { maxQueueDuration: args.maxQueueDuration, setBy: args.setBy },
            },
          },
        ],
      },
    ],
  };
}

/** `expected` lists the replica counts the record allows: before and after while applying, after once applied. */
export const targetModified = (expected: readonly number[], found: number): Errors =>
  single(
    AttemptErrorCode.TARGET_MODIFIED,
    `the target's replicas changed outside the operator during the attempt (expected ${expected.join(" or ")}, found ${found})`,
    "TARGET_MODIFIED",
  );

/** The first error's message, for conditions and event notes. */
export function messageOf(errors: Errors): string {
  const first = errors.errors[0];
  return first ? `${first.code}: ${first.message ?? ""}` : "";
}
