// The replay of a group's queue into the time ahead (docs/lifecycle.md "Position, what a request waits
// for, and its ETA"): the rules of rules.ts, the ones the decision applies pass by pass, applied to the
// moments capacity frees and attempts end, to tell when each queued request starts and is provisioned.
import { durationToMillis } from "../api/duration.js";
import type { FutureReservation } from "../api/future-reservation.js";
import { groupDurations, type InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { bookingWait, claimedDelivery, deliveryOf, holdWindow, type BookingWait } from "./booking-wait.js";
import { levelHolds } from "./bookings.js";
import { fitsUnderMax, nextAttemptAt, releaseTarget, sizeOf } from "./rules.js";

/** A moment when capacity frees: a SUCCEEDED request's run duration ends, or an expected one's. */
export interface PendingRelease {
  readonly time: number;
  readonly size: number;
  readonly request: string;
}

/** The replay's verdict on one request: when it starts and is provisioned, or why nothing is known. */
export type Replayed =
  { readonly start: number; readonly time: number; readonly approximate: boolean } | string;

export interface ReplayInput {
  /** The queued requests in FIFO order, the attempt in progress left out. */
  readonly queue: readonly ResizeRequest[];
  readonly group: InstanceGroupManager;
  /** The replicas the target has, or will have once the change under way is applied. */
  readonly replicas: number;
  readonly releases: readonly PendingRelease[];
  /** When the attempt in progress is expected to end (now if none). */
  readonly busyUntil: number;
  /** How long one request's attempts take. */
  readonly duration: number;
  readonly approximate: boolean;
  /** The group's bookings, any state (booking-wait.ts); none when undefined. */
  readonly bookings?: readonly FutureReservation[];
  /** The bookings whose delivery holds their instances already (booking-wait.ts deliveredBookings). */
  readonly delivered?: ReadonlySet<string>;
}

/**
 * Replays the queue: each request in order (a booking's delivery first, then FIFO) starts when the
 * previous attempt has ended, its backoff has passed, (under maxSize) the releases due by then leave
 * room for it, and holding its instances overruns no approved booking's window (booking-wait.ts, the
 * decision's rule); its attempt takes `duration`. A release never lowers the replicas below minSize,
 * and one due during an attempt waits for it (one change at a time). Returns one verdict per queued
 * request, in order; a reason string once nothing is known.
 */
/** What a queued request is checked against for bookings at one moment of the replay (or now). */
export interface BookingState {
  readonly group: InstanceGroupManager;
  /** The replicas at that moment. */
  readonly replicas: number;
  /** The releases still ahead then. */
  readonly releases: readonly PendingRelease[];
  readonly bookings: readonly FutureReservation[] | undefined;
  readonly delivered: ReadonlySet<string> | undefined;
}

/**
 * Whether `request`, fitting under maxSize at `start`, must wait for a booking (booking-wait.ts), with
 * what the group holds then: the replicas going down at the releases ahead.
 */
export function bookingWaitAt(
  b: BookingState,
  request: ResizeRequest,
  start: number,
): BookingWait | undefined {
  if (!b.bookings?.length) return undefined;
  const { minSize, maxSize } = b.group.spec;
  const delivery = deliveryOf(request.metadata.name ?? "", claimedDelivery(request.metadata), b.bookings);
  const releases = b.releases.map((r) => ({
    until: r.time,
    size: r.size,
    holder: `ResizeRequest ${r.request}`,
  }));
  return bookingWait({
    maxSize,
    held: levelHolds(b.replicas, releases, minSize, start),
    bookings: b.bookings,
    size: sizeOf(request),
    window: holdWindow(
      start,
      request.spec.requestedRunDuration,
      groupDurations(b.group.spec).provisioningTimeoutMs,
      delivery,
    ),
    delivers: delivery?.booking,
    delivered: b.delivered ?? new Set(),
  });
}

export function replay(args: ReplayInput): Replayed[] {
  const { maxSize, minSize } = args.group.spec;
  const releases = [...args.releases];
  const delivered = new Set(args.delivered);
  let replicas = args.replicas;
  let free = args.busyUntil;
  let unknown: string | undefined;
  /** Applies, in time order, the releases due by `time`. */
  const releaseUntil = (time: number): void => {
    releases.sort((a, b) => a.time - b.time);
    while ((releases[0]?.time ?? Infinity) <= time) {
      const r = releases.shift();
      if (r) replicas = releaseTarget(replicas, r.size, minSize);
    }
  };
  const forBooking = (request: ResizeRequest, start: number): BookingWait | undefined =>
    bookingWaitAt(
      { group: args.group, replicas, releases, bookings: args.bookings, delivered },
      request,
      start,
    );
  return args.queue.map((request): Replayed => {
    if (unknown !== undefined) return unknown;
    const k = sizeOf(request);
    let start = Math.max(free, nextAttemptAt(request.status?.nextAttemptTime));
    releaseUntil(start);
    for (;;) {
      while (!fitsUnderMax(replicas, k, maxSize)) {
        const next = releases[0];
        if (!next) {
          unknown = `capacity is held by replicas no scheduled release frees (${replicas} of maxSize ${maxSize ?? ""}, ${request.metadata.name ?? ""} needs ${k})`;
          return unknown;
        }
        start = Math.max(start, next.time);
        releaseUntil(start);
      }
      const wait = forBooking(request, start);
      if (!wait) break;
      if (wait.until === undefined || wait.until <= start) {
        unknown = `approved FutureReservations hold the group's capacity for the next 90 days (${request.metadata.name ?? ""} needs ${k})`;
        return unknown;
      }
      start = wait.until;
      releaseUntil(start);
    }
    replicas += k;
    free = start + args.duration;
    const run = request.spec.requestedRunDuration;
    const delivery = deliveryOf(
      request.metadata.name ?? "",
      claimedDelivery(request.metadata),
      args.bookings,
    );
    if (delivery) delivered.add(delivery.booking);
    // A delivery's instances go at its window's end (decide/attempt.ts), another's a run after it is ready.
    const until = run ? Math.min(free + durationToMillis(run), delivery?.windowEnd ?? Infinity) : undefined;
    if (until !== undefined) releases.push({ time: until, size: k, request: request.metadata.name ?? "" });
    return { start, time: free, approximate: args.approximate };
  });
}
