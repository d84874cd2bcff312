// The access log: one line per call, written when the answer is finished, with the request id,
// method, path (never the query), status, duration and the authenticated user. Both ways a call is
// is served (compute, discovery, batch, the dashboard) starts here, in the app's one onRequest hook.
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { Logger } from "pino";

/** One access-log line: primitives only, so that no credential can reach it. */
interface AccessLine {
  readonly reqId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  readonly user?: string;
}

/** A call being served: its id, its logger, and the user once authenticated. */
export interface CallRecord {
  readonly reqId: string;
  /** A child of the app's logger with the request id, made on first use. */
  readonly log: Logger;
  user?: string;
}

/** Starts a call: `path` is read when the answer is finished (the path of the call as routed). */
export type StartCall = (method: string, res: ServerResponse, path: () => string) => CallRecord;

/** Probes are polled every few seconds and would drown the log. */
const UNLOGGED = new Set(["/healthz", "/readyz"]);

/**
 * A call's record. A class, not an object literal with a getter: a literal's per-call getter gave every
 * call its own hidden class, which V8 keeps in old space, so everything the call touched outlived the
 * young generation (a quarter of a REST call's allocations were promoted; GC was the largest cost).
 */
class Call implements CallRecord {
  user?: string;
  private requestLog: Logger | undefined;

  constructor(
    readonly reqId: string,
    private readonly parent: Logger,
  ) {}

  get log(): Logger {
    return (this.requestLog ??= this.parent.child({ reqId: this.reqId }));
  }
}

export function accessLog(log: Logger): StartCall {
  // The access line is a fixed record of primitives (the path without its query, never a header), and
  // every redaction path is a nested one: redacting it would be a no-op costing more CPU than the rest
  // of the line. AccessLine's type keeps it flat.
  const access = log.child({}, { redact: [] });
  return (method, res, path) => {
    const started = process.hrtime.bigint();
    // The call's logger is made when something logs (most calls log only their access line): a child
    // logger per call was a measurable share of a REST call's CPU.
    const call = new Call(randomUUID(), log);
    res.on("finish", () => {
      const at = path();
      if (UNLOGGED.has(at)) return;
      const line: AccessLine = {
        reqId: call.reqId,
        method,
        path: at,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        ...(call.user !== undefined && { user: call.user }),
      };
      access.info(line, "request");
    });
    return call;
  };
}
