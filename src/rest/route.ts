// The shape of one REST method as plain data. The route table (routes.ts) is a list of these; the
// Express router is built from it, and so is the discovery document (resources, methods, parameters,
// request/response schemas and scopes), so the two cannot disagree.
import type { ServerResponse } from "node:http";
import type { z } from "zod";
import type { Logger } from "pino";
import { fieldTree } from "../api/tree.js";
import type { UserInfo } from "./auth.js";
import type { RestDeps } from "./deps.js";

export type ParameterType = "string" | "integer" | "boolean";

export interface RouteParameter {
  readonly name: string;
  readonly location: "path" | "query";
  /** JSON type of the value; query text is converted to it before `schema` validates it. */
  readonly type: ParameterType;
  /** Validates the converted value; carries pattern, bounds and format for the discovery document. */
  readonly schema: z.ZodType;
  readonly required: boolean;
  readonly description: string;
  readonly default?: string;
  /**
   * The pattern the discovery document states, as the compute API writes it (unanchored: the whole
   * value must match). `schema` enforces it; it is stated here because a refinement has no pattern.
   */
  readonly pattern?: string;
}

/** An RBAC check every call of a method makes, in the namespace named by `project`. */
export interface RouteAccess {
  readonly verb: "get" | "list" | "create" | "update" | "delete";
  readonly resource: string;
}

/** Typed access to a call's validated parameters. */
export interface Params {
  string(name: string): string;
  optionalString(name: string): string | undefined;
  integer(name: string): number;
  boolean(name: string): boolean;
}

export interface CallContext {
  readonly params: Params;
  /** The request body after validation against `request.validate` (undefined without a request). */
  readonly body: unknown;
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

export type Handler = (call: CallContext) => Promise<Reply>;

export interface Route {
  /** Discovery resource name, e.g. `instanceGroupManagerResizeRequests`. */
  readonly resource: string;
  /** Discovery method name, e.g. `insert`. */
  readonly method: string;
  /** `compute.<resource>.<method>`. */
  readonly id: string;
  readonly httpMethod: "GET" | "POST" | "DELETE";
  /** Relative to the service path `compute/v1/`, with `{param}` placeholders. */
  readonly path: string;
  readonly parameters: readonly RouteParameter[];
  /** Required parameters in the order client libraries take them. */
  readonly parameterOrder: readonly string[];
  /**
   * `schema` is what the discovery document references; `validate` (strict) is what a body must satisfy.
   */
  readonly request?: { readonly schema: z.ZodType; readonly validate: z.ZodType };
  readonly response?: z.ZodType;
  /** OAuth scopes of which a scoped token must carry one. */
  readonly scopes: readonly string[];
  readonly description: string;
  readonly access: RouteAccess;
  readonly handler: Handler;
}

/** The route id of calls the REST router has matched, so that metrics need not match them again. */
const matched = new WeakMap<ServerResponse, string>();

/** Called by the REST router once it has matched a call to its route. */
export function markRoute(res: ServerResponse, id: string): void {
  matched.set(res, id);
}

/** The id of the route the REST router matched the call to, if it did. */
export function matchedRoute(res: ServerResponse): string | undefined {
  return matched.get(res);
}

/**
 * Throws unless a route is complete. The router and the discovery document both call it on every
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
