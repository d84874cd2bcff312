// The REST API as one table: every method of `instanceGroupManagerResizeRequests` and
// `zoneOperations` with its HTTP method, path, parameters, schemas, scopes, RBAC check and handler.
// The Express router is built from it (router.ts) and so is the discovery document.
import { z } from "zod";
import {
  InstanceGroupManagerResizeRequest,
  InstanceGroupManagerResizeRequestList,
  Operation,
  OperationList,
  ResizeRequestInsert,
} from "../api/index.js";
import { RESIZE_REQUEST } from "../api/names.js";
import { Rfc1035Label } from "../api/primitives.js";
import * as requests from "./resize-requests.js";
import type { Route, RouteParameter } from "./route.js";
import * as operations from "./zone-operations.js";

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
const WRITE_SCOPES = [SCOPES.cloudPlatform, SCOPES.compute];
const READ_SCOPES = [SCOPES.cloudPlatform, SCOPES.compute, SCOPES.computeReadonly];

const NAME_OR_ID = "^([a-z]([-a-z0-9]*[a-z0-9])?|[1-9][0-9]{0,19})$";
const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

const path = (name: string, schema: z.ZodType, description: string): RouteParameter => ({
  name,
  location: "path",
  type: "string",
  schema,
  required: true,
  description,
});

const project = path(
  "project",
  z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
  "Project ID: the Kubernetes namespace of the group.",
);
const zone = path("zone", Rfc1035Label, "The zone of the group (its spec.zone).");
const group = path(
  "instanceGroupManager",
  z.string().max(63).regex(new RegExp(NAME_OR_ID)),
  "Name or numeric id of the managed instance group.",
);
const resizeRequest = path(
  "resizeRequest",
  z.string().max(63).regex(new RegExp(NAME_OR_ID)),
  "Name or numeric id of the resize request.",
);
const operation = path(
  "operation",
  z
    .string()
    .min(1)
    .max(128)
    .regex(/^[a-z]([-a-z0-9]*[a-z0-9])?$/),
  "Name of the operation.",
);

const requestId: RouteParameter = {
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

const query = (
  name: string,
  type: RouteParameter["type"],
  schema: z.ZodType,
  description: string,
  def?: string,
): RouteParameter => ({
  name,
  location: "query",
  type,
  schema,
  required: false,
  description,
  ...(def !== undefined && { default: def }),
});

const listParameters: readonly RouteParameter[] = [
  query(
    "filter",
    "string",
    z.string().max(4096),
    "A filter expression: `field = value` or `field != value` comparisons joined by AND (or written as parenthesised terms side by side). Values may be quoted with \" or '. Other operators are rejected with 400.",
  ),
  query(
    "maxResults",
    "integer",
    z.int32().min(0).max(500),
    "Maximum number of results per page (0 to 500; 0 means the default, 500).",
    "500",
  ),
  query(
    "orderBy",
    "string",
    z.string().max(256),
    "Sort order: one field, optionally followed by asc or desc (default: name asc).",
  ),
  query("pageToken", "string", z.string().max(1024), "The nextPageToken of the previous page."),
  query(
    "returnPartialSuccess",
    "boolean",
    z.boolean(),
    "Accepted for compatibility; a listing here never fails partially.",
  ),
];

const RR = "instanceGroupManagerResizeRequests";
const OPS = "zoneOperations";
const RR_PATH = "projects/{project}/zones/{zone}/instanceGroupManagers/{instanceGroupManager}/resizeRequests";
const OPS_PATH = "projects/{project}/zones/{zone}/operations";
const ONE_RR = [project, zone, group, resizeRequest];
const ONE_OP = [project, zone, operation];
const names = (params: readonly RouteParameter[]) => params.filter((p) => p.required).map((p) => p.name);

export const ROUTES: readonly Route[] = [
  {
    resource: RR,
    method: "insert",
    id: `compute.${RR}.insert`,
    httpMethod: "POST",
    path: RR_PATH,
    parameters: [project, zone, group, requestId],
    parameterOrder: ["project", "zone", "instanceGroupManager"],
    // Strict: a field the insert body does not define is an error, not silently dropped.
    request: { schema: InstanceGroupManagerResizeRequest, validate: ResizeRequestInsert.strict() },
    response: Operation,
    scopes: WRITE_SCOPES,
    description:
      "Creates a resize request that starts provisioning instances as soon as the group has room, or queues it. Requires permission to create resizerequests and to use the named instancegroupmanager.",
    access: { verb: "create", resource: RESIZE_REQUEST.plural },
    handler: requests.insert,
  },
  {
    resource: RR,
    method: "list",
    id: `compute.${RR}.list`,
    httpMethod: "GET",
    path: RR_PATH,
    parameters: [project, zone, group, ...listParameters],
    parameterOrder: ["project", "zone", "instanceGroupManager"],
    response: InstanceGroupManagerResizeRequestList,
    scopes: READ_SCOPES,
    description: "Retrieves the resize requests of a managed instance group.",
    access: { verb: "list", resource: RESIZE_REQUEST.plural },
    handler: requests.list,
  },
  {
    resource: RR,
    method: "get",
    id: `compute.${RR}.get`,
    httpMethod: "GET",
    path: `${RR_PATH}/{resizeRequest}`,
    parameters: ONE_RR,
    parameterOrder: names(ONE_RR),
    response: InstanceGroupManagerResizeRequest,
    scopes: READ_SCOPES,
    description: "Returns a resize request.",
    access: { verb: "get", resource: RESIZE_REQUEST.plural },
    handler: requests.get,
  },
  {
    resource: RR,
    method: "cancel",
    id: `compute.${RR}.cancel`,
    httpMethod: "POST",
    path: `${RR_PATH}/{resizeRequest}/cancel`,
    parameters: [...ONE_RR, requestId],
    parameterOrder: names(ONE_RR),
    response: Operation,
    scopes: WRITE_SCOPES,
    description:
      "Cancels a resize request that is still queued or provisioning; instances it created are removed. Cancelling a request in a final state yields a DONE operation with error CONDITION_NOT_MET.",
    access: { verb: "update", resource: RESIZE_REQUEST.plural },
    handler: requests.cancel,
  },
  {
    resource: RR,
    method: "delete",
    id: `compute.${RR}.delete`,
    httpMethod: "DELETE",
    path: `${RR_PATH}/{resizeRequest}`,
    parameters: [...ONE_RR, requestId],
    parameterOrder: names(ONE_RR),
    response: Operation,
    scopes: WRITE_SCOPES,
    description: "Deletes a resize request; an active request is cancelled first.",
    access: { verb: "delete", resource: RESIZE_REQUEST.plural },
    handler: requests.remove,
  },
  {
    resource: OPS,
    method: "get",
    id: `compute.${OPS}.get`,
    httpMethod: "GET",
    path: `${OPS_PATH}/{operation}`,
    parameters: ONE_OP,
    parameterOrder: names(ONE_OP),
    response: Operation,
    scopes: READ_SCOPES,
    description: "Retrieves a zone operation.",
    access: { verb: "get", resource: RESIZE_REQUEST.plural },
    handler: operations.get,
  },
  {
    resource: OPS,
    method: "list",
    id: `compute.${OPS}.list`,
    httpMethod: "GET",
    path: OPS_PATH,
    parameters: [project, zone, ...listParameters],
    parameterOrder: ["project", "zone"],
    response: OperationList,
    scopes: READ_SCOPES,
    description:
      "Retrieves the operations of a project in a zone (completed ones are kept for the retention period).",
    access: { verb: "list", resource: RESIZE_REQUEST.plural },
    handler: operations.list,
  },
  {
    resource: OPS,
    method: "delete",
    id: `compute.${OPS}.delete`,
    httpMethod: "DELETE",
    path: `${OPS_PATH}/{operation}`,
    parameters: ONE_OP,
    parameterOrder: names(ONE_OP),
    scopes: WRITE_SCOPES,
    description: "Deletes a zone operation record (not the change it made). Answers with an empty body.",
    access: { verb: "delete", resource: RESIZE_REQUEST.plural },
    handler: operations.remove,
  },
  {
    resource: OPS,
    method: "wait",
    id: `compute.${OPS}.wait`,
    httpMethod: "POST",
    path: `${OPS_PATH}/{operation}/wait`,
    parameters: ONE_OP,
    parameterOrder: names(ONE_OP),
    response: Operation,
    scopes: READ_SCOPES,
    description:
      "Waits until the operation is DONE or at most 2 minutes, then returns it (possibly not yet DONE: call again). Woken by the change itself, not by polling.",
    access: { verb: "get", resource: RESIZE_REQUEST.plural },
    handler: operations.wait,
  },
];
