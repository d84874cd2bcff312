// FutureReservation as the compute API's REST resource `futureReservations` (docs/rest.md): what insert
// accepts, and the Kubernetes object ↔ wire conversion both ways. The group is the SKU: the wire's
// specificSkuProperties.instanceProperties.machineType names the InstanceGroupManager (as
// advice.calendarMode's machineType does) and specificSkuProperties.totalCount is spec.totalCount.
// Insert bodies are strict: a field of the compute API this one does not honour is refused, naming it.
import { z } from "zod";
import { FUTURE_RESERVATION, API_VERSION, REST_KIND } from "./names.js";
import { TimeWindow, type FutureReservation, type ProcurementStatusName } from "./future-reservation.js";
import type { Duration } from "./duration.js";
import { numericId, locationUrl } from "./identity.js";
import { Rfc1035Label } from "./primitives.js";

const INT32_MAX = 2 ** 31 - 1;

/** specificSkuProperties.totalCount: an int64 string on the wire, a whole number of instances here. */
const TotalCount = z
  .string()
  .regex(/^[0-9]{1,10}$/, { message: "totalCount must be a whole number of instances, as a decimal string" })
  .refine((v) => Number(v) >= 1 && Number(v) <= INT32_MAX, {
    message: `totalCount must be from 1 to ${INT32_MAX}`,
  });

/**
 * Output-only fields: Google's servers ignore them on input, so a body read with get can be sent
 * back to insert. Anything else outside the supported fields is refused.
 */
const ignoredOnInput = {
  kind: z.unknown().optional(),
  id: z.unknown().optional(),
  creationTimestamp: z.unknown().optional(),
  zone: z.unknown().optional(),
  selfLink: z.unknown().optional(),
  selfLinkWithId: z.unknown().optional(),
  status: z.unknown().optional(),
};

/** The body of `futureReservations.insert`: the calendar-mode subset of the compute API's FutureReservation. */
export const FutureReservationInsert = z
  .object({
    name: Rfc1035Label,
    description: z.string().max(2048).optional(),
    reservationMode: z
      .literal("CALENDAR", { message: "reservationMode must be CALENDAR: the only mode this API serves" })
      .optional(),
    planningStatus: z
      .literal("SUBMITTED", { message: "planningStatus must be SUBMITTED: drafts are not supported" })
      .optional(),
    timeWindow: TimeWindow.strict(),
    specificSkuProperties: z
      .object({
        totalCount: TotalCount,
        instanceProperties: z.object({ machineType: Rfc1035Label }).strict(),
      })
      .strict(),
    ...ignoredOnInput,
  })
  .strict();
export type FutureReservationInsert = z.infer<typeof FutureReservationInsert>;

/** A booking on the wire, as get and list answer it. */
export interface RestFutureReservation {
  readonly kind: typeof REST_KIND.futureReservation;
  readonly id: string;
  readonly creationTimestamp?: string;
  readonly name: string;
  readonly description?: string;
  readonly zone: string;
  readonly selfLink: string;
  readonly selfLinkWithId: string;
  readonly reservationMode: "CALENDAR";
  readonly planningStatus: "SUBMITTED";
  readonly specificSkuProperties: {
    readonly totalCount: string;
    readonly instanceProperties: { readonly machineType: string };
  };
  readonly timeWindow: {
    readonly startTime: string;
    readonly endTime?: string;
    readonly duration?: Duration;
  };
  readonly status: { readonly procurementStatus: ProcurementStatusName };
}

/** Where a booking is addressed: its project (namespace) and the zone of its group. */
export interface BookingPlace {
  readonly publicUrl: string;
  readonly project: string;
  readonly zone: string;
}

/** The collection URL of a zone's bookings. */
export function futureReservationsUrl(place: BookingPlace): string {
  return `${locationUrl(place.publicUrl, place.project, { scope: "zones", name: place.zone })}/futureReservations`;
}

/** The numeric id of a booking: derived from its uid, as every resource's here. */
export const bookingId = (fr: FutureReservation): string => numericId(fr.metadata.uid ?? "");

export function toRestFutureReservation(fr: FutureReservation, place: BookingPlace): RestFutureReservation {
  const { spec, metadata } = fr;
  const name = metadata.name ?? "";
  const base = futureReservationsUrl(place);
  const window = spec.timeWindow;
  return {
    kind: REST_KIND.futureReservation,
    id: bookingId(fr),
    ...(metadata.creationTimestamp !== undefined && { creationTimestamp: metadata.creationTimestamp }),
    name,
    ...(spec.description !== undefined && { description: spec.description }),
    zone: locationUrl(place.publicUrl, place.project, { scope: "zones", name: place.zone }),
    selfLink: `${base}/${name}`,
    selfLinkWithId: `${base}/${bookingId(fr)}`,
    reservationMode: "CALENDAR",
    planningStatus: "SUBMITTED",
    specificSkuProperties: {
      totalCount: String(spec.totalCount),
      instanceProperties: { machineType: spec.instanceGroupManager },
    },
    timeWindow: {
      startTime: window.startTime,
      ...(window.endTime !== undefined && { endTime: window.endTime }),
      ...(window.duration !== undefined && { duration: window.duration }),
    },
    // A booking the controller has not decided yet is pending, as the controller will first say.
    status: { procurementStatus: fr.status?.procurementStatus ?? "PENDING_APPROVAL" },
  };
}

/** The Kubernetes object an insert body creates in namespace `project`. */
export function fromRestFutureReservation(body: FutureReservationInsert, project: string): FutureReservation {
  const window = body.timeWindow;
  return {
    apiVersion: API_VERSION,
    kind: FUTURE_RESERVATION.kind,
    metadata: { name: body.name, namespace: project },
    spec: {
      instanceGroupManager: body.specificSkuProperties.instanceProperties.machineType,
      totalCount: Number(body.specificSkuProperties.totalCount),
      timeWindow: {
        startTime: window.startTime,
        ...(window.endTime !== undefined && { endTime: window.endTime }),
        ...(window.duration !== undefined && { duration: window.duration }),
      },
      ...(body.description !== undefined && { description: body.description }),
      cancel: false,
    },
  };
}
