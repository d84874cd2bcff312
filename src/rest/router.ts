// Builds the Express router from the route table: per call, authenticate the bearer token, run the
// call through the shared invoker (parameters, scopes, RBAC, body, handler) and answer; any error goes
// through `toGoogleError`.
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { RestDeps } from "./deps.js";
import { NotFoundError } from "./errors.js";
import { invoke } from "./invoke.js";
import { checkRoute, markRoute, type Route } from "./route.js";
import { queryToken, sendJson } from "./system-parameters.js";

/** `projects/{project}/…` → `/projects/:project/…`. */
export function expressPath(template: string): string {
  return "/" + template.replace(/\{([A-Za-z]+)\}/g, ":$1");
}

/**
 * The call's bearer credentials: the Authorization header, else Google's `access_token` or
 * `oauth_token` query parameter (as the header would carry it). Neither reaches a log: access logs
 * record the path without the query.
 */
function credentials(req: Request): string | undefined {
  if (req.headers.authorization !== undefined) return req.headers.authorization;
  const token = queryToken(req.query);
  return token === undefined ? undefined : `Bearer ${token}`;
}

/**
 * The call's logger: one child of the app's logger carrying the request id (set by the app), the API
 * method and the user — one set of bindings per call rather than a child of a child.
 */
function callLog(res: Response, log: Logger, route: Route, user: string): Logger {
  const reqId: unknown = res.locals.reqId;
  return log.child({ ...(typeof reqId === "string" && { reqId }), method: route.id, user });
}

export function restRouter(routes: readonly Route[], deps: RestDeps, log: Logger): express.Router {
  const router = express.Router();
  for (const route of routes) {
    checkRoute(route);
    const method = route.httpMethod === "GET" ? "get" : route.httpMethod === "POST" ? "post" : "delete";
    router[method](expressPath(route.path), async (req: Request, res: Response) => {
      markRoute(res, route.id);
      const user = await deps.authenticator.authenticate(credentials(req));
      res.locals.user = user.username;
      // Made when the handler first logs: most calls never do.
      let logger: Logger | undefined;
      const reply = await invoke({
        route,
        path: req.params,
        query: req.query,
        body: req.body,
        user,
        authorize: (u, check) => deps.authorizer.authorize(u, check),
        get log() {
          return (logger ??= callLog(res, log, route, user.username));
        },
        res,
        deps,
      });
      if (reply.body === undefined) res.status(reply.status ?? 204).end();
      else sendJson(res, reply.status ?? 200, reply.body);
    });
  }
  router.use((req: Request, _res: Response, next: NextFunction) => {
    next(
      new NotFoundError(
        `The requested URL ${req.method} ${req.originalUrl.split("?")[0] ?? ""} was not found.`,
      ),
    );
  });
  return router;
}
