// The booking decision (docs/booking.md): for one group, every FutureReservation pending approval is
// APPROVED or DECLINED once, in FIFO order, each approval holding capacity for the next; a cancelled
// one becomes CANCELLED. Pure: the capacity over time is src/queue/bookings.ts's, the same the ETA is
// meant to count bookings with.
import {
  FINAL_PROCUREMENT_STATUSES,
  FutureReservationCondition as FC,
  MAX_WINDOW_MS,
  type FutureReservation,
  type FutureReservationStatus,
  type ProcurementStatusName,
} from "../api/future-reservation.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { fifo } from "../api/lifecycle.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { rfc3339, rfc3339Seconds } from "../api/time.js";
import { setCondition, type ConditionInput } from "../controller/conditions.js";
import type { EventDefinition } from "../events/catalog.js";
import {
  bookingHolds,
  bookingWindow,
  earliestFit,
  holdsCapacity,
  peakHeld,
  requestHolds,
  type Hold,
  type Schedule,
  type Window,
} from "../queue/bookings.js";
import { formatDuration } from "../api/duration.js";
import { bookingEvents } from "./events.js";

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

/** The changes in FIFO order: an approval is written before any later booking's decision. */
export interface BookingPlan {
  readonly changes: readonly BookingChange[];
}

const statusOf = (b: FutureReservation): ProcurementStatusName =>
  b.status?.procurementStatus ?? "PENDING_APPROVAL";

const isFinal = (b: FutureReservation): boolean => FINAL_PROCUREMENT_STATUSES.includes(statusOf(b));

const windowText = (w: Window): string => `${rfc3339Seconds(w.start)} to ${rfc3339Seconds(w.end)}`;

interface Verdict {
  readonly procurementStatus: ProcurementStatusName;
  readonly condition: ConditionInput;
  readonly event?: EventDefinition;
  readonly suggested?: Window;
}

/** The status a verdict leaves, and its event when the verdict is news. */
function change(b: FutureReservation, v: Verdict, now: number): BookingChange | undefined {
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

/** A pending booking that cannot be decided yet: why, as an Unknown Approved condition. */
function waiting(reason: "GroupNotFound" | "GroupNotReady", message: string): Verdict {
  return {
    procurementStatus: "PENDING_APPROVAL",
    condition: { type: FC.Approved, status: "Unknown", reason, message },
    event: bookingEvents.BookingWaitingForGroup,
  };
}

function declined(reason: string, message: string, suggested?: Window): Verdict {
  return {
    procurementStatus: "DECLINED",
    condition: { type: FC.Approved, status: "False", reason, message },
    event: bookingEvents.BookingDeclined,
    ...(suggested && { suggested }),
  };
}

function approved(message: string): Verdict {
  return {
    procurementStatus: "APPROVED",
    condition: { type: FC.Approved, status: "True", reason: "Approved", message },
    event: bookingEvents.BookingApproved,
  };
}

/** The sentence naming the earliest window of `length` from `after` that fits, or that none does. */
function earliestText(schedule: Schedule, length: number, count: number, after: number): [string, Window?] {
  const fit = earliestFit(schedule, length, count, after, MAX_WINDOW_MS);
  if (!fit)
    return [
      `No window of the same length (${formatDuration(length)}) fits within 90 days after ${rfc3339Seconds(after)}.`,
    ];
  return [`The earliest window of the same length that fits is ${windowText(fit)}.`, fit];
}

/** APPROVED or DECLINED for one pending booking of a group whose size is known. */
function approval(b: FutureReservation, w: Window, schedule: Schedule, group: string, now: number): Verdict {
  const count = b.spec.totalCount;
  const { maxSize } = schedule;
  const length = w.end - w.start;
  if (maxSize === undefined)
    return approved(
      `Approved: group ${group} has no maxSize, so ${count} instances fit from ${windowText(w)}.`,
    );
  if (count > maxSize)
    return declined(
      "ExceedsMaxSize",
      `Declined: ${count} instances exceed group ${group}'s maxSize ${maxSize}; no window fits.`,
    );
  if (w.start <= now) {
    const [text, fit] = earliestText(schedule, length, count, now);
    return declined(
      "WindowStarted",
      `Declined: the window ${windowText(w)} has already started. ${text}`,
      fit,
    );
  }
  const peak = peakHeld(schedule.holds, w);
  if (peak + count <= maxSize)
    return approved(
      `Approved: group ${group} has room for ${count} instances from ${windowText(w)} (at most ${peak} of maxSize ${maxSize} held then without them).`,
    );
  const [text, fit] = earliestText(schedule, length, count, w.start);
  return declined(
    "InsufficientCapacity",
    `Declined: group ${group} holds up to ${peak} of maxSize ${maxSize} instances from ${windowText(w)}, leaving room for ${Math.max(0, maxSize - peak)}, not ${count}. ${text}`,
    fit,
  );
}

/** The group's bookings decided: cancels first (they free their windows), then approvals in FIFO order. */
export function decideBookings(s: BookingSnapshot): BookingPlan {
  const ordered = [...s.bookings].sort((a, b) =>
    fifo(
      { creationTimestamp: a.metadata.creationTimestamp ?? "", name: a.metadata.name ?? "" },
      { creationTimestamp: b.metadata.creationTimestamp ?? "", name: b.metadata.name ?? "" },
    ),
  );
  const changes: BookingChange[] = [];
  const push = (c: BookingChange | undefined): void => {
    if (c) changes.push(c);
  };
  for (const b of ordered) {
    if (!b.spec.cancel || isFinal(b)) continue;
    push(
      change(
        b,
        {
          procurementStatus: "CANCELLED",
          condition: {
            type: FC.Cancelled,
            status: "True",
            reason: "Cancelled",
            message: `Cancelled (was ${statusOf(b)}): the window holds no capacity of group ${s.groupName} any more.`,
          },
          event: bookingEvents.BookingCancelled,
        },
        s.now,
      ),
    );
  }
  const pending = ordered.filter((b) => !b.spec.cancel && statusOf(b) === "PENDING_APPROVAL");
  if (pending.length === 0) return { changes };
  const { group } = s;
  if (!group || group.status?.targetSize === undefined) {
    const verdict = !group
      ? waiting("GroupNotFound", `Group ${s.groupName} does not exist in namespace ${s.namespace} (yet).`)
      : waiting("GroupNotReady", `The size of group ${s.groupName} is not known yet (no status.targetSize).`);
    for (const b of pending) push(change(b, verdict, s.now));
    return { changes };
  }
  const holds: Hold[] = [
    ...requestHolds(group, s.requests, s.now),
    ...bookingHolds(ordered.filter((b) => holdsCapacity(b) && !b.spec.cancel)),
  ];
  for (const b of pending) {
    const w = bookingWindow(b);
    const verdict = w
      ? approval(b, w, { maxSize: group.spec.maxSize, holds }, s.groupName, s.now)
      : declined("InvalidWindow", "Declined: the time window is not a valid span of time.");
    if (verdict.procurementStatus === "APPROVED" && w)
      holds.push({
        from: w.start,
        until: w.end,
        count: b.spec.totalCount,
        holder: `FutureReservation ${b.metadata.name ?? ""}`,
      });
    push(change(b, verdict, s.now));
  }
  return { changes };
}
