// The booking decision (docs/booking.md): for one group, every FutureReservation pending approval is
// APPROVED or DECLINED once, in FIFO order, each approval holding capacity for the next; a cancelled
// one becomes CANCELLED (its delivered instances released now); an approved one is delivered (deliver.ts). Pure: the capacity over time is
// src/queue/bookings.ts's, the same the resize queue's holds and ETAs count bookings with.
import {
  FutureReservationCondition as FC,
  MAX_WINDOW_MS,
  type FutureReservation,
} from "../api/future-reservation.js";
import { fifo, isFinalState } from "../api/lifecycle.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { rfc3339, rfc3339Seconds } from "../api/time.js";
import {
  bookingWindow,
  earliestFit,
  holdsCapacity,
  peakHeld,
  type Hold,
  type Schedule,
  type Window,
} from "../queue/bookings.js";
import { formatDuration } from "../api/duration.js";
import { groupSchedule } from "./advice.js";
import {
  deliveryOf,
  deliveryRequest as deliveryRequestFor,
  deliveryStep,
  leadTimeMs,
  releaseOnCancel,
} from "./deliver.js";
import { bookingEvents } from "./events.js";
import {
  change,
  isFinal,
  statusOf,
  windowText,
  type BookingChange,
  type BookingPlan,
  type BookingSnapshot,
  type EarlyRelease,
  type Verdict,
} from "./verdict.js";

export type { BookingChange, BookingEvent, BookingPlan, BookingSnapshot, EarlyRelease } from "./verdict.js";

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

/** The group's bookings decided: cancels first (they free their windows), approvals in FIFO order, then deliveries. */
export function decideBookings(s: BookingSnapshot): BookingPlan {
  const ordered = [...s.bookings].sort((a, b) =>
    fifo(
      { creationTimestamp: a.metadata.creationTimestamp ?? "", name: a.metadata.name ?? "" },
      { creationTimestamp: b.metadata.creationTimestamp ?? "", name: b.metadata.name ?? "" },
    ),
  );
  const changes = new Map<FutureReservation, BookingChange>();
  const push = (c: BookingChange | undefined): void => {
    if (c) changes.set(c.booking, c);
  };
  for (const b of ordered) {
    if (!b.spec.cancel || isFinal(b)) continue;
    const delivered = statusOf(b) === "FULFILLED";
    push(
      change(
        b,
        {
          procurementStatus: "CANCELLED",
          condition: {
            type: FC.Cancelled,
            status: "True",
            reason: "Cancelled",
            message: delivered
              ? `Cancelled (was FULFILLED): the window holds no capacity of group ${s.groupName} any more; the instances delivered are released now.`
              : `Cancelled (was ${statusOf(b)}): the window holds no capacity of group ${s.groupName} any more.`,
          },
          event: bookingEvents.BookingCancelled,
        },
        s.now,
      ),
    );
  }
  approvals(s, ordered, push);
  return deliveries(s, ordered, changes);
}

/** Pending bookings decided in FIFO order, each approval holding capacity for the next. */
function approvals(
  s: BookingSnapshot,
  ordered: readonly FutureReservation[],
  push: (c: BookingChange | undefined) => void,
): void {
  const pending = ordered.filter((b) => !b.spec.cancel && statusOf(b) === "PENDING_APPROVAL");
  if (pending.length === 0) return;
  const { group } = s;
  if (!group || group.status?.targetSize === undefined) {
    const verdict = !group
      ? waiting("GroupNotFound", `Group ${s.groupName} does not exist in namespace ${s.namespace} (yet).`)
      : waiting("GroupNotReady", `The size of group ${s.groupName} is not known yet (no status.targetSize).`);
    for (const b of pending) push(change(b, verdict, s.now));
    return;
  }
  // The capacity ahead as advice reads it too (advice.ts): one rule for approving and advising.
  const holds: Hold[] = [...(groupSchedule(group, s.requests, ordered, s.now)?.holds ?? [])];
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
}

/**
 * Each booking as this pass leaves it (its approval applied) delivered (deliver.ts): a delivery request
 * created or followed, one no longer wanted (its booking cancelled, failed or ended) cancelled, and one
 * that succeeded for a booking now cancelled released early.
 */
function deliveries(
  s: BookingSnapshot,
  ordered: readonly FutureReservation[],
  decided: ReadonlyMap<FutureReservation, BookingChange>,
): BookingPlan {
  const changes: BookingChange[] = [];
  const creates: ResizeRequest[] = [];
  const cancels: ResizeRequest[] = [];
  const releases: EarlyRelease[] = [];
  let wakeAt = Infinity;
  const leadMs = leadTimeMs(s.requests);
  for (const original of ordered) {
    const before = decided.get(original);
    const b = before ? { ...original, status: before.status } : original;
    const d = deliveryOf(b, s.requests);
    const w = bookingWindow(b);
    if (!holdsCapacity(b) || b.spec.cancel || !w) {
      if (d && !isFinalState(d.status?.state)) cancels.push(d);
      const release = d && releaseOnCancel(b, w, d, s.now);
      const released = release && change(b, release, s.now);
      // Also when the status says so already: a release whose write did not land is tried again.
      if (d && release) releases.push({ request: d, runUntil: rfc3339(s.now) });
      // The cancel and the release in one write, each with its Event.
      const last = released
        ? { ...released, booking: original, events: [...(before?.events ?? []), ...released.events] }
        : before;
      if (last) changes.push(last);
      continue;
    }
    const step = deliveryStep(b, w, d, s.now, leadMs);
    if (before) {
      // Decided this pass: its delivery is the next pass's, each transition its own write and Event.
      changes.push(before);
      wakeAt = Math.min(wakeAt, step.create ? s.now : (step.wakeAt ?? Infinity));
      continue;
    }
    if (step.create) creates.push(deliveryRequestFor(b, w, s.now));
    if (step.cancel && d) cancels.push(d);
    if (step.wakeAt !== undefined) wakeAt = Math.min(wakeAt, step.wakeAt);
    const after = step.verdict && change(b, step.verdict, s.now);
    if (after) changes.push(after);
  }
  // Cancels first: they free the windows the approvals after them were decided with.
  const cancelledFirst = (c: BookingChange): number => Number(c.status.procurementStatus !== "CANCELLED");
  return {
    changes: changes.sort((a, b) => cancelledFirst(a) - cancelledFirst(b)),
    creates,
    cancels,
    releases,
    requeueAfterMs: wakeAt === Infinity ? undefined : Math.max(0, wakeAt - s.now),
  };
}
