// The compute REST API on the app's Fastify instance: one Fastify route per row of the route table
// (its `{param}` placeholders as Fastify's `:param`, HEAD served by the GET route). Per call, in the
// order the API has always answered: the standard parameters (`fields`, `prettyPrint`, `alt`,
// `callback`, …), the JSON body (json-body.ts, read before the handler runs), authentication (the
// bearer token), then the one invoker (parameters, scopes, RBAC, body, handler) and the answer; any
// failure goes to the app's error handler.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { RestDeps } from "./deps.js";
import { invoke } from "./invoke.js";
import { checkRoute, markRoute, type PathValues, type QueryValues, type Route } from "./route.js";
import { queryToken, readSystemParameters, sendJson } from "./system-parameters.js";

export interface ComputeOptions {
  readonly routes: readonly Route[];
  readonly deps: RestDeps;
  readonly log: Logger;
  /** The service path, e.g. `/compute/v1`. */
  readonly base: string;
}

/**
 * The call's bearer credentials: the Authorization header, else Google's `access_token` or
 * `oauth_token` query parameter (as the header would carry it). Neither reaches a log: access logs
 * record the path without the query.
 */
function credentials(req: FastifyRequest, query: QueryValues): string | undefined {
  if (req.headers.authorization !== undefined) return req.headers.authorization;
  const token = queryToken(query);
  return token === undefined ? undefined : `Bearer ${token}`;
}

/** `projects/{project}/zones/{zone}` → `/projects/:project/zones/:zone`, below `base`. */
const fastifyPath = (base: string, template: string): string =>
  `${base}/${template.replace(/\{([A-Za-z]+)\}/g, ":$1")}`;

export function computeRoutes(app: FastifyInstance, options: ComputeOptions): void {
  const { deps, log, base } = options;
  for (const route of options.routes) {
    checkRoute(route);
    const serve = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const res = reply.raw;
      const query = req.query as QueryValues;
      readSystemParameters(res, query);
      markRoute(res, route.id);
      const { call } = req;
      const user = await deps.authenticator.authenticate(credentials(req, query));
      call.user = user.username;
      // Made when the handler first logs: most calls never do. One child per call, not a child of a child.
      let logger: Logger | undefined;
      const answer = await invoke({
        route,
        path: req.params as PathValues,
        query,
        body: req.body,
        user,
        authorize: (u, check) => deps.authorizer.authorize(u, check),
        log: () => (logger ??= log.child({ reqId: call.reqId, method: route.id, user: user.username })),
        res,
        deps,
      });
      if (answer.body !== undefined) sendJson(res, answer.status ?? 200, answer.body);
      else {
        res.statusCode = answer.status ?? 204;
        res.end();
      }
    };
    app.route({ method: route.httpMethod, url: fastifyPath(base, route.path), handler: serve });
  }
}
