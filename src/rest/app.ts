// The operator's HTTP app: /healthz, /readyz and, when Redis is configured, the compute REST API under
// /compute/v1. Every request gets a child logger with a request id; credentials are never logged
// (only the method, path, status, duration and the authenticated user's name).
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { RestDeps } from "./deps.js";
import { NotFoundError, toGoogleError } from "./errors.js";
import type { Route } from "./route.js";
import { restRouter } from "./router.js";

export const REST_BASE = "/compute/v1";

export interface AppOptions {
  readonly log: Logger;
  /** Readiness: the reasons the replica is not ready; empty when it is. */
  readonly notReady: () => readonly string[];
  readonly rest?: {
    readonly deps: RestDeps;
    readonly routes: readonly Route[];
    readonly maxBodyBytes: number;
  };
}

export function createApp(options: AppOptions): express.Express {
  const { log } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestLog = log.child({ reqId: randomUUID() });
    res.locals.log = requestLog;
    res.on("finish", () => {
      if (req.path === "/healthz" || req.path === "/readyz") return;
      requestLog.info(
        {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          user: res.locals.user as string | undefined,
        },
        "request",
      );
    });
    next();
  });
  app.get("/healthz", (_req, res) => {
    res.type("text/plain").send("ok");
  });
  app.get("/readyz", (_req, res) => {
    const reasons = options.notReady();
    res
      .status(reasons.length === 0 ? 200 : 503)
      .type("text/plain")
      .send(reasons.length === 0 ? "ok" : reasons.join("\n"));
  });
  if (options.rest) {
    const { deps, routes, maxBodyBytes } = options.rest;
    app.use(REST_BASE, express.json({ limit: maxBodyBytes }), restRouter(routes, deps, log));
  }
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new NotFoundError(`The requested URL ${req.path} was not found.`));
  });
  app.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const { status, body, internal } = toGoogleError(err);
    const requestLog = (res.locals.log as Logger | undefined) ?? log;
    if (internal) requestLog.error({ err }, "internal error");
    else if (status >= 500)
      requestLog.warn({ err: err instanceof Error ? err.message : String(err) }, "request failed");
    res.status(status).json(body);
  });
  return app;
}
