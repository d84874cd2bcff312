// Every event the booking controller emits on a FutureReservation, one per transition, declared once;
// docs/events.md renders this table.
import { defineEventCatalog } from "../events/catalog.js";

export const bookingEvents = defineEventCatalog({
  BookingApproved: {
    type: "Normal",
    reason: "Approved",
    action: "Approve",
    when: "A FutureReservation was APPROVED: its group has room for it for the whole window, against maxSize, every other approved booking and the running requests' releases. Queued ResizeRequests may not take that capacity; its instances are delivered from the window's start minus the lead time.",
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
    when: "A FutureReservation pending approval, approved or being delivered was cancelled (spec.cancel): CANCELLED, its window holds no capacity any more, and a delivery request not yet succeeded is cancelled.",
  },
  BookingProvisioning: {
    type: "Normal",
    reason: "Provisioning",
    action: "Deliver",
    when: "A FutureReservation's delivery started, the lead time before its window: its ResizeRequest fr-<name> was created (PROVISIONING).",
  },
  BookingFulfilled: {
    type: "Normal",
    reason: "Fulfilled",
    action: "Deliver",
    when: "Every instance of a FutureReservation is ready: its delivery request SUCCEEDED (FULFILLED). The note names the label that selects them.",
  },
  BookingFailed: {
    type: "Warning",
    reason: "DeliveryFailed",
    action: "Deliver",
    when: "A FutureReservation could not be delivered (FAILED): its delivery request failed, or at the window's start it was backing off from a failed attempt (a stockout) and was cancelled.",
  },
  BookingReleasedOnCancel: {
    type: "Normal",
    reason: "ReleasedOnCancel",
    action: "Release",
    when: "A FutureReservation was cancelled after its delivery request SUCCEEDED (it was FULFILLED): the request's run ends now rather than at the window's end, and exactly its own instances are released (condition Ended=True).",
  },
  BookingEnded: {
    type: "Normal",
    reason: "WindowEnded",
    action: "Release",
    when: "A FULFILLED FutureReservation's window ended: its delivery request's run ends with it and its instances are released (condition Ended=True).",
  },
});
