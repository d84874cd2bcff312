// The dashboard's JSON API under /dashboard/api: the answers are the table's rows (api-reads.ts,
// api-writes.ts); this router puts in front of them what every call needs — the security headers, the
// pinned host, a session with an identity, no caching, CSRF on mutations — plus the live stream.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { UserInfo } from "../rest/auth.js";
import { BackendError, ForbiddenError, NotFoundError } from "../rest/errors.js";
import { READS } from "./api-reads.js";
import type { ApiRoute, DashboardApiDeps } from "./api-route.js";
import { WRITES } from "./api-writes.js";
import { requireCsrf } from "./csrf.js";
import type { DashboardSession } from "./session.js";
import { hardened } from "./site.js";
import type { LiveHub } from "./sse.js";

export const API_BASE = "/dashboard/api";

/** The route table of the JSON API. */
export const API_ROUTES: readonly ApiRoute[] = [...READS, ...WRITES];

/** The identity of the request's session (the guard put the session there). */
export function userOf(res: Response, identity: DashboardApiDeps["identity"]): UserInfo | undefined {
  const session = res.locals.session as DashboardSession | null | undefined;
  return session ? identity(session) : undefined;
}

export interface ApiFront {
  /** Refuses a request naming another host than AUTH_URL's (host-guard.ts). */
  readonly hostCheck: RequestHandler;
  /** The session guard: 401 without a session (guard.ts). */
  readonly guarded: RequestHandler;
  /** The request's session as it is now (the guard's read, without passing refreshed cookies on). */
  readonly session: (req: Request) => Promise<DashboardSession | null>;
  readonly hub: LiveHub;
}

/** A row as Express middleware: its answer as JSON, its error to the error handler. */
function mounted(route: ApiRoute, deps: DashboardApiDeps): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    Promise.resolve()
      .then(() => {
        const user = userOf(res, deps.identity);
        // The router refused calls without an identity already; this keeps the row's type honest.
        if (!user) throw new BackendError("The session has no identity.");
        const session = res.locals.session as DashboardSession;
        return route.answer({ req, res, user, session }, deps);
      })
      .then((body) => {
        if (!res.headersSent) res.json(body);
      }, next);
  };
}

export function dashboardApi(deps: DashboardApiDeps, front: ApiFront): express.Router {
  const router = express.Router();
  router.use(hardened, front.hostCheck, front.guarded);
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.setHeader("Cache-Control", "no-store");
    if (userOf(res, deps.identity)) next();
    else next(new ForbiddenError("The session carries no email to authorize with."));
  });
  router.get("/stream", (req, res) => {
    const user = userOf(res, deps.identity);
    // The stream follows the session of the request that opened it, read again as it goes.
    const session = async (): Promise<UserInfo | undefined> => {
      const now = await front.session(req);
      return now ? deps.identity(now) : undefined;
    };
    if (user) front.hub.connect(res, user, session);
  });
  router.use(express.json({ limit: 64 * 1024 }));
  router.use(requireCsrf(deps.secrets, (res) => userOf(res, deps.identity)?.username));
  for (const route of API_ROUTES) router[route.method](route.path, mounted(route, deps));
  router.use((req: Request, _res: Response, next: NextFunction) => {
    next(new NotFoundError(`No dashboard API at ${req.path}.`));
  });
  return router;
}
