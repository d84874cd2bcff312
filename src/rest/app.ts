// The operator's HTTP app: /healthz, /readyz and, when Redis is configured, the compute REST API under
// /compute/v1 with its discovery service (/discovery/v1) and batch path (/batch). Every request gets a child logger with a request id; credentials are never logged
// (only the method, path, status, duration and the authenticated user's name).
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import { discoveryRouter, type EndpointSetting } from "../discovery/router.js";
import { batchHandler, inProcessDispatch } from "./batch.js";
import type { RestDeps } from "./deps.js";
import { NotFoundError, toGoogleError } from "./errors.js";
import type { Route } from "./route.js";
import { restRouter } from "./router.js";
import { sendJson, systemParameters } from "./system-parameters.js";

export const REST_BASE = "/compute/v1";

export interface AppOptions {
  readonly log: Logger;
  /** Readiness: the reasons the replica is not ready; empty when it is. */
  readonly notReady: () => readonly string[];
  /** Express's `trust proxy` (`--trust-proxy`): whose X-Forwarded-* headers are believed. */
  readonly trustProxy?: boolean | number | string;
  readonly rest?: {
    readonly deps: RestDeps;
    readonly routes: readonly Route[];
    readonly maxBodyBytes: number;
    readonly discovery: {
      /** `--public-url` as configured (`deps.publicUrl` also has a default). */
      readonly publicUrl?: string;
      readonly endpoints: readonly EndpointSetting[];
    };
  };
}

/** One access-log line: primitives only, so that no credential can reach it. */
interface AccessLine {
  readonly reqId: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
  readonly user?: string;
}

export function createApp(options: AppOptions): express.Express {
  const { log } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  if (options.trustProxy !== undefined) app.set("trust proxy", options.trustProxy);
  // The access line is a fixed record of primitives (the path without its query, never a header), and
  // every redaction path is a nested one: redacting it would be a no-op costing more CPU than the rest
  // of the line. AccessLine's type keeps it flat.
  const access = log.child({}, { redact: [] });
  const logAccess = (line: AccessLine): void => {
    access.info(line, "request");
  };
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const reqId = randomUUID();
    res.locals.reqId = reqId;
    // The call's logger is made when something logs (most calls log only their access line): a child
    // logger per call was a measurable share of a REST call's CPU.
    let requestLog: Logger | undefined;
    Object.defineProperty(res.locals, "log", {
      get: () => (requestLog ??= log.child({ reqId })),
      enumerable: true,
    });
    res.on("finish", () => {
      if (req.path === "/healthz" || req.path === "/readyz") return;
      const user = res.locals.user as string | undefined;
      logAccess({
        reqId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        ...(user !== undefined && { user }),
      });
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
    const { deps, routes, maxBodyBytes, discovery } = options.rest;
    app.use(
      "/discovery/v1",
      systemParameters,
      discoveryRouter({
        routes,
        ...discovery,
        defaultUrl: deps.publicUrl,
        trustProxy: options.trustProxy !== undefined,
      }),
    );
    app.use(
      REST_BASE,
      systemParameters,
      express.json({ limit: maxBodyBytes }),
      restRouter(routes, deps, log),
    );
    // `batch` is the discovery format's batchPath; Google's clients of today use batch/compute/v1.
    app.post(
      ["/batch", `/batch${REST_BASE}`],
      express.raw({ type: "multipart/mixed", limit: maxBodyBytes }),
      batchHandler(inProcessDispatch(app), `${REST_BASE}/`),
    );
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
    sendJson(res, status, body, false);
  });
  return app;
}
