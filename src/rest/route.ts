// The shape of one REST method as plain data. The route table (routes.ts) is a list of these; the
// Express router is built from it, and so is the discovery document (resources, methods, parameters,
// request/response schemas and scopes), so the two cannot disagree.
import type { z } from "zod";
import type { Logger } from "pino";
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
