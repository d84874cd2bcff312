// Builds the Express router from the route table: per call, authenticate the bearer token, validate
// path and query parameters, check OAuth scopes and RBAC, validate the body (strictly: unknown fields
// are errors), run the handler, and answer; any error goes through `toGoogleError`.
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { z } from "zod";
import { fieldTree } from "../api/index.js";
import { checkScopes } from "./auth.js";
import type { RestDeps } from "./deps.js";
import { InvalidError, NotFoundError, validationError } from "./errors.js";
import { checkRoute, type Params, type Route, type RouteParameter } from "./route.js";
import {
  checkFields,
  invalidParameter as invalidStandardParameter,
  sendJson,
  SYSTEM_PARAMETER_NAMES,
  TOKEN_PARAMETERS,
} from "./system-parameters.js";

/** `projects/{project}/…` → `/projects/:project/…`. */
export function expressPath(template: string): string {
  return "/" + template.replace(/\{([A-Za-z]+)\}/g, ":$1");
}

function invalidParameter(name: string, message: string): InvalidError {
  return new InvalidError(`Invalid value for field '${name}': ${message}`, [
    { message: `Invalid value for field '${name}': ${message}`, location: name, locationType: "parameter" },
  ]);
}

/** Converts query text to the parameter's type; undefined when it cannot be. */
function convert(param: RouteParameter, text: string): unknown {
  switch (param.type) {
    case "string":
      return text;
    case "integer":
      return /^-?[0-9]+$/.test(text) ? Number(text) : undefined;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : undefined;
  }
}

/** Validates the call's parameters against the route's declarations. */
export function parseParameters(
  route: Route,
  pathParams: Readonly<Record<string, string | string[] | undefined>>,
  query: Readonly<Record<string, unknown>>,
): Params {
  for (const name of Object.keys(query)) {
    if (SYSTEM_PARAMETER_NAMES.has(name)) continue;
    if (!route.parameters.some((p) => p.location === "query" && p.name === name))
      throw invalidParameter(name, "unknown parameter");
  }
  const values = new Map<string, unknown>();
  for (const param of route.parameters) {
    const raw = param.location === "path" ? pathParams[param.name] : query[param.name];
    const text = raw ?? param.default;
    if (text === undefined) {
      if (param.required) throw invalidParameter(param.name, "required");
      continue;
    }
    if (typeof text !== "string") throw invalidParameter(param.name, "given more than once");
    const value = convert(param, text);
    if (value === undefined) throw invalidParameter(param.name, `expected ${param.type}`);
    const parsed = param.schema.safeParse(value);
    if (!parsed.success) throw validationError(parsed.error.issues, "parameter", param.name);
    values.set(param.name, parsed.data);
  }
  const typed = <T>(name: string, check: (v: unknown) => v is T, what: string): T => {
    const v = values.get(name);
    if (!check(v)) throw new Error(`route ${route.id}: parameter ${name} is not a ${what}`);
    return v;
  };
  const isString = (v: unknown): v is string => typeof v === "string";
  return {
    string: (name) => typed(name, isString, "string"),
    optionalString: (name) => (values.has(name) ? typed(name, isString, "string") : undefined),
    integer: (name) => typed(name, (v): v is number => typeof v === "number", "number"),
    boolean: (name) => values.get(name) === true,
  };
}

/** Validates a body; routes give strict schemas, so unknown fields are errors too. */
export function parseBody(schema: z.ZodType, body: unknown): unknown {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(parsed.error.issues, "body");
  return parsed.data;
}

/**
 * The call's bearer credentials: the Authorization header, else Google's `access_token` or
 * `oauth_token` query parameter (as the header would carry it). Neither reaches a log: access logs
 * record the path without the query.
 */
function credentials(req: Request): string | undefined {
  if (req.headers.authorization !== undefined) return req.headers.authorization;
  for (const name of TOKEN_PARAMETERS) {
    const value: unknown = req.query[name];
    if (value === undefined || value === "") continue;
    if (typeof value !== "string") throw invalidStandardParameter(name, "given more than once");
    return `Bearer ${value}`;
  }
  return undefined;
}

function callLog(res: Response, fallback: Logger): Logger {
  const log: unknown = res.locals.log;
  return (log as Logger | undefined) ?? fallback;
}

export function restRouter(routes: readonly Route[], deps: RestDeps, log: Logger): express.Router {
  const router = express.Router();
  for (const route of routes) {
    checkRoute(route);
    const response = route.response && fieldTree(route.response);
    const method = route.httpMethod === "GET" ? "get" : route.httpMethod === "POST" ? "post" : "delete";
    router[method](expressPath(route.path), async (req: Request, res: Response) => {
      const user = await deps.authenticator.authenticate(credentials(req));
      res.locals.user = user.username;
      const params = parseParameters(route, req.params, req.query);
      checkScopes(user, route.scopes);
      // A bad `fields` selection is refused before the handler can change anything.
      if (response) checkFields(res, response);
      await deps.authorizer.authorize(user, {
        verb: route.access.verb,
        resource: route.access.resource,
        namespace: params.string("project"),
      });
      const body: unknown = route.request ? parseBody(route.request.validate, req.body) : undefined;
      // Ends the handler's waits (operations.wait) when the client goes away; after a complete
      // response there is nothing to abort (and an abort costs a DOMException per call).
      const aborted = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) aborted.abort();
      });
      const reply = await route.handler({
        params,
        body,
        user,
        log: callLog(res, log).child({ method: route.id, user: user.username }),
        signal: aborted.signal,
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
