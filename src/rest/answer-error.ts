// How a failed call is answered, whichever route served it (the app's one error handler and its
// not-found handler call this): `toGoogleError` maps it, an internal error or
// a 5xx is logged as `{ err }` (its stack and cause), so is an answer of the API server (whose text the
// caller does not get), and the Google error body is sent.
import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import { toGoogleError } from "./errors.js";
import { sendJson } from "./system-parameters.js";

export function answerError(res: ServerResponse, err: unknown, log: Logger): void {
  // Part of the answer is out: there is no status left to change, so the connection is cut (what
  // a server can do then) and the client sees an incomplete answer rather than a wrong one.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The client is gone (its connection closed before the answer): nobody to answer, and a call that
  // stopped because of it (an Operation not recorded, docs/reliability.md V6) is no fault of ours.
  if (res.closed && !res.writableFinished) {
    log.debug({ err }, "the client went away before the answer");
    return;
  }
  const { status, body, internal, upstream } = toGoogleError(err);
  if (internal) log.error({ err }, "internal error");
  else if (status >= 500) log.warn({ err }, "request failed");
  else if (upstream) log.info({ err }, "the Kubernetes API server refused a call");
  sendJson(res, status, body, false);
}
