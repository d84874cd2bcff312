// Runs one call of a REST route, whoever makes it: the compute routes (bearer token) and the dashboard's
// JSON API (session) both come through here, so validation, scope and RBAC checks, the abort signal
// and the handler call cannot drift apart between the two. Authentication and writing the answer stay
// with each surface (their credentials and error formats differ); this returns the handler's Reply.
// It never writes to the response: it only watches it close (the abort signal).
import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import { fieldTree, type FieldNode } from "../api/index.js";
import { checkScopes, type AccessCheck, type UserInfo } from "./auth.js";
import type { RestDeps } from "./deps.js";
import type { PathValues, QueryValues, Reply, Route, RouteCall } from "./route.js";
import { checkFields, DEFAULT_OUTPUT, type OutputOptions } from "./system-parameters.js";

export interface Invocation {
  readonly route: Route;
  /** Path values as the surface got them (the router's match, or the dashboard's own). */
  readonly path: PathValues;
  readonly query: QueryValues;
  /** The body before validation. */
  readonly body: unknown;
  /** The authenticated identity the call runs as. */
  readonly user: UserInfo;
  /** The route-level RBAC check: the REST Authorizer, or the dashboard's cached one. */
  readonly authorize: (user: UserInfo, check: AccessCheck) => Promise<void>;
  /** The call's logger, asked for when the handler first logs (most calls never do). */
  readonly log: () => Logger;
  /** The call's standard parameters (its `fields` is checked against the response); defaults if absent. */
  readonly output?: OutputOptions;
  /** Where the answer goes: its closing before the answer is complete aborts the handler. */
  readonly res: ServerResponse;
  readonly deps: RestDeps;
}

const responseTrees = new WeakMap<Route, FieldNode | undefined>();

/** The route's response field tree, computed once per route (it walks the whole schema). */
function responseTree(route: Route): FieldNode | undefined {
  if (!responseTrees.has(route)) responseTrees.set(route, route.response && fieldTree(route.response));
  return responseTrees.get(route);
}

/**
 * A signal that fires when the client goes away before its answer: it ends the handler's waits
 * (operations.wait). After a complete answer there is nothing to abort, and an abort there would cost
 * a DOMException per call.
 *
 * Not Fastify's `request.signal` (5.12, on Node 24), whose semantics differ in three ways, each seen on
 * a live server: it follows the request's 'close', which Node emits as soon as a body has been read, so
 * a call with a body (an insert) is aborted while its client still waits for the answer;
 * made on first use, it never fires when first asked after the client left (here: after authentication);
 * and it fires after a complete answer too. The response's 'close' before its 'finish' is the client
 * gone before the answer, whenever it is asked.
 */
function untilAnswered(res: ServerResponse): AbortSignal {
  const aborted = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) aborted.abort();
  };
  if (res.closed) onClose();
  else res.on("close", onClose);
  return aborted.signal;
}

/**
 * The call as the route's handler sees it. A class with prototype getters, not an object literal with
 * getters: a literal's per-call getter closures gave each call its own hidden class, which V8 keeps in
 * old space until a full collection, and with it everything the call had touched (a quarter of a REST
 * call's allocations were promoted out of the young generation).
 */
class InvokedCall implements RouteCall {
  readonly path: PathValues;
  readonly query: QueryValues;
  readonly body: unknown;
  readonly user: UserInfo;
  readonly deps: RestDeps;
  private abortSignal: AbortSignal | undefined;

  constructor(
    private readonly call: Invocation,
    readonly admit: (project: string) => Promise<void>,
  ) {
    this.path = call.path;
    this.query = call.query;
    this.body = call.body;
    this.user = call.user;
    this.deps = call.deps;
  }

  get log(): Logger {
    return this.call.log();
  }

  /** Made on first use: only waits need it, and an AbortController per call is measurable. */
  get signal(): AbortSignal {
    return (this.abortSignal ??= untilAnswered(this.call.res));
  }
}

/**
 * Validates and authorizes the call, in the order the REST API has always checked (parameters, scopes,
 * `fields`, RBAC, body: the route's handler runs them, calling back here for the middle three), then
 * runs it.
 */
export async function invoke(call: Invocation): Promise<Reply> {
  const { route, user } = call;
  return route.handler(
    new InvokedCall(call, async (project) => {
      checkScopes(user, route.scopes);
      // A bad `fields` selection is refused before the handler can change anything.
      const response = responseTree(route);
      if (response) checkFields(call.output ?? DEFAULT_OUTPUT, response);
      await call.authorize(user, {
        verb: route.access.verb,
        resource: route.access.resource,
        namespace: project,
      });
    }),
  );
}
