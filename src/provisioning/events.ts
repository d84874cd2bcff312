// Every event the provisioner emits on a ProvisioningRequest, one per condition change, declared once;
// docs/events.md renders this table.
import { PROVISIONING_CLASS } from "../api/provisioning-request.js";
import { defineEventCatalog } from "../events/catalog.js";

export const provisioningEvents = defineEventCatalog({
  ProvisioningAccepted: {
    type: "Normal",
    reason: "Accepted",
    action: "CreateResizeRequest",
    when: `A ProvisioningRequest of class ${PROVISIONING_CLASS} was sized and placed: its ResizeRequest was created (Accepted=True, Provisioned=False with the queue position and ETA), or, naming a FutureReservation, it is served from that booking's delivery (Provisioned=False until the booking is FULFILLED).`,
  },
  UnknownParameters: {
    type: "Warning",
    reason: "UnknownParameters",
    action: "CreateResizeRequest",
    when: "A ProvisioningRequest was accepted with parameter keys the provisioner does not know: they are ignored (named here and in the Accepted condition's message), unless its group sets provisioningRequests.strictParameters, which fails the request instead.",
  },
  ProvisioningStarted: {
    type: "Normal",
    reason: "Provisioning",
    action: "Provision",
    when: "The ResizeRequest of a ProvisioningRequest started its provisioning attempt (Provisioned=False, reason Provisioning).",
  },
  Provisioned: {
    type: "Normal",
    reason: "Provisioned",
    action: "Provision",
    when: "All instances of the ProvisioningRequest's ResizeRequest, or of the FutureReservation serving it, are ready (Provisioned=True, provisioningClassDetails set in the same write).",
  },
  ProvisioningFailed: {
    type: "Warning",
    reason: "Failed",
    action: "Provision",
    when: "The ProvisioningRequest can never be served (invalid parameters, ValidUntilSeconds elapsed before provisioning, a pod template missing or owned by something else, no group whose owner allows its namespace, pods that fit no instance, QUOTA_EXCEEDED, a queue deadline, its group or ResizeRequest gone, a ResizeRequest in its place that the provisioner did not make, a FutureReservation named by the futureReservation parameter missing, unusable or too small); Failed=True says why. Never after Provisioned.",
  },
  BookingExpired: {
    type: "Warning",
    reason: "BookingExpired",
    action: "Book",
    when: "No pod consumed the provisioned capacity within the booking window (BookingExpired=True); Kueue retries a workload that was not admitted.",
  },
  CapacityRevoked: {
    type: "Normal",
    reason: "CapacityRevoked",
    action: "Release",
    when: "The run duration (maxRunDurationSeconds, else the group's defaultMaxRunDuration) elapsed, or the window of the FutureReservation serving the request ended, and the instances were released (CapacityRevoked=True); Kueue deactivates a workload still running.",
  },
  ResizeRequestCancelled: {
    type: "Normal",
    reason: "ResizeRequestCancelled",
    action: "Cancel",
    when: "The ProvisioningRequest was deleted (or failed) before it was provisioned, so its ResizeRequest was cancelled and its queued or partial capacity rolled back.",
  },
});
