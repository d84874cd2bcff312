// The REST API as one table: every method of `instanceGroupManagerResizeRequests` + `zoneOperations`
// (zonal groups) and `regionInstanceGroupManagerResizeRequests` + `regionOperations` (regional groups),
// advice and futureReservations (future-reservation-routes.ts),
// with its HTTP method, path, parameters, schemas, scopes, RBAC check and handler. The compute routes are
// registered from it (compute.ts) and so is the discovery document; each row types its handler's parameters
// and body (define-route.ts). Paths, parameters and schemas are the
// compute API's (test/conformance checks them against Google's own discovery document).
import {
  InstanceGroupManagerResizeRequest,
  InstanceGroupManagerResizeRequestsListResponse,
  Operation,
  OperationList,
  RegionInstanceGroupManagerResizeRequestsListResponse,
  ResizeRequestInsert,
  type LocationScope,
} from "../api/index.js";
import {
  InstanceGroupManagersListManagedInstancesResponse,
  RegionInstanceGroupManagersListInstancesResponse,
} from "../api/managed-instances.js";
import { CalendarModeAdviceRequest, CalendarModeAdviceResponse } from "../api/calendar-advice.js";
import { FUTURE_RESERVATION, INSTANCE_GROUP_MANAGER, REST_RESOURCES, RESIZE_REQUEST } from "../api/names.js";
import { defineRoute } from "./define-route.js";
import { listManagedInstances } from "./managed-instances.js";
import { calendarMode } from "./calendar-advice.js";
import * as operations from "./operations.js";
import * as requests from "./resize-requests.js";
import type { Route, RouteParameter } from "./route.js";
import { futureReservationRoutes } from "./future-reservation-routes.js";
import {
  READ_SCOPES,
  SCOPE_PARAMETER,
  WRITE_SCOPES,
  group,
  listParameters,
  locationOfGroup,
  locationOfOperation,
  names,
  operation,
  project,
  requestId,
  resizeRequest,
} from "./route-parameters.js";

export { SCOPES, SCOPE_DESCRIPTIONS } from "./route-parameters.js";

const LIST_RESPONSE = {
  zones: InstanceGroupManagerResizeRequestsListResponse,
  regions: RegionInstanceGroupManagerResizeRequestsListResponse,
} as const;

/** The resize-request methods of a zonal or regional group. */
function resizeRequestRoutes(scope: LocationScope): Route[] {
  const resource = REST_RESOURCES[scope].requests;
  const collection = `projects/{project}/${scope}/{${SCOPE_PARAMETER[scope]}}/instanceGroupManagers/{instanceGroupManager}/resizeRequests`;
  const location = locationOfGroup(scope);
  const ofGroup = [project, location, group] as const;
  const one = [...ofGroup, resizeRequest] as const;
  const where = scope === "zones" ? "zonal" : "regional";
  return [
    defineRoute({
      resource,
      method: "insert",
      id: `compute.${resource}.insert`,
      httpMethod: "POST",
      path: collection,
      parameters: [...ofGroup, requestId],
      parameterOrder: names(ofGroup),
      // Strict: a field the insert body does not define is an error, not silently dropped.
      request: { schema: InstanceGroupManagerResizeRequest, validate: ResizeRequestInsert.strict() },
      response: Operation,
      scopes: WRITE_SCOPES,
      description: `Creates a resize request of a ${where} group that starts provisioning instances as soon as the group has room, or queues it. Requires permission to create resizerequests and to use the named instancegroupmanager.`,
      access: { verb: "create", resource: RESIZE_REQUEST.plural },
      handler: requests.insert,
    }),
    defineRoute({
      resource,
      method: "list",
      id: `compute.${resource}.list`,
      httpMethod: "GET",
      path: collection,
      parameters: [...ofGroup, ...listParameters],
      parameterOrder: names(ofGroup),
      response: LIST_RESPONSE[scope],
      scopes: READ_SCOPES,
      description: `Retrieves the resize requests of a ${where} managed instance group.`,
      access: { verb: "list", resource: RESIZE_REQUEST.plural },
      handler: requests.list,
    }),
    defineRoute({
      resource,
      method: "get",
      id: `compute.${resource}.get`,
      httpMethod: "GET",
      path: `${collection}/{resizeRequest}`,
      parameters: one,
      parameterOrder: names(one),
      response: InstanceGroupManagerResizeRequest,
      scopes: READ_SCOPES,
      description: "Returns a resize request.",
      access: { verb: "get", resource: RESIZE_REQUEST.plural },
      handler: requests.get,
    }),
    defineRoute({
      resource,
      method: "cancel",
      id: `compute.${resource}.cancel`,
      httpMethod: "POST",
      path: `${collection}/{resizeRequest}/cancel`,
      parameters: [...one, requestId],
      parameterOrder: names(one),
      response: Operation,
      scopes: WRITE_SCOPES,
      description:
        "Cancels a resize request that is still active (CREATING or ACCEPTED: queued or provisioning); instances it created are removed. A request in a final state cannot be cancelled (400).",
      access: { verb: "update", resource: RESIZE_REQUEST.plural },
      handler: requests.cancel,
    }),
    defineRoute({
      resource,
      method: "delete",
      id: `compute.${resource}.delete`,
      httpMethod: "DELETE",
      path: `${collection}/{resizeRequest}`,
      parameters: [...one, requestId],
      parameterOrder: names(one),
      response: Operation,
      scopes: WRITE_SCOPES,
      description:
        "Deletes a resize request in a final state (SUCCEEDED, FAILED or CANCELLED). An active request cannot be deleted (400): cancel it first. Deleting does not remove the instances it created.",
      access: { verb: "delete", resource: RESIZE_REQUEST.plural },
      handler: requests.remove,
    }),
  ];
}

const GROUP_RESOURCE = { zones: "instanceGroupManagers", regions: "regionInstanceGroupManagers" } as const;
const MANAGED_INSTANCES_RESPONSE = {
  zones: InstanceGroupManagersListManagedInstancesResponse,
  regions: RegionInstanceGroupManagersListInstancesResponse,
} as const;

/** The group method: listManagedInstances, the instances the group's resize requests hold. */
function groupRoutes(scope: LocationScope): Route[] {
  const resource = GROUP_RESOURCE[scope];
  const ofGroup = [project, locationOfGroup(scope), group] as const;
  return [
    defineRoute({
      resource,
      method: "listManagedInstances",
      id: `compute.${resource}.listManagedInstances`,
      httpMethod: "POST",
      path: `projects/{project}/${scope}/{${SCOPE_PARAMETER[scope]}}/instanceGroupManagers/{instanceGroupManager}/listManagedInstances`,
      parameters: [...ofGroup, ...listParameters],
      parameterOrder: names(ofGroup),
      response: MANAGED_INSTANCES_RESPONSE[scope],
      scopes: READ_SCOPES,
      description:
        "Lists the instances the group's resize requests hold, one per instance, with the holding request's name in version.name. Requires permission to get the instancegroupmanager.",
      // A read of the group itself: the same permission as reading the group with kubectl.
      access: { verb: "get", resource: INSTANCE_GROUP_MANAGER.plural },
      handler: listManagedInstances,
    }),
  ];
}

/** The operation methods of a zone or region. */
function operationRoutes(scope: LocationScope): Route[] {
  const resource = REST_RESOURCES[scope].operations;
  const collection = `projects/{project}/${scope}/{${SCOPE_PARAMETER[scope]}}/operations`;
  const ofLocation = [project, locationOfOperation(scope)] as const;
  const one = [...ofLocation, operation] as const;
  const where = scope === "zones" ? "zone" : "region";
  return [
    defineRoute({
      resource,
      method: "get",
      id: `compute.${resource}.get`,
      httpMethod: "GET",
      path: `${collection}/{operation}`,
      parameters: one,
      parameterOrder: names(one),
      response: Operation,
      scopes: READ_SCOPES,
      description: `Retrieves a ${where} operation by name or numeric id.`,
      access: { verb: "get", resource: RESIZE_REQUEST.plural },
      handler: operations.get,
    }),
    defineRoute({
      resource,
      method: "list",
      id: `compute.${resource}.list`,
      httpMethod: "GET",
      path: collection,
      parameters: [...ofLocation, ...listParameters],
      parameterOrder: names(ofLocation),
      response: OperationList,
      scopes: READ_SCOPES,
      description: `Retrieves the operations of a project in a ${where} (completed ones are kept for the retention period).`,
      access: { verb: "list", resource: RESIZE_REQUEST.plural },
      handler: operations.list,
    }),
    defineRoute({
      resource,
      method: "delete",
      id: `compute.${resource}.delete`,
      httpMethod: "DELETE",
      path: `${collection}/{operation}`,
      parameters: one,
      parameterOrder: names(one),
      scopes: WRITE_SCOPES,
      description: `Deletes a ${where} operation record (not the change it made). Answers with an empty body.`,
      access: { verb: "delete", resource: RESIZE_REQUEST.plural },
      handler: operations.remove,
    }),
    defineRoute({
      resource,
      method: "wait",
      id: `compute.${resource}.wait`,
      httpMethod: "POST",
      path: `${collection}/{operation}/wait`,
      parameters: one,
      parameterOrder: names(one),
      response: Operation,
      scopes: READ_SCOPES,
      description:
        "Waits until the operation is DONE or at most 2 minutes, then returns it (possibly not yet DONE: call again). Woken by the change itself, not by polling.",
      access: { verb: "get", resource: RESIZE_REQUEST.plural },
      handler: operations.wait,
    }),
  ];
}

/** advice.calendarMode: when and where a FutureReservation's window fits, over a region's groups. */
function adviceRoutes(): Route[] {
  const region = locationOfOperation("regions") as RouteParameter<"region", "string", true>;
  const ofRegion = [project, region] as const;
  return [
    defineRoute({
      resource: "advice",
      method: "calendarMode",
      id: "compute.advice.calendarMode",
      httpMethod: "POST",
      path: "projects/{project}/regions/{region}/advice/calendarMode",
      parameters: ofRegion,
      parameterOrder: names(ofRegion),
      request: { schema: CalendarModeAdviceRequest, validate: CalendarModeAdviceRequest.strict() },
      response: CalendarModeAdviceResponse,
      scopes: WRITE_SCOPES,
      description:
        "Advises when and where a FutureReservation of the asked instances would be approved: for each group of the region (or the one named by machineType), the earliest window in the start range that fits for at least minDuration, up to maxDuration, counting its running requests' releases and approved bookings. Requires permission to list futurereservations.",
      access: { verb: "list", resource: FUTURE_RESERVATION.plural },
      handler: calendarMode,
    }),
  ];
}

export const ROUTES: readonly Route[] = [
  ...resizeRequestRoutes("zones"),
  ...operationRoutes("zones"),
  ...groupRoutes("zones"),
  ...resizeRequestRoutes("regions"),
  ...operationRoutes("regions"),
  ...groupRoutes("regions"),
  ...adviceRoutes(),
  ...futureReservationRoutes(),
];
