// Calendar-mode advice (docs/booking.md "Asking for advice"): where and when `count` instances can be
// booked for a run between a shortest and a longest duration, starting inside a range. The compute
// API's `advice.calendarMode` answers this for a region; here it is answered for a namespace's groups,
// from the same capacity over time that approval decides with (src/queue/bookings.ts), so a window
// advised is one a booking for it would be approved in, as long as nothing changes meanwhile. Pure.
import type { FutureReservation } from "../api/future-reservation.js";
import { groupDurations, type InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { deliveredBookings } from "../queue/booking-wait.js";
import {
  bookingHolds,
  earliestFit,
  holdsCapacity,
  requestHolds,
  steps,
  type Schedule,
  type Window,
} from "../queue/bookings.js";

/** What is asked: instances, the run's length range and the start's range, ms. */
export interface AdviceQuery {
  readonly count: number;
  readonly minDurationMs: number;
  readonly maxDurationMs: number;
  /** The earliest acceptable start. */
  readonly notEarlierThan: number;
  /** The latest acceptable start. */
  readonly notLaterThan: number;
}

/** One group's capacity ahead, with what names it in an answer. */
export interface GroupCapacity {
  readonly group: string;
  readonly schedule: Schedule;
}

export interface Recommendation extends Window {
  readonly group: string;
}

/**
 * A group's capacity ahead as approval sees it: the target's replicas going down at the running
 * requests' releases, and every approved booking not cancelled (one already delivered is counted as
 * its delivery request). undefined while the group's size is not known (no status.targetSize).
 */
export function groupSchedule(
  group: InstanceGroupManager,
  requests: readonly ResizeRequest[],
  bookings: readonly FutureReservation[],
  now: number,
): Schedule | undefined {
  if (group.status?.targetSize === undefined) return undefined;
  const { provisioningTimeoutMs } = groupDurations(group.spec);
  return {
    maxSize: group.spec.maxSize,
    holds: [
      ...requestHolds(group, requests, now),
      ...bookingHolds(
        bookings.filter((b) => holdsCapacity(b) && !b.spec.cancel),
        deliveredBookings(requests, now, provisioningTimeoutMs),
      ),
    ],
  };
}

/**
 * The window advised on one schedule: the earliest start in the range at which `count` more instances fit
 * for the shortest duration, lasting as long as they keep fitting, up to the longest duration.
 * undefined when no start in the range fits.
 */
export function adviseWindow(schedule: Schedule, q: AdviceQuery): Window | undefined {
  if (q.count < 1 || q.minDurationMs <= 0 || q.maxDurationMs < q.minDurationMs) return undefined;
  if (q.notLaterThan < q.notEarlierThan) return undefined;
  const first = earliestFit(
    schedule,
    q.minDurationMs,
    q.count,
    q.notEarlierThan,
    q.notLaterThan - q.notEarlierThan,
  );
  if (!first) return undefined;
  const longest = first.start + q.maxDurationMs;
  const { maxSize } = schedule;
  if (maxSize === undefined) return { start: first.start, end: longest };
  // The held level only rises at a step; the window ends at the first rise that leaves no room.
  const full = steps(schedule.holds).find(
    (s) => s.at > first.start && s.at < longest && s.level + q.count > maxSize,
  );
  return { start: first.start, end: full ? full.at : longest };
}

/**
 * Every group's advised window, best first: the earliest start, then the longest window, then the
 * group's name (a stable order). Groups where nothing fits are left out.
 */
export function advise(groups: readonly GroupCapacity[], q: AdviceQuery): Recommendation[] {
  return groups
    .flatMap((g): Recommendation[] => {
      const w = adviseWindow(g.schedule, q);
      return w ? [{ group: g.group, ...w }] : [];
    })
    .sort(
      (a, b) => a.start - b.start || b.end - b.start - (a.end - a.start) || a.group.localeCompare(b.group),
    );
}
