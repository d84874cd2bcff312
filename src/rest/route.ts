// The shape of one REST method as plain data. The route table (routes.ts) is a list of these; the
// compute routes are registered from it (compute.ts), and so is the discovery document (resources, methods, parameters,
// request/response schemas and scopes), so the two cannot disagree. Rows are written with
// `defineRoute` (define-route.ts), which types a handler's `call.params` and `call.body` from its row.
import type { z } from "zod";
import type { Logger } from "pino";
import { fieldTree } from "../api/tree.js";
import type { UserInfo } from "./auth.js";
import type { RestDeps } from "./deps.js";

export type ParameterType = "string" | "integer" | "boolean";

/** The value of a parameter of each JSON type once converted from text and checked. */
export type ParameterValue<T extends ParameterType> = T extends "string"
  ? string
  : T extends "integer"
    ? number
    : boolean;

export interface RouteParameter<
  N extends string = string,
  T extends ParameterType = ParameterType,
  R extends boolean = boolean,
> {
  readonly name: N;
  readonly location: "path" | "query";
  /** JSON type of the value; query text is converted to it before `schema` validates it. */
  readonly type: T;
  /**
   * Validates the converted value; carries pattern, bounds and format for the discovery document.
   * Calls are checked by a predicate compiled from it once (compile-check.ts), not by zod per call.
   */
  readonly schema: z.ZodType;
  readonly required: R;
  readonly description: string;
  readonly default?: string;
  /**
   * The pattern the discovery document states, as the compute API writes it (unanchored: the whole
   * value must match). `schema` enforces it; it is stated here because a refinement has no pattern.
   */
  readonly pattern?: string;
}

/** A parameter that always has a value: required, or given a default. */
type Present<Q> = Q extends { readonly required: true }
  ? true
  : Q extends { readonly default: string }
    ? true
    : false;

/**
 * One parameter's entry in `call.params`. A parameter whose name is a union (the zone or region of a
 * method shared by zonal and regional routes) gives a union of entries: each route has one of them.
 */
type Entry<Q> =
  Q extends RouteParameter<infer N, infer T>
    ? N extends string
      ? Present<Q> extends true
        ? { readonly [K in N]: ParameterValue<T> }
        : { readonly [K in N]?: ParameterValue<T> }
      : never
    : never;

/** The type of `call.params` for a route with parameters `P`. */
export type ParamsOf<P extends readonly RouteParameter[]> = P extends readonly [
  infer First,
  ...infer Rest extends readonly RouteParameter[],
]
  ? Entry<First> & ParamsOf<Rest>
  : unknown;

/** An RBAC check every call of a method makes, in the namespace named by `project`. */
export interface RouteAccess {
  readonly verb: "get" | "list" | "create" | "update" | "delete";
  readonly resource: string;
}

/** What a handler gets: its route's checked parameters and body, the caller, and the dependencies. */
export interface CallContext<P, B = undefined> {
  readonly params: P;
  /** The request body after validation against `request.validate` (undefined without a request). */
  readonly body: B;
  readonly user: UserInfo;
  readonly log: Logger;
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
  readonly deps: RestDeps;
}

export interface Reply {
  /** Default 200. */
  readonly status?: number;
  /** JSON body; omitted for an empty answer. */
  readonly body?: unknown;
}

/** Path parameter values as the surface got them (the router's params, or the dashboard's own). */
export type PathValues = Readonly<Record<string, string | string[] | undefined>>;
/** Query parameter values as parsed from the query string: repeated names give arrays. */
export type QueryValues = Readonly<Record<string, unknown>>;

/** A call as the invoker hands it to a route: raw parameters and body, and the checks to make. */
export interface RouteCall {
  readonly path: PathValues;
  readonly query: QueryValues;
  /** The body before validation. */
  readonly body: unknown;
  /**
   * The checks between valid parameters and the body (scopes, `fields`, RBAC in the call's project):
   * a call with bad parameters is refused before them, a bad body only after them.
   */
  readonly admit: (project: string) => Promise<void>;
  readonly user: UserInfo;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly deps: RestDeps;
}

/** A route's handler as the invoker runs it, its types erased: it checks the call, then runs the typed handler. */
export type Handler = (call: RouteCall) => Promise<Reply>;

/** What the discovery document and the compute routes read of a route besides its parameters, body and handler. */
export interface RouteDescription {
  /** Discovery resource name, e.g. `instanceGroupManagerResizeRequests`. */
  readonly resource: string;
  /** Discovery method name, e.g. `insert`. */
  readonly method: string;
  /** `compute.<resource>.<method>`. */
  readonly id: string;
  readonly httpMethod: "GET" | "POST" | "DELETE";
  /** Relative to the service path `compute/v1/`, with `{param}` placeholders. */
  readonly path: string;
  /** Required parameters in the order client libraries take them. */
  readonly parameterOrder: readonly string[];
  readonly response?: z.ZodType;
  /** OAuth scopes of which a scoped token must carry one. */
  readonly scopes: readonly string[];
  readonly description: string;
  readonly access: RouteAccess;
}

/** `schema` is what the discovery document references; `validate` (strict) is what a body must satisfy. */
export interface RouteRequest<B = unknown> {
  readonly schema: z.ZodType;
  readonly validate: z.ZodType<B>;
}

export interface Route extends RouteDescription {
  readonly parameters: readonly RouteParameter[];
  readonly request?: RouteRequest;
  readonly handler: Handler;
}

/**
 * Throws unless a route is complete. The compute routes and the discovery document both call it on every
 * route they build from, so neither can have a method the other lacks: a route without its
 * description data is refused by both, and so is a description without a handler.
 */
export function checkRoute(route: Route): void {
  const fail = (what: string): never => {
    throw new Error(`route ${route.id || `${route.resource}.${route.method}`}: ${what}`);
  };
  if (!route.resource || !route.method) fail("resource and method are required");
  if (route.id !== `compute.${route.resource}.${route.method}`)
    fail(`id must be compute.${route.resource}.${route.method}`);
  if (typeof route.handler !== "function") fail("no handler");
  if (!route.description.trim()) fail("no description");
  if (route.scopes.length === 0) fail("no scopes");
  for (const param of route.parameters)
    if (!param.description.trim()) fail(`parameter ${param.name} has no description`);
  const placeholders = [...route.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1] ?? "");
  const pathParams = route.parameters.filter((p) => p.location === "path");
  for (const name of placeholders)
    if (!pathParams.some((p) => p.name === name && p.required))
      fail(`path parameter ${name} is not declared`);
  for (const param of pathParams)
    if (!placeholders.includes(param.name)) fail(`parameter ${param.name} is not in the path`);
  for (const name of route.parameterOrder)
    if (!route.parameters.some((p) => p.name === name && p.required))
      fail(`parameterOrder names ${name}, which is not a required parameter`);
  for (const [what, schema] of [
    ["request", route.request?.schema],
    ["response", route.response],
  ] as const)
    if (schema !== undefined && fieldTree(schema).schemaId === undefined)
      fail(`the ${what} schema has no schemaId`);
}
