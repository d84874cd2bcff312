// The errors of the Kubernetes API and the one place that tells them apart. Callers ask "was it a
// conflict?" (as with controller-runtime's apierrors.IsConflict), never compare HTTP status numbers.
import { z } from "zod";

/** A failed API call, carrying the HTTP status and the Kubernetes Status reason when the server sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** A metav1.Status: the body of a failed request, a watch ERROR event, or the answer to some deletes. */
export const StatusBody = z.looseObject({
  kind: z.literal("Status"),
  code: z.number().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

/** Turns a Kubernetes Status (HTTP error body or watch ERROR object) into an ApiError. */
export function statusError(httpStatus: number, body: unknown): ApiError {
  const status = StatusBody.safeParse(body);
  if (status.success) {
    const { code, reason, message } = status.data;
    return new ApiError(code ?? httpStatus, reason, message ?? `HTTP ${httpStatus}`);
  }
  return new ApiError(httpStatus, undefined, `HTTP ${httpStatus}`);
}

const HTTP = {
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  gone: 410,
  invalid: 422,
  tooManyRequests: 429,
} as const;

/** The request itself was refused as malformed or invalid (schema, CEL rule, admission). */
export function isInvalid(err: unknown): boolean {
  return err instanceof ApiError && (err.status === HTTP.badRequest || err.status === HTTP.invalid);
}

/** The caller's identity was refused or lacks the permission (RBAC, an admission policy). */
export function isForbidden(err: unknown): boolean {
  return err instanceof ApiError && (err.status === HTTP.unauthorized || err.status === HTTP.forbidden);
}

/** The API server asked the caller to slow down (API priority and fairness). */
export function isTooManyRequests(err: unknown): boolean {
  return err instanceof ApiError && err.status === HTTP.tooManyRequests;
}

/** The object (or the collection, or the API group) does not exist. */
export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && (err.status === HTTP.notFound || err.reason === "NotFound");
}

/** A create found an object of that name already there. */
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ApiError && err.reason === "AlreadyExists";
}

/**
 * A write lost an optimistic-concurrency race: the resourceVersion (or another precondition) it was
 * based on is no longer current. A 409 without a reason counts too; AlreadyExists does not.
 */
export function isConflict(err: unknown): boolean {
  return err instanceof ApiError && err.status === HTTP.conflict && !isAlreadyExists(err);
}

/** True for "410 Gone" / reason Expired: the resourceVersion is too old and the caller must list again. */
export function isGone(err: unknown): boolean {
  return (
    err instanceof ApiError && (err.status === HTTP.gone || err.reason === "Expired" || err.reason === "Gone")
  );
}

/** The server answered 5xx: it may well succeed when tried again. */
export function isServerError(err: unknown): boolean {
  return err instanceof ApiError && err.status >= 500;
}

/**
 * No answer came: the connection failed or broke (an API server restarting, a network blip) or the
 * request timed out. Node's network errors carry a code such as ECONNREFUSED or ECONNRESET.
 */
export function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof ApiError) return false;
  if (err.name === "TimeoutError") return true;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code);
}

/** Worth trying again as it is: no answer, the server's own failure (5xx), or its 429. */
export function isTransient(err: unknown): boolean {
  return isUnreachable(err) || isServerError(err) || isTooManyRequests(err);
}
