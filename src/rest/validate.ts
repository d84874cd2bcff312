// Validation of a call's input against its route: path and query parameters (converted from text to
// their declared types, then checked by predicates compiled once from their schemas) and the request
// body (strict schemas, so unknown fields are errors too). Every failure is an InvalidError located at
// the parameter or field, worded by zod from the parameter's schema.
import type { z } from "zod";
import { compileCheck } from "./compile-check.js";
import { InvalidError, validationError } from "./errors.js";
import type { ParameterValue, ParamsOf, PathValues, QueryValues, RouteParameter } from "./route.js";
import { SYSTEM_PARAMETER_NAMES } from "./system-parameters.js";

function invalidParameter(name: string, message: string): InvalidError {
  return new InvalidError(`Invalid value for field '${name}': ${message}`, [
    { message: `Invalid value for field '${name}': ${message}`, location: name, locationType: "parameter" },
  ]);
}

/** Converts query text to the parameter's type; undefined when it cannot be. */
function convert(param: RouteParameter, text: string): ParameterValue<RouteParameter["type"]> | undefined {
  switch (param.type) {
    case "string":
      return text;
    case "integer":
      return /^-?[0-9]+$/.test(text) ? Number(text) : undefined;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : undefined;
  }
}

/** A call's checked parameters, and the project (namespace) its RBAC checks are made in. */
export interface ParsedParameters<P> {
  readonly params: P;
  readonly project: string;
}

export type ParameterParser<P> = (path: PathValues, query: QueryValues) => ParsedParameters<P>;

/**
 * The parser of a route's parameters, compiled once: it refuses query parameters the route does not
 * declare (standard parameters aside), converts and checks every declared one, and applies defaults.
 */
export function parameterParser<const P extends readonly RouteParameter[]>(
  parameters: P,
): ParameterParser<ParamsOf<P>> {
  const compiled = parameters.map((param) => ({ param, accepts: compileCheck(param.schema) }));
  const declared = new Set(parameters.filter((p) => p.location === "query").map((p) => p.name));
  return (path, query) => {
    for (const name of Object.keys(query))
      if (!declared.has(name) && !SYSTEM_PARAMETER_NAMES.has(name))
        throw invalidParameter(name, "unknown parameter");
    const values: Record<string, ParameterValue<RouteParameter["type"]>> = {};
    for (const { param, accepts } of compiled) {
      const raw = param.location === "path" ? path[param.name] : query[param.name];
      const text = raw ?? param.default;
      if (text === undefined) {
        if (param.required) throw invalidParameter(param.name, "required");
        continue;
      }
      if (typeof text !== "string") throw invalidParameter(param.name, "given more than once");
      const value = convert(param, text);
      if (value === undefined) throw invalidParameter(param.name, `expected ${param.type}`);
      if (!accepts(value)) {
        // The compiled predicate decides; zod, the rule's one definition, words the refusal.
        const parsed = param.schema.safeParse(value);
        throw validationError(parsed.error?.issues ?? [], "parameter", param.name);
      }
      values[param.name] = value;
    }
    const project = values.project;
    if (typeof project !== "string") throw new Error("a route without a project parameter");
    // Every declared parameter was converted to its type and checked above, required ones are present
    // and defaults applied: the shape ParamsOf<P> describes, which TypeScript cannot follow a loop to.
    return { params: values as ParamsOf<P>, project };
  };
}

/** Validates a body; routes give strict schemas, so unknown fields are errors too. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(parsed.error.issues, "body");
  return parsed.data;
}
