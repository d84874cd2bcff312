// The compute REST API on the app's Fastify instance, in a scope of its own: one Fastify route per row
// of the route table (its `{param}` placeholders as Fastify's `:param`, HEAD served by the GET route).
// Per call, in the order the API has always answered: the JSON body (json-body.ts, read before any
// hook), the standard parameters (`fields`, `prettyPrint`, `alt`, `callback`, …: the scope's
// preValidation hook, json-answer.ts), authentication (the bearer token), then the one invoker
// (parameters, scopes, RBAC, body, handler), whose Reply the handler returns for the scope's
// serializer to write; any failure goes to the app's error handler.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { RestDeps } from "./deps.js";
import { BackendError } from "./errors.js";
import { addRoutes, type HttpRoute } from "./http-route.js";
import { invoke } from "./invoke.js";
import { asJson, outputOf, readSystemParameters } from "./json-answer.js";
import { checkRoute, type PathValues, type QueryValues, type Route } from "./route.js";
import { queryToken } from "./system-parameters.js";

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

/** The Fastify handler of one route: runs the call and returns its JSON body (undefined: no body). */
function serving(route: Route, { deps, log }: ComputeOptions) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const { call } = req;
    if (!call) throw new BackendError("The call has no access record.");
    // The call's metrics are labelled by the route that served it (observability/rest.ts).
    call.route = route.id;
    const query = req.query as QueryValues;
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
      output: outputOf(req),
      // The invoker's abort signal follows the response's closing: it reads it, never writes to it.
      res: reply.raw,
      deps,
    });
    if (answer.body === undefined) {
      void reply.code(answer.status ?? 204);
      return undefined;
    }
    void asJson(reply.code(answer.status ?? 200));
    return answer.body;
  };
}

/** The rows of the compute API: one per REST route, each checked complete first. */
export function computeRows(options: ComputeOptions): HttpRoute[] {
  return options.routes.map((route) => {
    checkRoute(route);
    return {
      method: route.httpMethod,
      url: fastifyPath(options.base, route.path),
      handler: serving(route, options),
    };
  });
}

export function computeRoutes(app: FastifyInstance, options: ComputeOptions): void {
  const rows = computeRows(options);
  void app.register((scope, _options, done) => {
    scope.addHook("preValidation", readSystemParameters);
    addRoutes(scope, rows);
    done();
  });
}
