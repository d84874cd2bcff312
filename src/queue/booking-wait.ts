// Queue holds (docs/booking.md "Queue holds"): a queued request may start only if it fits under
// maxSize for as long as it will hold its instances, against what the group holds and every approved
// booking's window — the same `fits` over the same holds the booking controller approves with
// (bookings.ts), so a booking approved is never overrun by a request started after it. Pure; the
// decision (src/controllers/resize/decide/queue.ts) asks it of the head now, the replay (replay.ts) of each
// queued request at its predicted start, so the ETA and the admission agree.
import { durationToMillis, type Duration } from "../api/duration.js";
import {
  FUTURE_RESERVATION_LABEL,
  WINDOW_END_ANNOTATION,
  type FutureReservation,
} from "../api/future-reservation.js";
import {
  bookingHolds,
  bookingWindow,
  earliestFit,
  holdsCapacity,
  fits,
  releaseOf,
  steps,
  type Hold,
  type HoldingRequest,
  type Schedule,
  type Window,
} from "./bookings.js";

/** A booking's window as a hold: who holds it is `FutureReservation <name>`. */
const BOOKING_HOLDER = "FutureReservation ";

/** What a request says of the booking it delivers (labels and annotations of the booking controller). */
export interface Delivery {
  /** The booking it delivers: its hold is the request's own. */
  readonly booking: string;
  /** The end of that booking's window, ms: the request's instances go then. */
  readonly windowEnd: number;
}

/** The name the booking controller gives a booking's delivery request: `fr-` and the booking's name, cut to 63. */
export function deliveryName(booking: string): string {
  return `fr-${booking}`.slice(0, 63).replace(/-+$/, "");
}

/** What a request's label and annotation claim it delivers; undefined for any other request. */
export function claimedDelivery(metadata: {
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}): Delivery | undefined {
  const booking = metadata.labels?.[FUTURE_RESERVATION_LABEL];
  if (booking === undefined) return undefined;
  const windowEnd = Date.parse(metadata.annotations?.[WINDOW_END_ANNOTATION] ?? "");
  return { booking, windowEnd: Number.isFinite(windowEnd) ? windowEnd : Infinity };
}

/**
 * The booking request `name` delivers, if its claim holds: the label names a booking of the group that
 * holds capacity and is not cancelled, and the request has the name the booking controller gives its
 * delivery. A label alone does not let a request skip the queue or a booking's hold. Its instances go
 * at the booking's window's end at the latest, whatever the annotation says.
 */
export function deliveryOf(
  name: string,
  claimed: Delivery | undefined,
  bookings: readonly FutureReservation[] | undefined,
): Delivery | undefined {
  if (!claimed || name !== deliveryName(claimed.booking)) return undefined;
  const b = bookings?.find((x) => x.metadata.name === claimed.booking);
  const w = b && holdsCapacity(b) && !b.spec.cancel ? bookingWindow(b) : undefined;
  return w && { booking: claimed.booking, windowEnd: Math.min(claimed.windowEnd, w.end) };
}

/**
 * Order of a group's queue: a booking's delivery goes first (its capacity was set aside when the booking
 * was approved, and a request waiting for that booking's window to end must not keep it from starting),
 * then first come, first served. Stable: use it on a FIFO-sorted list.
 */
export function deliveriesFirst<T>(queue: readonly T[], delivery: (r: T) => Delivery | undefined): T[] {
  return [
    ...queue.filter((r) => delivery(r) !== undefined),
    ...queue.filter((r) => delivery(r) === undefined),
  ];
}

/**
 * How long a request starting at `start` holds its instances: its run duration plus the provisioning
 * timeout (an attempt may take that long to succeed), for ever without a run duration; a delivery until
 * its window's end.
 */
export function holdWindow(
  start: number,
  run: Duration | undefined,
  provisioningTimeoutMs: number,
  delivery: Delivery | undefined,
): Window {
  if (delivery) return { start, end: Math.max(start, delivery.windowEnd) };
  return { start, end: run ? start + provisioningTimeoutMs + durationToMillis(run) : Infinity };
}

/** A queued request that may not start yet for a booking: which one, and when it can start (undefined: not within 90 days). */
export interface BookingWait {
  readonly booking: string;
  readonly until: number | undefined;
}

export interface BookingCheck {
  readonly maxSize: number | undefined;
  /** What the group holds from the start on, bookings left out (bookings.ts levelHolds). */
  readonly held: readonly Hold[];
  /** The group's bookings, any state: those holding capacity count (bookings.ts bookingHolds). */
  readonly bookings: readonly FutureReservation[];
  readonly size: number;
  /** The span it would hold its instances (holdWindow). */
  readonly window: Window;
  /** The booking it delivers, if any: that booking's hold is its own, not one to wait for. */
  readonly delivers: string | undefined;
  /** The bookings whose delivery holds their instances already (deliveredBookings). */
  readonly delivered: ReadonlySet<string>;
}

/**
 * The bookings whose delivery request holds instances now (releaseOf defined): their instances are
 * counted as that request's, so their window is not counted a second time.
 */
export function deliveredBookings(
  requests: readonly (HoldingRequest & {
    readonly metadata: { readonly labels?: Readonly<Record<string, string>> };
  })[],
  now: number,
  provisioningTimeoutMs: number,
): Set<string> {
  return new Set(
    requests.flatMap((r) => {
      const booking = r.metadata.labels?.[FUTURE_RESERVATION_LABEL];
      const named = booking !== undefined && r.metadata.name === deliveryName(booking);
      return named && releaseOf(r, now, provisioningTimeoutMs) !== undefined ? [booking] : [];
    }),
  );
}

/** The holds of the bookings other than the one a request delivers and those delivered already. */
export function otherBookingHolds(
  bookings: readonly FutureReservation[],
  delivers: string | undefined,
  delivered: ReadonlySet<string>,
): Hold[] {
  return bookingHolds(
    bookings.filter((b) => delivers === undefined || b.metadata.name !== delivers),
    delivered,
  );
}

/**
 * The booking whose window overflows maxSize first with `size` more instances held over `w`: of the
 * bookings held at the first moment of overflow, the one that started last (the one that tipped it).
 */
function culprit(schedule: Schedule, w: Window, size: number): string {
  const maxSize = schedule.maxSize ?? Infinity;
  const levels = steps(schedule.holds);
  const first = levels.find(
    (s, i) => s.level + size > maxSize && (levels[i + 1]?.at ?? Infinity) > w.start && s.at < w.end,
  );
  const at = Math.max(first?.at ?? w.start, w.start);
  const held = schedule.holds
    .filter((h) => h.holder.startsWith(BOOKING_HOLDER) && h.from <= at && at < h.until)
    .sort((a, b) => b.from - a.from);
  const booking = held[0] ?? schedule.holds.find((h) => h.holder.startsWith(BOOKING_HOLDER));
  return booking?.holder.slice(BOOKING_HOLDER.length) ?? "";
}

/**
 * Whether the request must wait for a booking: undefined when it fits for its whole hold window (or
 * no booking is in its way — the group's own room is headHold's "Capacity"), otherwise the booking and
 * the earliest start at which it fits (bookings.ts earliestFit).
 */
export function bookingWait(c: BookingCheck): BookingWait | undefined {
  const others = otherBookingHolds(c.bookings, c.delivers, c.delivered);
  if (others.length === 0) return undefined;
  const schedule: Schedule = { maxSize: c.maxSize, holds: [...c.held, ...others] };
  if (fits(schedule, c.window, c.size)) return undefined;
  const fit = earliestFit(schedule, c.window.end - c.window.start, c.size, c.window.start);
  return { booking: culprit(schedule, c.window, c.size), until: fit?.start };
}
