// Google's discovery schemas as JSON Schema, so that response bodies can be checked against the
// official compute v1 document rather than against our own model (which would only prove that we
// agree with ourselves). Google JSON conventions: 64-bit integers travel as decimal strings, 32-bit
// ones as JSON numbers, timestamps as RFC 3339 text, bytes as base64. Objects that list their
// properties are closed: a field the official schema lacks is a wire difference (generated clients
// drop it or, in strict decoders, refuse the body). Nothing is required in discovery schemas, so a
// `fields=` partial response validates like a full one.
//
// Not checked: enum values (Google adds values over time and its clients accept unknown ones),
// string patterns of body fields, minimum/maximum (documentation in discovery).
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { DocumentLike, MethodLike, SchemaLike } from "./discovery-compare.js";

export type JsonSchema = Readonly<Record<string, unknown>>;

const DIGITS = { int64: "^-?[0-9]+$", uint64: "^[0-9]+$" } as const;
const STRING_FORMATS: Readonly<Record<string, string>> = {
  ...DIGITS,
  // RFC 3339 with a zone: what Google's clients parse for google-datetime.
  "google-datetime":
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$",
  "google-duration": "^-?[0-9]+(\\.[0-9]{1,9})?s$",
  // Standard or URL-safe base64, padding optional (Google accepts both alphabets).
  byte: "^[A-Za-z0-9+/_-]*={0,2}$",
};
const INT32: readonly [number, number] = [-(2 ** 31), 2 ** 31 - 1];
const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: INT32,
  uint32: [0, 2 ** 32 - 1],
};

/** One discovery Schema (a definition, property, item or map value) as JSON Schema. */
export function toJsonSchema(schema: SchemaLike): JsonSchema {
  if (schema.$ref !== undefined) return { $ref: `#/definitions/${schema.$ref}` };
  switch (schema.type) {
    case "string": {
      const pattern = schema.format === undefined ? undefined : STRING_FORMATS[schema.format];
      return { type: "string", ...(pattern !== undefined && { pattern }) };
    }
    case "integer": {
      const [minimum, maximum] = INTEGER_RANGES[schema.format ?? ""] ?? INT32;
      return { type: "integer", minimum, maximum };
    }
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "array":
      return { type: "array", ...(schema.items && { items: toJsonSchema(schema.items) }) };
    case "object":
      if (schema.properties)
        return {
          type: "object",
          properties: Object.fromEntries(
            Object.entries(schema.properties).map(([name, property]) => [name, toJsonSchema(property)]),
          ),
          additionalProperties: false,
        };
      if (schema.additionalProperties)
        return { type: "object", additionalProperties: toJsonSchema(schema.additionalProperties) };
      // e.g. google.protobuf.Any: an object whose fields the document does not list.
      return { type: "object" };
    case "any":
    case undefined:
      return {};
    default:
      throw new Error(`discovery type ${schema.type} has no JSON Schema equivalent`);
  }
}

/** All schemas of a discovery document as one JSON Schema document of `definitions`. */
export function definitionsOf(document: DocumentLike): JsonSchema {
  return {
    definitions: Object.fromEntries(
      Object.entries(document.schemas ?? {}).map(([id, schema]) => [id, toJsonSchema(schema)]),
    ),
  };
}

/** Google's error body (v1 error format). `error` may carry more (status, details): left open. */
export const ERROR_ENVELOPE: JsonSchema = {
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "errors"],
      properties: {
        code: { type: "integer", minimum: 100, maximum: 599 },
        message: { type: "string" },
        errors: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            required: ["domain", "reason", "message"],
            properties: {
              domain: { type: "string" },
              reason: { type: "string" },
              message: { type: "string" },
              location: { type: "string" },
              locationType: { type: "string" },
            },
          },
        },
      },
    },
  },
};

export interface OfficialMethod {
  readonly id: string;
  readonly httpMethod: string;
  readonly response?: string;
  /** Matches a URL path (after the service path) for this method's flatPath template. */
  readonly pattern: RegExp;
  /** Literal characters of the template: with several matches, the most specific one wins. */
  readonly literal: number;
}

function methodsOf(document: DocumentLike): OfficialMethod[] {
  const out: OfficialMethod[] = [];
  const visit = (resources: DocumentLike["resources"]) => {
    for (const resource of Object.values(resources ?? {})) {
      for (const method of Object.values(resource.methods ?? {})) out.push(template(method));
      visit((resource as { resources?: DocumentLike["resources"] }).resources);
    }
  };
  visit(document.resources);
  return out;
}

function template(method: MethodLike): OfficialMethod {
  const flat = method.flatPath ?? method.path ?? "";
  const parts = flat.split(/(\{[^}]+\})/);
  const source = parts
    .map((part) => (part.startsWith("{") ? "([^/]+)" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
    .join("");
  return {
    id: method.id ?? flat,
    httpMethod: method.httpMethod ?? "GET",
    ...(method.response?.$ref !== undefined && { response: method.response.$ref }),
    pattern: new RegExp(`^${source}$`),
    literal: parts.filter((part) => !part.startsWith("{")).join("").length,
  };
}

export interface Violation {
  readonly method: string;
  readonly errors: string;
}

/** Validates response bodies against the official document's methods and schemas. */
export class OfficialValidator {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly methods: OfficialMethod[];
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly servicePath: string;

  constructor(document: DocumentLike & { servicePath?: string }) {
    this.methods = methodsOf(document);
    this.servicePath = `/${document.servicePath ?? ""}`;
    this.ajv.addSchema({ $id: "official", ...definitionsOf(document) });
    this.ajv.addSchema({ $id: "error", ...ERROR_ENVELOPE });
  }

  /** Whether a URL path is under the API's service path (`/compute/v1/`). */
  covers(pathname: string): boolean {
    return pathname.startsWith(this.servicePath);
  }

  /** The official method for an HTTP method and a URL path, if any. */
  method(httpMethod: string, pathname: string): OfficialMethod | undefined {
    if (!this.covers(pathname)) return undefined;
    const rest = pathname.slice(this.servicePath.length);
    return this.methods
      .filter((m) => m.httpMethod === httpMethod.toUpperCase() && m.pattern.test(rest))
      .sort((a, b) => b.literal - a.literal)[0];
  }

  /** Problems with `body` as the response of `httpMethod pathname` with `status`; empty when fine. */
  check(httpMethod: string, pathname: string, status: number, body: unknown): Violation | undefined {
    if (status < 200 || status >= 300) return this.run("error", "error", body);
    const method = this.method(httpMethod, pathname);
    if (!method) return { method: "(none)", errors: `no official method answers ${httpMethod} ${pathname}` };
    // A method without a response schema (zoneOperations.delete) answers an empty body.
    if (method.response === undefined) return undefined;
    return this.run(method.id, `official#/definitions/${method.response}`, body);
  }

  /** A named official schema's validator (for unit tests and ad-hoc checks). */
  validator(ref: string): ValidateFunction {
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.getSchema(ref);
      if (!validate) throw new Error(`no schema ${ref}`);
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  private run(method: string, ref: string, body: unknown): Violation | undefined {
    const validate = this.validator(ref);
    if (validate(body)) return undefined;
    return { method, errors: formatErrors(validate.errors ?? []) };
  }
}

function formatErrors(errors: readonly ErrorObject[]): string {
  return errors
    .map((e) => {
      const extra =
        e.keyword === "additionalProperties"
          ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
          : "";
      return `${e.instancePath || "/"} ${e.message ?? e.keyword}${extra}`;
    })
    .join("; ");
}
