// The condition reasons a ProvisioningRequest of our class carries, in one table (pure). Where the
// situation is the same as in GKE's queued provisioning (GoogleCloudPlatform/cluster-autoscaler,
// pkg/provisioningrequests), the reason is GKE's word for it, so that alerts and tools written for
// `queued-provisioning.gke.io` keep working with only the class name changed; where GKE has no such
// situation (a queue position, a group's consent, the ResizeRequest's owner checks), the reason is ours.
// docs/kueue.md lists them beside GKE's and cluster-autoscaler's.
import { ErrorCode } from "../api/errors.js";
import type { ResizeRequest } from "../api/resize-request.js";

export const Reason = {
  // ---- GKE's words, for the same situation ----
  /** Accepted=True: sized, placed and queued (GKE: SuccessfullyQueued). */
  Accepted: "SuccessfullyQueued",
  /** Provisioned=True. */
  Provisioned: "Provisioned",
  /** BookingExpired=True: no pod consumed the capacity within the booking window. */
  BookingExpired: "BookingExpired",
  /** CapacityRevoked=True: the run duration (maxRunDurationSeconds) ended and the capacity was released. */
  CapacityRevoked: "CapacityRevoked",
  /** Failed: not provisioned within ValidUntilSeconds, or within the ResizeRequest's queue deadline. */
  WaitTimeExceeded: "WaitTimeExceeded",
  /** Provisioned=False: the last attempt's new instances could not be scheduled (a capacity shortfall). */
  ResourcePoolExhausted: "ResourcePoolExhausted",
  /** Failed: the request needs more instances than the group's maxSize allows (GKE: max node pool size). */
  NodepoolSizeReached: "NodepoolSizeReached",
  /** Failed: a pod set's PodTemplate does not exist. */
  MissingPodTemplates: "MissingPodTemplates",
  /** Failed: the ResizeRequest serving the request was deleted before it was provisioned. */
  MissingResizeRequest: "MissingResizeRequest",
  /** Failed: the ResizeRequest serving the request was cancelled before it was provisioned. */
  ResizeRequestCancelled: "InternalErrorResizeRequestGotCancelled",
  /** Failed: the group's target cannot be scaled (the ResizeRequest's UNSUPPORTED_OPERATION). */
  UnsupportedOperation: "UnsupportedOperation",
  /** Failed: no group serves the request's namespace (GKE: no queued node pool is available). */
  NoGroupAvailable: "NoQueuedNodepoolAvailable",
  /** Failed: the request's pods fit the instances of no group that serves its namespace, or not the named group's. */
  NotSchedulableInGroup: "ProvisioningRequestNotSchedulableInNodepool",
  // ---- ours: GKE has no such situation ----
  /** Provisioned=False: waiting in the group's queue (the message has the position and the ETA). */
  Queued: "Queued",
  /** Provisioned=False: the ResizeRequest's attempt is in progress. */
  Provisioning: "Provisioning",
  InvalidParameters: "InvalidParameters",
  InvalidPodSets: "InvalidPodSets",
  PodTemplateNotOwned: "PodTemplateNotOwned",
  GroupNotFound: "GroupNotFound",
  NotAllowed: "NotAllowed",
  NoInstanceShape: "NoInstanceShape",
  ResizeRequestNotOwned: "ResizeRequestNotOwned",
  /** Failed: the group was deleted under its ResizeRequest (RESOURCE_NOT_FOUND). */
  InstanceGroupManagerNotFound: "InstanceGroupManagerNotFound",
  /** Provisioned=False: served from a booking (parameter futureReservation) not FULFILLED yet. */
  WaitingForFutureReservationWindow: "WaitingForFutureReservationWindow",
  /** Failed: the booking the futureReservation parameter names does not exist (or was deleted). */
  FutureReservationNotFound: "FutureReservationNotFound",
  /** Failed: the booking is DECLINED, CANCELLED or FAILED, or its window ended, before it served the request. */
  FutureReservationNotUsable: "FutureReservationNotUsable",
  /** Failed: the booking is of another group than the instanceGroupManager parameter names. */
  FutureReservationGroupMismatch: "FutureReservationGroupMismatch",
  /** Failed: the request's pods need more instances than the booking's totalCount. */
  FutureReservationTooSmall: "FutureReservationTooSmall",
  /** Failed: the ResizeRequest failed with an error no reason above names. */
  ResizeRequestFailed: "ResizeRequestFailed",
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** Failed=True's reason for a ResizeRequest that reached FAILED or CANCELLED. */
export function failedReason(rr: ResizeRequest): Reason {
  if (rr.status?.state === "CANCELLED") return Reason.ResizeRequestCancelled;
  switch (rr.status?.error?.errors[0]?.code) {
    case ErrorCode.QUOTA_EXCEEDED:
      // Our QUOTA_EXCEEDED is the group's maxSize (quotaInfo limitName maxSize): GKE's node pool size.
      return Reason.NodepoolSizeReached;
    case ErrorCode.DEADLINE_EXCEEDED:
      return Reason.WaitTimeExceeded;
    case ErrorCode.RESOURCE_NOT_FOUND:
      return Reason.InstanceGroupManagerNotFound;
    case ErrorCode.UNSUPPORTED_OPERATION:
      return Reason.UnsupportedOperation;
    default:
      return Reason.ResizeRequestFailed;
  }
}

/**
 * Provisioned=False's reason while the ResizeRequest waits or provisions: Provisioning during its
 * attempt; ResourcePoolExhausted while it waits after an attempt whose pods could not be scheduled (GKE
 * reports its last attempt's error there too); Queued otherwise.
 */
export function waitingReason(rr: ResizeRequest, attempting: boolean): Reason {
  if (attempting) return Reason.Provisioning;
  const exhausted = rr.status?.lastAttempt?.error?.errors.some(
    (e) => e.code === ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED,
  );
  return exhausted ? Reason.ResourcePoolExhausted : Reason.Queued;
}
