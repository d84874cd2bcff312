// The rows of `futureReservations` (docs/rest.md): insert, get, list, cancel and delete of the bookings
// of a zone, as the compute API declares them. Each call is authorized on `futurereservations` in the
// project's namespace with the verb kubectl would need for the same change.
import { FutureReservationInsert } from "../api/future-reservation-rest.js";
import { FutureReservationsListResponse, FutureReservationWire } from "../api/future-reservation-wire.js";
import { Operation } from "../api/index.js";
import { FUTURE_RESERVATION, FUTURE_RESERVATIONS_RESOURCE } from "../api/names.js";
import { defineRoute } from "./define-route.js";
import * as bookings from "./future-reservations.js";
import type { Route } from "./route.js";
import {
  READ_SCOPES,
  WRITE_SCOPES,
  listParameters,
  matching,
  names,
  path,
  project,
  requestId,
} from "./route-parameters.js";

/** The compute API states no pattern for these two: any name is looked up, and an unknown one is a 404. */
const zone = path(
  "zone",
  matching("[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?", "must be a zone name", 63),
  "The zone of the booked group (its spec.zone).",
);
const futureReservation = path(
  "futureReservation",
  matching(
    "[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?|[1-9][0-9]{0,19}",
    "must be an RFC 1035 name or a numeric id",
    63,
  ),
  "Name or numeric id of the booking (FutureReservation).",
);

export function futureReservationRoutes(): Route[] {
  const resource = FUTURE_RESERVATIONS_RESOURCE;
  const collection = "projects/{project}/zones/{zone}/futureReservations";
  const ofZone = [project, zone] as const;
  const one = [...ofZone, futureReservation] as const;
  return [
    defineRoute({
      resource,
      method: "insert",
      id: `compute.${resource}.insert`,
      httpMethod: "POST",
      path: collection,
      parameters: [...ofZone, requestId],
      parameterOrder: names(ofZone),
      request: { schema: FutureReservationWire, validate: FutureReservationInsert },
      response: Operation,
      scopes: WRITE_SCOPES,
      description:
        "Books totalCount instances of a zonal group (specificSkuProperties.instanceProperties.machineType) for a window, in calendar mode: creates a FutureReservation, approved or declined by the group's room for the whole window (status.procurementStatus). Fields this API does not serve are refused (400). Requires permission to create futurereservations.",
      access: { verb: "create", resource: FUTURE_RESERVATION.plural },
      handler: bookings.insert,
    }),
    defineRoute({
      resource,
      method: "list",
      id: `compute.${resource}.list`,
      httpMethod: "GET",
      path: collection,
      parameters: [...ofZone, ...listParameters],
      parameterOrder: names(ofZone),
      response: FutureReservationsListResponse,
      scopes: READ_SCOPES,
      description: "Retrieves the bookings of the project's groups in the zone.",
      access: { verb: "list", resource: FUTURE_RESERVATION.plural },
      handler: bookings.list,
    }),
    defineRoute({
      resource,
      method: "get",
      id: `compute.${resource}.get`,
      httpMethod: "GET",
      path: `${collection}/{futureReservation}`,
      parameters: one,
      parameterOrder: names(one),
      response: FutureReservationWire,
      scopes: READ_SCOPES,
      description: "Returns a booking, with its procurementStatus.",
      access: { verb: "get", resource: FUTURE_RESERVATION.plural },
      handler: bookings.get,
    }),
    defineRoute({
      resource,
      method: "cancel",
      id: `compute.${resource}.cancel`,
      httpMethod: "POST",
      path: `${collection}/{futureReservation}/cancel`,
      parameters: [...one, requestId],
      parameterOrder: names(one),
      response: Operation,
      scopes: WRITE_SCOPES,
      description:
        "Cancels a booking that is not final (sets spec.cancel): it becomes CANCELLED and holds no capacity. A DECLINED, CANCELLED or FAILED booking cannot be cancelled (400).",
      access: { verb: "update", resource: FUTURE_RESERVATION.plural },
      handler: bookings.cancel,
    }),
    defineRoute({
      resource,
      method: "delete",
      id: `compute.${resource}.delete`,
      httpMethod: "DELETE",
      path: `${collection}/{futureReservation}`,
      parameters: [...one, requestId],
      parameterOrder: names(one),
      response: Operation,
      scopes: WRITE_SCOPES,
      description:
        "Deletes a booking that is final or cancelled; one that may still hold capacity must be cancelled first (400).",
      access: { verb: "delete", resource: FUTURE_RESERVATION.plural },
      handler: bookings.remove,
    }),
  ];
}
