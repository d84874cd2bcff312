// Validation of a call's input against its route: path and query parameters (converted from text to
// their declared types, then checked by their schemas) and the request body (strict schemas, so
// unknown fields are errors too). Every failure is an InvalidError located at the parameter or field.
import type { z } from "zod";
import { InvalidError, validationError } from "./errors.js";
import type { Params, Route, RouteParameter } from "./route.js";
import { SYSTEM_PARAMETER_NAMES } from "./system-parameters.js";

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
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(parsed.error.issues, "body");
  return parsed.data;
}
