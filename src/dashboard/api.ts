// The dashboard's JSON API under /dashboard/api: the answers are the table's rows (api-reads.ts,
// api-writes.ts); this scope puts in front of them what every call needs — the security headers, the
// pinned host, a session with an identity, no caching, CSRF on mutations — plus the live stream.
import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { UserInfo } from "../rest/auth.js";
import { addRoutes, type HttpRoute } from "../rest/http-route.js";
import { pathOf } from "../rest/path.js";
import { BackendError, ForbiddenError, NotFoundError, RestError } from "../rest/errors.js";
import { READS } from "./api-reads.js";
import type { ApiRoute, DashboardApiDeps } from "./api-route.js";
import { WRITES } from "./api-writes.js";
import { requireCsrf } from "./csrf.js";
import type { DashboardSession } from "./session.js";
import { harden, inOrder, type Front } from "./site.js";
import { MAX_STREAMS_PER_USER, type LiveHub } from "./sse.js";

export const API_BASE = "/dashboard/api";
/** The largest body a dashboard call takes. */
const MAX_BODY_BYTES = 64 * 1024;

/** The route table of the JSON API. */
export const API_ROUTES: readonly ApiRoute[] = [...READS, ...WRITES];

/** The identity of the request's session (the guard put the session there). */
export function userOf(req: FastifyRequest, identity: DashboardApiDeps["identity"]): UserInfo | undefined {
  return req.session ? identity(req.session) : undefined;
}

export interface ApiFront {
  /** Refuses a request naming another host than AUTH_URL's (host-guard.ts). */
  readonly hostCheck: Front;
  /** The session guard: 401 without a session (guard.ts). */
  readonly guarded: Front;
  /** The request's session as it is now (the guard's read, without passing refreshed cookies on). */
  readonly session: (req: FastifyRequest) => Promise<DashboardSession | null>;
  readonly hub: LiveHub;
}

/** A row as a route handler: returns its answer (sent as JSON); its error goes to the dashboard's error handler. */
function handlerOf(route: ApiRoute, deps: DashboardApiDeps) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const user = userOf(req, deps.identity);
    // The scope refused calls without an identity already; this keeps the row's type honest.
    if (!user || !req.session) throw new BackendError("The session has no identity.");
    return route.answer({ req, reply, user, session: req.session }, deps);
  };
}

/**
 * Hands the connection to the live stream. A hijacked reply writes none of Fastify's headers, so the
 * ones set so far (the security headers, no caching, a refreshed session cookie) go onto the stream's
 * response here: the stream is the one answer written on Node's response (sse.ts).
 */
function hijackWithHeaders(reply: FastifyReply): ServerResponse {
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) res.setHeader(name, typeof value === "number" ? String(value) : value);
  reply.hijack();
  return res;
}

/** The API's routes, registered under API_BASE (a scope of its own: its 404 is the API's). */
export function dashboardApi(app: FastifyInstance, deps: DashboardApiDeps, front: ApiFront): void {
  const csrf = requireCsrf(deps.secrets, (req) => userOf(req, deps.identity)?.username);
  // Every call, an unknown path's too: the headers, the host, a session with an identity, no caching.
  const checks: Front[] = [
    (_req, reply) => {
      harden(reply);
    },
    front.hostCheck,
    front.guarded,
    (req, reply) => {
      void reply.header("Cache-Control", "no-store");
      if (!userOf(req, deps.identity))
        throw new ForbiddenError("The session carries no email to authorize with.");
    },
  ];
  const before = inOrder(...checks);
  app.addHook("preHandler", before);
  const stream: HttpRoute = {
    method: "GET",
    url: "/stream",
    handler: (req, reply) => {
      const user = userOf(req, deps.identity);
      // The stream follows the session of the request that opened it, read again as it goes.
      const session = async (): Promise<UserInfo | undefined> => {
        const now = await front.session(req);
        return now ? deps.identity(now) : undefined;
      };
      if (!user) return;
      if (!front.hub.admits(user))
        throw new RestError(
          429,
          "rateLimitExceeded",
          `At most ${MAX_STREAMS_PER_USER} live streams per user are open at once; close another tab first.`,
        );
      front.hub.connect(hijackWithHeaders(reply), user, session);
    },
  };
  const rows = API_ROUTES.map((route): HttpRoute => ({
    method: route.method === "get" ? "GET" : "POST",
    url: route.path,
    bodyLimit: MAX_BODY_BYTES,
    preHandler: (req) =>
      Promise.resolve().then(() => {
        csrf(req);
      }),
    handler: handlerOf(route, deps),
  }));
  addRoutes(app, [stream, ...rows]);
  app.setNotFoundHandler({ preHandler: before }, (req) => {
    throw new NotFoundError(`No dashboard API at ${pathOf(req.url).slice(API_BASE.length)}.`);
  });
}
