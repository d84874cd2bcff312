// A group's bookings as its timeline on the dashboard shows them (pure): the summary the JSON API and
// the live stream carry, and which of them are on a group's timeline at a moment. The browser UI loads
// this module too (bookingsOnTimeline): type imports only here (test/unit/dashboard/ui-imports.test.ts).
import type { ProcurementStatusName } from "../api/future-reservation.js";

export interface BookingSummary {
  readonly namespace: string;
  readonly name: string;
  readonly group: string;
  readonly count: number;
  /** The window (RFC 3339), as resolved by the controller, or as asked before it has. */
  readonly start: string;
  /** Null only when the spec's window cannot be resolved (the API server's CEL rules forbid it). */
  readonly end: string | null;
  /** PENDING_APPROVAL until the controller decides it. */
  readonly status: ProcurementStatusName;
  /** Why approved or declined; a declined one names the earliest window that fits. */
  readonly message: string | null;
  /** Of a declined booking: the earliest window of the same length that fits. */
  readonly suggested: { readonly start: string; readonly end: string } | null;
  /** The ResizeRequest that delivers it (`fr-<name>`), created the lead time before its start. */
  readonly delivery: string;
  /** The controller's condition Ended (a FULFILLED booking whose window has ended). */
  readonly ended: boolean;
  readonly cancelRequested: boolean;
  readonly description: string | null;
  readonly created: string | null;
}

/** Whether a booking is over at `now`: its window ended, as the controller says or by the clock. */
export function bookingOver(b: BookingSummary, now: number): boolean {
  return b.ended || (b.end !== null && Date.parse(b.end) <= now);
}

/**
 * The bookings on the timeline of group `namespace/group` at `now`: those ahead and the one in its
 * window, whatever their status; ended ones drop off, as finished requests leave the queue. By start,
 * then name, so the rows do not move on updates.
 */
export function bookingsOnTimeline(
  bookings: Iterable<BookingSummary>,
  namespace: string,
  group: string,
  now: number,
): BookingSummary[] {
  return [...bookings]
    .filter((b) => b.namespace === namespace && b.group === group && !bookingOver(b, now))
    .sort((a, b) => Date.parse(a.start) - Date.parse(b.start) || a.name.localeCompare(b.name));
}
