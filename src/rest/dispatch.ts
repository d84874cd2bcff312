// The compute REST API on plain node:http, ahead of Express: every request under the service base is
// served here from the route table, the rest goes on to `next`. Per call, in the order the API has
// always answered: the standard parameters (`fields`, `prettyPrint`, `alt`, `callback`, …), the JSON
// body (body-parser's own parser: the same size limit and errors as before), the route (matched as
// Express matched it, path-match.ts), authentication (the bearer token), then the one invoker
// (parameters, scopes, RBAC, body, handler) and the answer; any failure goes through `answerError`.
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import express from "express";
import type { Logger } from "pino";
import type { StartCall } from "./access-log.js";
import { answerError } from "./answer-error.js";
import type { RestDeps } from "./deps.js";
import { NotFoundError } from "./errors.js";
import { invoke } from "./invoke.js";
import { belowBase, routeFinder } from "./path-match.js";
import { checkRoute, markRoute, type QueryValues, type Route } from "./route.js";
import { queryToken, readSystemParameters, sendJson } from "./system-parameters.js";

/** The scheme and authority of an absolute-form request target. */
const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** A node:http handler that serves what it knows and hands everything else to `next`. */
export type Dispatcher = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export interface DispatcherOptions {
  readonly routes: readonly Route[];
  readonly deps: RestDeps;
  readonly log: Logger;
  readonly maxBodyBytes: number;
  /** The service path, e.g. `/compute/v1`. */
  readonly base: string;
  /** Starts the call's access-log line. */
  readonly startCall: StartCall;
}

/**
 * The call's bearer credentials: the Authorization header, else Google's `access_token` or
 * `oauth_token` query parameter (as the header would carry it). Neither reaches a log: access logs
 * record the path without the query.
 */
function credentials(req: IncomingMessage, query: QueryValues): string | undefined {
  if (req.headers.authorization !== undefined) return req.headers.authorization;
  const token = queryToken(query);
  return token === undefined ? undefined : `Bearer ${token}`;
}

export function restDispatcher(options: DispatcherOptions): Dispatcher {
  const { deps, log, base, startCall } = options;
  for (const route of options.routes) checkRoute(route);
  const find = routeFinder(options.routes);
  const jsonBody = express.json({ limit: options.maxBodyBytes });
  /** body-parser sets `req.body` (left undefined without a JSON body) or fails with a typed error. */
  const readBody = (req: IncomingMessage, res: ServerResponse): Promise<unknown> | undefined =>
    // body-parser's own test for "no body" (type-is's hasBody), made here so that the reads, most of
    // the calls, skip a promise and a middleware call for a body that is not there.
    req.headers["transfer-encoding"] === undefined && req.headers["content-length"] === undefined
      ? undefined
      : new Promise((resolve, reject) => {
          jsonBody(req, res, (err?: unknown) => {
            if (err === undefined || err === null)
              resolve((req as IncomingMessage & { body?: unknown }).body);
            // body-parser fails with http-errors (Errors carrying `type`), which `toGoogleError` maps.
            else reject(err instanceof Error ? err : new Error("The request body could not be read."));
          });
        });

  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    call: ReturnType<StartCall>,
    url: string,
    below: string,
  ): Promise<void> => {
    const method = req.method ?? "GET";
    const q = url.indexOf("?");
    // Parsed once, with the parser Express's default ("simple") used: node:querystring, so repeated
    // names give arrays exactly as handlers and the standard parameters have always seen them.
    const query: QueryValues = parseQuery(q < 0 ? "" : url.slice(q + 1));
    readSystemParameters(res, query);
    const reading = readBody(req, res);
    const body: unknown = reading === undefined ? undefined : await reading;
    const found = find(method, below);
    if (!found)
      throw new NotFoundError(`The requested URL ${method} ${url.split("?")[0] ?? ""} was not found.`);
    const { route } = found;
    markRoute(res, route.id);
    const user = await deps.authenticator.authenticate(credentials(req, query));
    call.user = user.username;
    // Made when the handler first logs: most calls never do. One child per call, not a child of a child.
    let logger: Logger | undefined;
    const reply = await invoke({
      route,
      path: found.path,
      query,
      body,
      user,
      authorize: (u, check) => deps.authorizer.authorize(u, check),
      log: () => (logger ??= log.child({ reqId: call.reqId, method: route.id, user: user.username })),
      res,
      deps,
    });
    if (reply.body !== undefined) sendJson(res, reply.status ?? 200, reply.body);
    else {
      res.statusCode = reply.status ?? 204;
      res.end();
    }
  };

  return (req, res, next) => {
    // A fragment is not part of the path or the query (parseurl left it out too).
    const url = (req.url ?? "/").split("#")[0] ?? "/";
    const q = url.indexOf("?");
    // An absolute-form target (`GET http://host/compute/v1/…`, as clients send to a proxy) is served by
    // its path, as Express's URL parser read it.
    const path = (q < 0 ? url : url.slice(0, q)).replace(ORIGIN, "") || "/";
    const below = belowBase(base, path);
    if (below === undefined) {
      next();
      return;
    }
    const call = startCall(req.method ?? "GET", res, () => path);
    serve(req, res, call, url, below).catch((err: unknown) => {
      answerError(res, err, call.log);
    });
  };
}
