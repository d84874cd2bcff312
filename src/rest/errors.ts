// The one place errors become HTTP answers. Handlers throw typed errors (RestError subclasses) or let
// lower layers' errors through (Kubernetes ApiError, an unreachable Redis); `toGoogleError` maps every
// one of them to a status and the Google error body
// `{"error":{"code","message","errors":[{"domain","reason","message","location","locationType"}]}}`.
import { STATUS_CODES } from "node:http";
import type { z } from "zod";
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isInvalid,
  isNotFound,
  isTooManyRequests,
} from "../runtime/api-errors.js";
import { TimeoutError } from "../runtime/kube-http.js";
import { RequestIdConflictError } from "../operations/scripts.js";
import { StoreUnavailableError } from "../operations/store.js";

export type LocationType = "parameter" | "header" | "body";

export interface GoogleErrorItem {
  readonly domain: string;
  readonly reason: string;
  readonly message: string;
  readonly location?: string;
  readonly locationType?: LocationType;
}

export interface GoogleErrorBody {
  readonly error: {
    readonly code: number;
    readonly message: string;
    readonly errors: readonly GoogleErrorItem[];
  };
}

interface Detail {
  readonly message: string;
  readonly location?: string;
  readonly locationType?: LocationType;
}

/** An error with a fixed HTTP status and Google reason; `details` become the `errors[]` items. */
export class RestError extends Error {
  readonly details: readonly Detail[];
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    details?: readonly Detail[],
  ) {
    super(message);
    this.name = new.target.name;
    this.details = details && details.length > 0 ? details : [{ message }];
  }
}

export class InvalidError extends RestError {
  constructor(message: string, details?: readonly Detail[]) {
    super(400, "invalid", message, details);
  }
}
export class ParseError extends RestError {
  constructor(message: string) {
    super(400, "parseError", message);
  }
}
export class UnauthenticatedError extends RestError {
  constructor(message: string) {
    super(401, "required", message, [{ message, location: "Authorization", locationType: "header" }]);
  }
}
export class ForbiddenError extends RestError {
  constructor(message: string, reason = "forbidden") {
    super(403, reason, message);
  }
}
export class NotFoundError extends RestError {
  constructor(message: string) {
    super(404, "notFound", message);
  }
}
export class AlreadyExistsError extends RestError {
  constructor(message: string) {
    super(409, "alreadyExists", message);
  }
}
/** The resource exists but its state does not allow the method (GCE's 400 for a wrong-state call). */
export class InvalidResourceUsageError extends RestError {
  constructor(message: string) {
    super(400, "invalidResourceUsage", message);
  }
}
export class BackendError extends RestError {
  constructor(message: string) {
    super(503, "backendError", message);
  }
}

/** zod issues → one `invalid` error with an item per issue, located at the field or parameter. */
export function validationError(
  issues: readonly z.core.$ZodIssue[],
  locationType: "parameter" | "body",
  prefix = "",
): InvalidError {
  const details = issues.flatMap((issue): Detail[] => {
    const path = issue.path.map(String);
    // Unknown fields are reported once each, at the unknown field itself.
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    return keys.map((key) => {
      const location = [prefix, ...path, ...(key === undefined ? [] : [key])].filter(Boolean).join(".");
      const message = key === undefined ? issue.message : `Unknown field: ${key}`;
      return {
        message: location ? `Invalid value for ${location}: ${message}` : message,
        ...(location && { location }),
        locationType,
      };
    });
  });
  const first = details[0]?.message ?? "Invalid request";
  return new InvalidError(first, details);
}

/**
 * The Kubernetes API server's answer, in Google's terms and in our words: its own text names the
 * operator's ServiceAccount and the cluster's policies, so it goes to the log (answer-error.ts), not to
 * the caller. Only a validation failure keeps its text, which is about the caller's own fields.
 */
function fromKubernetes(err: ApiError): RestError {
  if (isInvalid(err)) return new InvalidError(err.message);
  if (isForbidden(err))
    return new ForbiddenError(
      "The Kubernetes API server refused the operator this call; the operator's log says why.",
    );
  if (isNotFound(err)) return new NotFoundError("The resource was not found.");
  if (isAlreadyExists(err)) return new AlreadyExistsError("The resource already exists.");
  if (isConflict(err))
    return new RestError(409, "conflict", "The resource changed while the call ran; try again.");
  if (isTooManyRequests(err))
    return new RestError(429, "rateLimitExceeded", "The Kubernetes API server is busy; try again later.");
  return new BackendError("The Kubernetes API server failed the call; try again later.");
}

/**
 * Fastify's own refusals before a handler runs (they carry a `FST_` code and a 4xx `statusCode`): a body
 * over the limit, a body shorter than its Content-Length, a URL with a malformed escape, …
 */
function fromFramework(err: unknown): RestError | undefined {
  if (!(err instanceof Error) || !("code" in err) || typeof err.code !== "string") return undefined;
  if (!err.code.startsWith("FST_")) return undefined;
  const status = "statusCode" in err && typeof err.statusCode === "number" ? err.statusCode : 500;
  if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE")
    return new RestError(413, "invalid", "The request body is too large.");
  if (err.code === "FST_ERR_BAD_URL")
    return new InvalidError(`The request URL is not valid: ${err.message}.`);
  return status >= 400 && status < 500 ? new InvalidError(err.message) : undefined;
}

/** Any thrown value → status and Google error body. Unknown errors are 500 and say nothing more. */
export function toGoogleError(err: unknown): {
  status: number;
  body: GoogleErrorBody;
  internal: boolean;
  /** The API server's answer, mapped: its own text is only in the log. */
  upstream: boolean;
} {
  let rest: RestError;
  let internal = false;
  const framework = fromFramework(err);
  if (err instanceof RestError) rest = err;
  else if (framework) rest = framework;
  else if (err instanceof ApiError) rest = fromKubernetes(err);
  else if (err instanceof RequestIdConflictError)
    rest = new InvalidError(err.message, [
      { message: err.message, location: "requestId", locationType: "parameter" },
    ]);
  else if (err instanceof StoreUnavailableError)
    rest = new BackendError("The operations store is unavailable; try again later.");
  else if (err instanceof TimeoutError) rest = new BackendError("The Kubernetes API did not answer in time.");
  else {
    internal = true;
    rest = new RestError(500, "internalError", "Internal error.");
  }
  return {
    status: rest.status,
    internal,
    upstream: err instanceof ApiError,
    body: {
      error: {
        code: rest.status,
        message: rest.message,
        errors: rest.details.map((d) => ({
          domain: "global",
          reason: rest.reason,
          message: d.message,
          ...(d.location !== undefined && { location: d.location }),
          ...(d.locationType !== undefined && { locationType: d.locationType }),
        })),
      },
    },
  };
}

/**
 * The raw HTTP answer to a request Node's parser rejected before any handler ran (headers too large,
 * a malformed request line, a timeout): the same Google error body as everywhere else.
 */
export function rawClientErrorResponse(parserCode: string | undefined): string {
  const [status, reason, message] =
    parserCode === "HPE_HEADER_OVERFLOW"
      ? [431, "headersTooLarge", "Request header fields are too large."]
      : parserCode === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "requestTimeout", "The request was not received in time."]
        : [400, "badRequest", "The request could not be parsed as HTTP."];
  const { body } = toGoogleError(new RestError(status, reason, message));
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
    "Content-Type: application/json; charset=UTF-8",
    `Content-Length: ${Buffer.byteLength(json)}`,
    "Connection: close",
    "",
    json,
  ].join("\r\n");
}
