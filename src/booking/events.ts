// Every event the booking controller emits on a FutureReservation, one per transition, declared once;
// docs/events.md renders this table.
import { defineEventCatalog } from "../events/catalog.js";

export const bookingEvents = defineEventCatalog({
  BookingApproved: {
    type: "Normal",
    reason: "Approved",
    action: "Approve",
    when: "A FutureReservation was APPROVED: its group has room for it for the whole window, against maxSize, every other approved booking and the running requests' releases. Its instances are not delivered yet (docs/booking.md).",
  },
  BookingDeclined: {
    type: "Warning",
    reason: "Declined",
    action: "Approve",
    when: "A FutureReservation was DECLINED: its group has no room for the window (or the window has started, or the count exceeds maxSize); the note names the earliest window of the same length that fits, or says none fits within 90 days.",
  },
  BookingWaitingForGroup: {
    type: "Warning",
    reason: "WaitingForGroup",
    action: "Approve",
    when: "A FutureReservation names a group that does not exist (GroupNotFound) or whose size is not known yet (GroupNotReady); it stays PENDING_APPROVAL (Approved=Unknown) and is decided once the group is there.",
  },
  BookingCancelled: {
    type: "Normal",
    reason: "Cancelled",
    action: "Cancel",
    when: "A FutureReservation pending approval or approved was cancelled (spec.cancel): CANCELLED, and its window holds no capacity any more.",
  },
});
