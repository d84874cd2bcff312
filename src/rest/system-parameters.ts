// The standard parameters of Google APIs, which apply to every method. `COMMON_PARAMETERS` is both what
// the discovery document advertises and what this module honours, so the two cannot drift apart:
// `alt` (json only), `prettyPrint` (indented or compact JSON), `fields` (partial responses);
// `access_token`/`oauth_token` are bearer tokens (read with the compute calls, never logged); `callback`
// (JSONP) is refused with a 400; `quotaUser`, `userIp`, `key`, `$.xgafv`, `uploadType` and
// `upload_protocol` are accepted and change nothing here. Every JSON answer of the API is written by
// `renderJson`, which applies the caller's choices (json-answer.ts makes it the reply's serializer).
import type { FieldNode } from "../api/index.js";
import { RestError } from "./errors.js";
import { applyFieldMask, checkFieldMask, parseFieldMask, type FieldMask } from "./field-mask.js";

export interface CommonParameter {
  readonly name: string;
  readonly type: "string" | "boolean";
  readonly description: string;
  readonly default?: string;
  readonly enum?: readonly string[];
  readonly enumDescriptions?: readonly string[];
}

export const COMMON_PARAMETERS: readonly CommonParameter[] = [
  {
    name: "alt",
    type: "string",
    description: "Data format for the response.",
    default: "json",
    enum: ["json"],
    enumDescriptions: ["Responses with Content-Type of application/json"],
  },
  {
    name: "fields",
    type: "string",
    description:
      "Selector specifying which fields to include in a partial response: comma-separated field paths, a/b for a sub-field, a(b,c) for several sub-fields, items(name,state) for list elements.",
  },
  {
    name: "prettyPrint",
    type: "boolean",
    description: "Returns response with indentations and line breaks.",
    default: "true",
  },
  {
    name: "quotaUser",
    type: "string",
    description:
      "An arbitrary string identifying a user for quota purposes. Accepted and ignored: this server has no per-user quotas.",
  },
  {
    name: "access_token",
    type: "string",
    description:
      "OAuth access token: the caller's Kubernetes bearer token, when it is not sent in the Authorization header (which wins). Never logged.",
  },
  {
    name: "oauth_token",
    type: "string",
    description: "OAuth 2.0 token for the current user: the same as access_token. Never logged.",
  },
  {
    name: "callback",
    type: "string",
    description: "JSONP. Not supported: a call with callback is refused with 400.",
  },
  {
    name: "key",
    type: "string",
    description: "API key. Accepted and ignored: every call is authenticated with a bearer token.",
  },
  {
    name: "userIp",
    type: "string",
    description: "Legacy name for quotaUser. Accepted and ignored.",
  },
  {
    name: "$.xgafv",
    type: "string",
    description: "Error format. Accepted and ignored: errors always use the v1 error format.",
    enum: ["1", "2"],
    enumDescriptions: ["v1 error format", "v2 error format"],
  },
  {
    name: "uploadType",
    type: "string",
    description: "Legacy upload protocol for media. Accepted and ignored: no method here takes media.",
  },
  {
    name: "upload_protocol",
    type: "string",
    description: "Upload protocol for media. Accepted and ignored: no method here takes media.",
  },
];

/** Query parameters a method does not declare but must accept. */
export const SYSTEM_PARAMETER_NAMES: ReadonlySet<string> = new Set(COMMON_PARAMETERS.map((p) => p.name));

/** The query parameters that carry a bearer token, in the order they are looked at. */
const TOKEN_PARAMETERS = ["access_token", "oauth_token"] as const;

export interface OutputOptions {
  readonly pretty: boolean;
  readonly mask?: FieldMask;
}

/** The answer's shape when the call names none of `alt`, `prettyPrint` and `fields`. */
export const DEFAULT_OUTPUT: OutputOptions = { pretty: true };
const COMPACT_OUTPUT: OutputOptions = { pretty: false };

/** A bad value of a standard parameter: 400 `invalidParameter`, located at the parameter. */
export function invalidParameter(name: string, message: string): RestError {
  const text = `Invalid value for parameter '${name}': ${message}`;
  return new RestError(400, "invalidParameter", text, [
    { message: text, location: name, locationType: "parameter" },
  ]);
}

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || typeof value === "string") return value;
  throw invalidParameter(name, "given more than once");
}

/**
 * The bearer token of `access_token`, else `oauth_token` (empty counts as absent). A token parameter
 * given twice is refused like any other standard parameter, rather than guessed.
 */
export function queryToken(query: Readonly<Record<string, unknown>>): string | undefined {
  for (const name of TOKEN_PARAMETERS) {
    const value = single(query, name);
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}

/** Reads `alt`, `prettyPrint` and `fields` from a query (`quotaUser` has no effect). */
export function parseOutputOptions(query: Readonly<Record<string, unknown>>): OutputOptions {
  const alt = single(query, "alt");
  if (alt !== undefined && alt !== "json") throw invalidParameter("alt", "only json is supported");
  const prettyPrint = single(query, "prettyPrint");
  if (prettyPrint !== undefined && prettyPrint !== "true" && prettyPrint !== "false")
    throw invalidParameter("prettyPrint", "expected true or false");
  if (single(query, "callback") !== undefined)
    throw invalidParameter("callback", "JSONP is not supported; call without callback");
  const xgafv = single(query, "$.xgafv");
  if (xgafv !== undefined && xgafv !== "1" && xgafv !== "2")
    throw invalidParameter("$.xgafv", "expected 1 or 2");
  const mask = parseFieldMask(single(query, "fields"));
  if (mask) return { pretty: prettyPrint !== "false", mask };
  return prettyPrint === "false" ? COMPACT_OUTPUT : DEFAULT_OUTPUT;
}

/** Rejects a `fields` selection the response schema cannot satisfy. */
export function checkFields(output: OutputOptions, response: FieldNode): void {
  if (output.mask) checkFieldMask(output.mask, response);
}

/** The JSON text of a body as the caller asked for it: masked when `masked`, pretty or compact. */
export function renderJson(output: OutputOptions, body: unknown, masked = true): string {
  const shaped = masked && output.mask ? applyFieldMask(body, output.mask) : body;
  return output.pretty ? `${JSON.stringify(shaped, null, 2)}\n` : JSON.stringify(shaped);
}
