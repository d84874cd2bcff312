// The one place the dashboard's errors become answers. Sign-in routes, the page and the JSON API all
// answer with the REST API's Google error body (`toGoogleError`, so typed errors map the same way
// everywhere) plus Google's canonical `status` name, which the dashboard's clients read
// (UNAUTHENTICATED: sign in again). Never an HTML page: nothing from the request is echoed as markup.
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { toGoogleError } from "../rest/errors.js";

/** Google's canonical code of an HTTP status (google.rpc.Code), by status and, for 409, reason. */
function canonicalStatus(status: number, reason: string | undefined): string {
  switch (status) {
    case 400:
    case 413:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return reason === "alreadyExists" ? "ALREADY_EXISTS" : "ABORTED";
    case 412:
      return "FAILED_PRECONDITION";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    default:
      return status >= 500 ? "INTERNAL" : "UNKNOWN";
  }
}

/** Express error middleware answering every dashboard error (after the headers: Express's default). */
export function dashboardErrors(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const { status, body, internal } = toGoogleError(err);
    if (internal) log.error({ err }, "dashboard error");
    res
      .status(status)
      .json({ error: { ...body.error, status: canonicalStatus(status, body.error.errors[0]?.reason) } });
  };
}
