// A FutureReservation as the dashboard shows it (pure): its summary for the JSON API and the live
// stream. Kept apart from booking-timeline.ts, which the browser loads: this one imports values.
import {
  FutureReservationCondition,
  windowLengthMs,
  type FutureReservation,
} from "../api/future-reservation.js";
import { rfc3339 } from "../api/time.js";
import { deliveryName } from "../queue/booking-wait.js";
import type { BookingSummary } from "./booking-timeline.js";

/** The window's end: the controller's, or computed from the spec before it has written one. */
function endOf(fr: FutureReservation): string | null {
  if (fr.status?.endTime) return fr.status.endTime;
  const w = fr.spec.timeWindow;
  if (w.endTime) return w.endTime;
  const length = windowLengthMs(w);
  const start = Date.parse(w.startTime);
  return length === undefined || !Number.isFinite(start) ? null : rfc3339(start + length);
}

export function bookingSummary(fr: FutureReservation): BookingSummary {
  const suggested = fr.status?.suggestedTimeWindow;
  const name = fr.metadata.name ?? "";
  return {
    namespace: fr.metadata.namespace ?? "",
    name,
    group: fr.spec.instanceGroupManager,
    count: fr.spec.totalCount,
    start: fr.status?.startTime ?? fr.spec.timeWindow.startTime,
    end: endOf(fr),
    status: fr.status?.procurementStatus ?? "PENDING_APPROVAL",
    message: fr.status?.message ?? null,
    suggested: suggested ? { start: suggested.startTime, end: suggested.endTime } : null,
    delivery: deliveryName(name),
    ended:
      fr.status?.conditions?.some(
        (c) => c.type === FutureReservationCondition.Ended && c.status === "True",
      ) ?? false,
    cancelRequested: fr.spec.cancel,
    description: fr.spec.description ?? null,
    created: fr.metadata.creationTimestamp ?? null,
  };
}
