// What the booking controller's decisions share (decide.ts: approval and cancel; deliver.ts:
// delivery): the snapshot they read, the plan they return, and one way to turn a verdict into a
// booking's status and its event.
import {
  FINAL_PROCUREMENT_STATUSES,
  type FutureReservation,
  type FutureReservationStatus,
  type ProcurementStatusName,
} from "../api/future-reservation.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { rfc3339, rfc3339Seconds } from "../api/time.js";
import { setCondition, type ConditionInput } from "../controllers/conditions.js";
import type { EventDefinition } from "../events/catalog.js";
import { bookingWindow, type Window } from "../queue/bookings.js";

export interface BookingSnapshot {
  readonly namespace: string;
  readonly groupName: string;
  /** undefined when the group does not exist. */
  readonly group: InstanceGroupManager | undefined;
  /** The group's ResizeRequests, any state. */
  readonly requests: readonly ResizeRequest[];
  /** The group's FutureReservations, any state. */
  readonly bookings: readonly FutureReservation[];
  readonly now: number;
}

export interface BookingEvent {
  readonly definition: EventDefinition;
  readonly note: string;
}

/** A booking's new status, written through its status subresource, and the events it tells. */
export interface BookingChange {
  readonly booking: FutureReservation;
  readonly status: FutureReservationStatus;
  readonly events: readonly BookingEvent[];
}

/** A succeeded delivery request whose run is brought forward to end at `runUntil` (its booking was cancelled). */
export interface EarlyRelease {
  readonly request: ResizeRequest;
  /** RFC 3339: when its run now ends (the pass's time); the run-duration release takes it from there. */
  readonly runUntil: string;
}

/**
 * The changes in FIFO order (an approval is written before any later booking's decision), the delivery
 * requests to create (each before its booking's PROVISIONING status), to cancel and to release early
 * (each before the status that says so), and when the group next needs a pass (a delivery due, a
 * window starting or ending).
 */
export interface BookingPlan {
  readonly changes: readonly BookingChange[];
  readonly creates: readonly ResizeRequest[];
  readonly cancels: readonly ResizeRequest[];
  readonly releases: readonly EarlyRelease[];
  readonly requeueAfterMs: number | undefined;
}

export const statusOf = (b: FutureReservation): ProcurementStatusName =>
  b.status?.procurementStatus ?? "PENDING_APPROVAL";

export const isFinal = (b: FutureReservation): boolean => FINAL_PROCUREMENT_STATUSES.includes(statusOf(b));

export const windowText = (w: Window): string => `${rfc3339Seconds(w.start)} to ${rfc3339Seconds(w.end)}`;

export interface Verdict {
  readonly procurementStatus: ProcurementStatusName;
  readonly condition: ConditionInput;
  readonly event?: EventDefinition;
  readonly suggested?: Window;
}

/** The status a verdict leaves, and its event when the verdict is news. */
export function change(b: FutureReservation, v: Verdict, now: number): BookingChange | undefined {
  const generation = b.metadata.generation ?? 0;
  const w = bookingWindow(b);
  const conditions = setCondition(b.status?.conditions, v.condition, rfc3339(now), generation);
  const status: FutureReservationStatus = {
    ...b.status,
    procurementStatus: v.procurementStatus,
    ...(w && { startTime: rfc3339(w.start), endTime: rfc3339(w.end) }),
    message: v.condition.message,
    conditions,
    observedGeneration: generation,
  };
  if (v.suggested)
    status.suggestedTimeWindow = { startTime: rfc3339(v.suggested.start), endTime: rfc3339(v.suggested.end) };
  const unchanged =
    conditions === b.status?.conditions &&
    b.status.procurementStatus === v.procurementStatus &&
    b.status.observedGeneration === generation;
  if (unchanged) return undefined;
  const news = b.status?.conditions?.find((c) => c.type === v.condition.type)?.reason !== v.condition.reason;
  return {
    booking: b,
    status,
    events: v.event && news ? [{ definition: v.event, note: v.condition.message }] : [],
  };
}
