// The access log: one line per call, written when the answer is finished, with the request id,
// method, path (never the query), status, duration and the authenticated user. A plugin of the whole
// app (its hooks reach every route: compute, discovery, batch, the dashboard): an onRequest hook gives
// the call its record (`req.call`), an onResponse hook writes the line.
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyPluginCallback } from "fastify";
import type { Logger } from "pino";
import { appWide } from "./app-wide.js";
import { pathOf } from "./path.js";

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
  /** The API method id of the compute route that served the call (compute.zoneOperations.get), for its metrics. */
  route?: string;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The call's access record; null only for a request refused before routing (frameworkErrors). */
    call: CallRecord | null;
  }
}

/** Probes are polled every few seconds and would drown the log. */
const UNLOGGED = new Set(["/healthz", "/readyz"]);

/**
 * A call's record. A class, not an object literal with a getter: a literal's per-call getter gave every
 * call its own hidden class, which V8 keeps in old space, so everything the call touched outlived the
 * young generation (a quarter of a REST call's allocations were promoted; GC was the largest cost).
 */
class Call implements CallRecord {
  user?: string;
  route?: string;
  private requestLog: Logger | undefined;

  constructor(
    readonly reqId: string,
    private readonly parent: Logger,
  ) {}

  get log(): Logger {
    return (this.requestLog ??= this.parent.child({ reqId: this.reqId }));
  }
}

/** The access log on `log`, as a plugin of the whole app. */
export function accessLog(log: Logger): FastifyPluginCallback {
  // The access line is a fixed record of primitives (the path without its query, never a header), and
  // every redaction path is a nested one: redacting it would be a no-op costing more CPU than the rest
  // of the line. AccessLine's type keeps it flat.
  const access = log.child({}, { redact: [] });
  return appWide((app: FastifyInstance, _options, done) => {
    app.decorateRequest("call", null);
    // The call's logger is made when something logs (most calls log only their access line): a child
    // logger per call was a measurable share of a REST call's CPU.
    app.addHook("onRequest", (req, _reply, next) => {
      req.call = new Call(randomUUID(), log);
      next();
    });
    app.addHook("onResponse", (req, reply, next) => {
      const { call } = req;
      // The path of the call as routed, without its query.
      const path = pathOf(req.url);
      if (call && !UNLOGGED.has(path)) {
        const line: AccessLine = {
          reqId: call.reqId,
          method: req.method,
          path,
          status: reply.statusCode,
          ms: reply.elapsedTime,
          ...(call.user !== undefined && { user: call.user }),
        };
        access.info(line, "request");
      }
      next();
    });
    done();
  });
}
