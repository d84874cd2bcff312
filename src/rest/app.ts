// The operator's one HTTP app, on Fastify: /healthz, /readyz and, when Redis is configured, the compute
// REST API under /compute/v1 (compute.ts) with its discovery service (/discovery/v1) and batch path
// (/batch); the dashboard registers its routes on the same instance. Its app-wide plugins: the access
// log (access-log.ts), the one error handler (answer-error.ts: Google's error body; the not-found
// handler throws to it), the JSON body (json-body.ts) and the call's standard parameters
// (json-answer.ts), so no answer of Fastify's own reaches a client. Credentials are never logged (only the method, path,
// status, duration and the authenticated user's name).
import type { RequestListener, Server } from "node:http";
import { createServer } from "node:http";
import { parse as parseQuery } from "node:querystring";
import Fastify, { LogController, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { discoveryRoutes, type EndpointSetting } from "../discovery/router.js";
import { accessLog } from "./access-log.js";
import { googleErrors } from "./answer-error.js";
import { batchHandler, inProcessDispatch } from "./batch.js";
import { computeRoutes } from "./compute.js";
import type { RestDeps } from "./deps.js";
import { NotFoundError } from "./errors.js";
import { addRoutes, type HttpRoute } from "./http-route.js";
import { isBelow, pathOf } from "./path.js";
import { declareOutput } from "./json-answer.js";
import { addJsonBody } from "./json-body.js";
import type { Route } from "./route.js";

export const REST_BASE = "/compute/v1";

export interface AppOptions {
  readonly log: Logger;
  /** Readiness: the reasons the replica is not ready; empty when it is. */
  readonly notReady: () => readonly string[];
  /** `--trust-proxy`: whose X-Forwarded-* headers are believed (true, a hop count, or addresses). */
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
  /** The instance: more routes (the dashboard) and hooks (metrics) are added before `ready()`. */
  readonly fastify: FastifyInstance;
  /** The server's request handler (the app answers once `fastify.ready()` has resolved). */
  readonly handler: RequestListener;
  /** The node:http server the handler is served on. */
  readonly server: Server;
}

/** The scheme and authority of an absolute-form request target (`GET http://host/compute/v1/…`). */
const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** `--trust-proxy` for Fastify: a hop count trusts that many proxies nearest the server. */
function trustProxyOption(
  setting: boolean | number | string,
): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof setting === "number" ? (_address, hop) => hop < setting : setting;
}

/** The probes: liveness, and readiness with the reasons the replica is not ready. */
function probes(notReady: AppOptions["notReady"]): HttpRoute[] {
  const text = "text/plain; charset=utf-8";
  return [
    {
      method: "GET",
      url: "/healthz",
      handler: (_req, reply) => {
        void reply.type(text);
        return "ok";
      },
    },
    {
      method: "GET",
      url: "/readyz",
      handler: (_req, reply) => {
        const reasons = notReady();
        void reply.code(reasons.length === 0 ? 200 : 503).type(text);
        return reasons.length === 0 ? "ok" : reasons.join("\n");
      },
    },
  ];
}

export function createApp(options: AppOptions): HttpApp {
  const { log } = options;
  const answerError = googleErrors(log);
  let server: Server | undefined;
  let handler: RequestListener | undefined;
  const app = Fastify<Server>({
    // One logger, ours: Fastify's own request logging would be a second access line.
    // (Fastify 5 takes this through its log controller; the top-level option is deprecated, FSTDEP023.)
    logger: false,
    logController: new LogController({ disableRequestLogging: true }),
    ...(options.trustProxy !== undefined && { trustProxy: trustProxyOption(options.trustProxy) }),
    bodyLimit: options.rest?.maxBodyBytes ?? 1 << 20,
    // Paths as the API has always matched them: any case, one trailing slash tolerated.
    routerOptions: {
      ignoreTrailingSlash: true,
      caseSensitive: false,
      // A value longer than its parameter allows is the parameter's 400 (its schema words it), not a 404.
      maxParamLength: 16 * 1024,
      // Repeated names give arrays, which handlers and the standard parameters refuse by name.
      querystringParser: (text: string) => parseQuery(text),
    },
    // A client's absolute-form target is served by its path; a fragment is neither path nor query.
    rewriteUrl: (req) => (req.url ?? "/").replace(ORIGIN, "").split("#")[0] || "/",
    // Requests Node's parser refuses (e.g. headers over 16 KiB) are answered by the server's own
    // clientError listener (operator.ts) with the Google error body, not by Fastify's.
    clientErrorHandler: () => undefined,
    // The server is node:http's, made here so that the app, the batch path and the operator serve the
    // same handler (Fastify's, with its hooks) and the operator keeps its listen/close life cycle.
    serverFactory: (fastifyHandler) => {
      handler = fastifyHandler;
      server = createServer(fastifyHandler);
      return server;
    },
    // Fastify's own errors (a malformed escape in the URL, …) go through the one error handler.
    frameworkErrors: answerError,
  });
  if (!server || !handler) throw new Error("Fastify did not build its server");
  // The server's clientError listener is the operator's (see clientErrorHandler above).
  server.removeAllListeners("clientError");

  void app.register(accessLog(log));
  declareOutput(app);
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((req) => {
    const path = pathOf(req.url);
    const what = isBelow(path, REST_BASE) ? `${req.method} ${path}` : path;
    throw new NotFoundError(`The requested URL ${what} was not found.`);
  });
  addJsonBody(app);

  addRoutes(app, probes(options.notReady));
  if (options.rest) {
    const { deps, routes, maxBodyBytes, discovery } = options.rest;
    computeRoutes(app, { routes, deps, log, base: REST_BASE });
    discoveryRoutes(app, "/discovery/v1", {
      routes,
      ...discovery,
      defaultUrl: deps.publicUrl,
      trustProxy: options.trustProxy !== undefined,
    });
    // `batch` is the discovery format's batchPath; Google's clients of today use batch/compute/v1.
    // Its parts are compute calls: they go through the whole app, as if each had been sent alone.
    const batch = batchHandler(inProcessDispatch(handler), `${REST_BASE}/`);
    app.register((scope, _opts, done) => {
      scope.addContentTypeParser(
        "multipart/mixed",
        { parseAs: "buffer", bodyLimit: maxBodyBytes },
        (_req, body, parsed) => {
          parsed(null, body);
        },
      );
      for (const path of ["/batch", `/batch${REST_BASE}`]) scope.post(path, batch);
      done();
    });
  }
  return { fastify: app, handler, server };
}
