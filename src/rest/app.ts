// The operator's HTTP app: /healthz, /readyz and, when Redis is configured, the compute REST API under
// /compute/v1 with its discovery service (/discovery/v1) and batch path (/batch). The compute calls,
// the hot path, are served by the route-table dispatcher on plain node:http (dispatch.ts) before
// Express, which serves the rest. Every request gets a request id and an access line; credentials are
// never logged (only the method, path, status, duration and the authenticated user's name).
import type { RequestListener } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import { discoveryRouter, type EndpointSetting } from "../discovery/router.js";
import { accessLog } from "./access-log.js";
import { answerError } from "./answer-error.js";
import { batchHandler, inProcessDispatch } from "./batch.js";
import type { RestDeps } from "./deps.js";
import { restDispatcher, type Dispatcher } from "./dispatch.js";
import { NotFoundError } from "./errors.js";
import type { Route } from "./route.js";
import { systemParameters } from "./system-parameters.js";

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

export interface HttpApp {
  /** Everything but the compute calls: probes, discovery, batch, and the 404 of unknown paths. */
  readonly express: express.Express;
  /**
   * The server's handler: the compute calls, then `rest` for every other request — `express`, or
   * what is mounted in front of it (the dashboard).
   */
  readonly listener: (rest?: RequestListener) => RequestListener;
}

export function createApp(options: AppOptions): HttpApp {
  const { log } = options;
  const startCall = accessLog(log);
  const compute: Dispatcher | undefined =
    options.rest &&
    restDispatcher({
      routes: options.rest.routes,
      deps: options.rest.deps,
      log,
      maxBodyBytes: options.rest.maxBodyBytes,
      base: REST_BASE,
      startCall,
    });
  const app = express();
  const listener =
    (rest: RequestListener = app): RequestListener =>
    (req, res) => {
      if (compute)
        compute(req, res, () => {
          rest(req, res);
        });
      else rest(req, res);
    };
  app.disable("x-powered-by");
  app.set("etag", false);
  if (options.trustProxy !== undefined) app.set("trust proxy", options.trustProxy);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const call = startCall(req.method, res, () => req.path);
    res.locals.reqId = call.reqId;
    Object.defineProperty(res.locals, "log", { get: () => call.log, enumerable: true });
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
    // `batch` is the discovery format's batchPath; Google's clients of today use batch/compute/v1.
    // Its parts are compute calls: they go through the dispatcher, as if each had been sent alone.
    app.post(
      ["/batch", `/batch${REST_BASE}`],
      express.raw({ type: "multipart/mixed", limit: maxBodyBytes }),
      batchHandler(inProcessDispatch(listener()), `${REST_BASE}/`),
    );
  }
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new NotFoundError(`The requested URL ${req.path} was not found.`));
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    answerError(res, err, (res.locals.log as Logger | undefined) ?? log);
  });
  return { express: app, listener };
}
