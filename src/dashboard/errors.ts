// The one place the dashboard's errors become answers. Sign-in routes, the page and the JSON API all
// answer with the REST API's Google error body (`toGoogleError`, so typed errors map the same way
// everywhere) plus Google's canonical `status` name, which the dashboard's clients read
// (UNAUTHENTICATED: sign in again). Never an HTML page: nothing from the request is echoed as markup.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { cutIfUnderWay } from "../rest/answer-error.js";
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

/**
 * The dashboard scope's error handler: every dashboard error answered. After the headers there is no
 * status left to change: the connection is cut, and the client sees an incomplete answer.
 */
export function dashboardErrors(log: Logger) {
  return (err: unknown, _req: FastifyRequest, reply: FastifyReply): void => {
    if (cutIfUnderWay(reply)) return;
    const { status, body, internal, upstream } = toGoogleError(err);
    if (internal) log.error({ err }, "dashboard error");
    else if (upstream) log.info({ err }, "the Kubernetes API server refused a call");
    void reply
      .code(status)
      .send({ error: { ...body.error, status: canonicalStatus(status, body.error.errors[0]?.reason) } });
  };
}
