// How a failed call is answered, whichever route served it: the app's one error handler (and its
// not-found handler, which throws) is `googleErrors`. `toGoogleError` maps the error; an internal error
// or a 5xx is logged as `{ err }` (its stack and cause), so is an answer of the API server (whose text
// the caller does not get), and the Google error body is sent, shaped by the call's `prettyPrint`.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { toGoogleError } from "./errors.js";
import { asJson } from "./json-answer.js";

/**
 * Whether part of the answer is out already: then there is no status left to change, so the connection
 * is cut (what a server can do then; Fastify has no word for it) and the client sees an incomplete
 * answer rather than a wrong one. Both error handlers (this one, the dashboard's) ask it first.
 */
export function cutIfUnderWay(reply: FastifyReply): boolean {
  if (!reply.raw.headersSent) return false;
  reply.raw.destroy();
  return true;
}

/** The error handler of the app: `log` serves calls refused before their access record was made. */
export function googleErrors(log: Logger) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply): void => {
    const callLog = req.call?.log ?? log;
    if (cutIfUnderWay(reply)) return;
    // The client is gone (its connection closed before the answer): nobody to answer, and a call that
    // stopped because of it (an Operation not recorded, docs/reliability.md V6) is no fault of ours.
    if (reply.raw.closed && !reply.raw.writableFinished) {
      callLog.debug({ err }, "the client went away before the answer");
      return;
    }
    const { status, body, internal, upstream } = toGoogleError(err);
    if (internal) callLog.error({ err }, "internal error");
    else if (status >= 500) callLog.warn({ err }, "request failed");
    else if (upstream) callLog.info({ err }, "the Kubernetes API server refused a call");
    void asJson(reply.code(status), false).send(body);
  };
}
