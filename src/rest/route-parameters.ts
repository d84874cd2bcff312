// The parameters of the REST methods, as the compute API declares them: path parameters with the
// compute API's patterns, requestId, the list parameters, and the OAuth scopes. The route tables
// (routes.ts, future-reservation-routes.ts) build their rows from these, so every method shares one
// definition of each.
import { z } from "zod";
import type { LocationScope } from "../api/index.js";
import { RFC1035_LABEL, RFC1035_MESSAGE } from "../api/primitives.js";
import type { ParameterType, RouteParameter } from "./route.js";

const SCOPE = "https://www.googleapis.com/auth/";
export const SCOPES = {
  compute: `${SCOPE}compute`,
  cloudPlatform: `${SCOPE}cloud-platform`,
  computeReadonly: `${SCOPE}compute.readonly`,
} as const;
/** What each scope grants, for the discovery document's `auth.oauth2.scopes`. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [SCOPES.cloudPlatform]:
    "See, edit, configure, and delete your Google Cloud data and see the email address for your Google Account.",
  [SCOPES.compute]: "View and manage your Google Compute Engine resources",
  [SCOPES.computeReadonly]: "View your Google Compute Engine resources",
};
export const WRITE_SCOPES = [SCOPES.cloudPlatform, SCOPES.compute];
export const READ_SCOPES = [SCOPES.cloudPlatform, SCOPES.compute, SCOPES.computeReadonly];

/** A string that must fully match `pattern`, which the discovery document states as written. */
export function matching(pattern: string, message: string, maxLength: number): z.ZodString {
  const full = new RegExp(`^(?:${pattern})$`);
  return z
    .string()
    .min(1)
    .max(maxLength)
    .refine((v) => full.test(v), { message });
}

// The compute API's own patterns where it states one; names of locations and operations.
export const LOCATION_PATTERN = "[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?";
export const OPERATION_PATTERN = "[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?|[1-9][0-9]{0,19}";
/** The compute API's project ids: an optional `domain:` prefix, then a numeric id or a label. */
export const PROJECT_PATTERN =
  "(?:(?:[-a-z0-9]{1,63}\\.)*(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?):)?(?:[0-9]{1,19}|(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?))";
/** Projects are Kubernetes namespaces (DNS-1123 labels): of the compute API's forms, those without a domain. */
export const NAMESPACE = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
export const NAME_OR_ID = `${RFC1035_LABEL.slice(1, -1)}|[1-9][0-9]{0,19}`;
export const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

export const path = <const N extends string>(
  name: N,
  schema: z.ZodType,
  description: string,
  pattern?: string,
): RouteParameter<N, "string", true> => ({
  name,
  location: "path",
  type: "string",
  schema,
  required: true,
  description,
  ...(pattern !== undefined && { pattern }),
});

export const project = path(
  "project",
  matching(PROJECT_PATTERN, "must be a project id", 319).refine((v) => NAMESPACE.test(v), {
    message: "must be a Kubernetes namespace name (domain-scoped project ids are not supported)",
  }),
  "Project ID: the Kubernetes namespace of the group. Domain-scoped project ids (example.com:project) are refused with 400.",
  PROJECT_PATTERN,
);
export const SCOPE_PARAMETER = { zones: "zone", regions: "region" } as const;
/** zone or region, as the resize-request methods take it (the compute API states no pattern there). */
export const locationOfGroup = (scope: LocationScope) =>
  path(
    SCOPE_PARAMETER[scope],
    matching(RFC1035_LABEL.slice(1, -1), RFC1035_MESSAGE, 63),
    `The ${SCOPE_PARAMETER[scope]} of the group (its spec.${SCOPE_PARAMETER[scope]}).`,
  );
/** zone or region, as the operation methods take it. */
export const locationOfOperation = (scope: LocationScope) =>
  path(
    SCOPE_PARAMETER[scope],
    matching(LOCATION_PATTERN, RFC1035_MESSAGE, 63),
    `The ${SCOPE_PARAMETER[scope]} of the operation.`,
    LOCATION_PATTERN,
  );
export const group = path(
  "instanceGroupManager",
  matching(NAME_OR_ID, "must be an RFC 1035 name or a numeric id", 63),
  "Name or numeric id of the managed instance group.",
);
export const resizeRequest = path(
  "resizeRequest",
  matching(NAME_OR_ID, "must be an RFC 1035 name or a numeric id", 63),
  "Name or numeric id of the resize request.",
);
export const operation = path(
  "operation",
  matching(OPERATION_PATTERN, "must be an operation name or a numeric id", 63),
  "Name or numeric id of the operation.",
  OPERATION_PATTERN,
);

export const requestId: RouteParameter<"requestId", "string", false> = {
  name: "requestId",
  location: "query",
  type: "string",
  schema: z
    .string()
    .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
      message: "must be a UUID",
    })
    .refine((v) => v !== ZERO_UUID, { message: "the zero UUID is not supported" }),
  required: false,
  description:
    "An optional request ID (a UUID other than the zero UUID) that makes the call idempotent: a repeated call with the same ID within the operation retention period returns the first call's Operation and changes nothing.",
};

export const query = <const N extends string, const T extends ParameterType>(
  name: N,
  type: T,
  schema: z.ZodType,
  description: string,
): RouteParameter<N, T, false> => ({ name, location: "query", type, schema, required: false, description });

/** A query parameter that has a value when the call gives none: `call.params` always has it. */
export const withDefault = <const N extends string, const T extends ParameterType>(
  parameter: RouteParameter<N, T, false>,
  value: string,
): RouteParameter<N, T, false> & { readonly default: string } => ({ ...parameter, default: value });

export const listParameters = [
  query(
    "filter",
    "string",
    z.string().max(4096),
    "A filter expression: `field = value` or `field != value` comparisons joined by AND (or written as parenthesised terms side by side). Values may be quoted with \" or '. Other operators are rejected with 400.",
  ),
  withDefault(
    query(
      "maxResults",
      "integer",
      z.uint32().max(500),
      "Maximum number of results per page (0 to 500; 0 means the default, 500).",
    ),
    "500",
  ),
  query(
    "orderBy",
    "string",
    z.string().max(256),
    "Sort order: one field, optionally followed by asc or desc (default: name asc).",
  ),
  query("pageToken", "string", z.string().max(1024), "The nextPageToken of the previous page."),
] as const;

export const names = (params: readonly RouteParameter[]) =>
  params.filter((p) => p.required).map((p) => p.name);
