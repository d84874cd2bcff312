// The head of a group's queue against the group's approved bookings (docs/booking.md "Queue holds"):
// what the group holds from now on — the target's replicas going down at the running requests'
// releases — and the bookings' windows, asked of queue/booking-wait.ts, the rule the replay of the
// queue (the ETA) applies at each predicted start and the booking controller approves with.
import { rfc3339Seconds } from "../../../api/time.js";
import { FUTURE_RESERVATION_LABEL } from "../../../api/future-reservation.js";
import {
  bookingWait,
  deliveredBookings,
  deliveryOf,
  holdWindow,
  type BookingWait,
  type Delivery,
} from "../../../queue/booking-wait.js";
import { levelHolds, releaseOf, type HoldingRequest, type Release } from "../../../queue/bookings.js";
import { sizeOf } from "../../../queue/rules.js";
import type { RequestView } from "../../../cache/request-view.js";
import type { GroupSnapshot } from "../snapshot.js";

/** The reason of a head waiting for a booking's window. */
export const WAITING_FOR_BOOKING = "WaitingForFutureReservation";

/** A request view as the holds model reads it (a deleted request's instances stay). */
const holding = (r: RequestView): HoldingRequest & { metadata: { labels?: Record<string, string> } } => ({
  metadata: {
    name: r.name,
    ...(r.deleting && { deletionTimestamp: r.creationTimestamp }),
    ...(r.delivery && { labels: { [FUTURE_RESERVATION_LABEL]: r.delivery.booking } }),
  },
  spec: r.spec,
  status: r.status,
});

/** The booking `r` delivers, its claim held against the group's bookings (queue/booking-wait.ts). */
export const deliveryOfView = (r: RequestView, s: GroupSnapshot): Delivery | undefined =>
  deliveryOf(r.name, r.delivery, s.bookings);

/** Whether the head `r`, starting now at `replicas`, must wait for a booking; undefined when none is in its way. */
export function headBookingWait(r: RequestView, s: GroupSnapshot, replicas: number): BookingWait | undefined {
  const group = s.group;
  if (!group || !s.bookings?.length) return undefined;
  const delivery = deliveryOfView(r, s);
  const releases = s.requests.flatMap((v): Release[] => {
    const until = releaseOf(holding(v), s.nowMs, group.provisioningTimeoutMs);
    return until === undefined ? [] : [{ until, size: sizeOf(v), holder: `ResizeRequest ${v.name}` }];
  });
  return bookingWait({
    maxSize: group.maxSize,
    held: levelHolds(replicas, releases, group.minSize, s.nowMs),
    bookings: s.bookings,
    size: sizeOf(r),
    window: holdWindow(s.nowMs, r.spec.requestedRunDuration, group.provisioningTimeoutMs, delivery),
    delivers: delivery?.booking,
    delivered: deliveredBookings(s.requests.map(holding), s.nowMs, group.provisioningTimeoutMs),
  });
}

/** The waiting head's message: the booking it waits for, and from when it fits. */
export function bookingWaitMessage(w: BookingWait, size: number, groupName: string): string {
  const until =
    w.until === undefined
      ? "no start within 90 days leaves room for it"
      : `it can start at ${rfc3339Seconds(w.until)}`;
  return `Waiting for FutureReservation ${w.booking} until ${w.until === undefined ? "its window ends" : rfc3339Seconds(w.until)}: ${size} more instances held for this request's run would exceed group ${groupName}'s maxSize during the booking's window; ${until}.`;
}
