// A ProvisioningRequest's conditions in one module, as cluster-autoscaler's conditions.go keeps them:
// the reasons (GKE's words where the situation is GKE's), the messages, and the Events of their changes.
//
// Reasons: the condition reasons a ProvisioningRequest of our class carries, in one table (pure). Where the
// situation is the same as in GKE's queued provisioning (GoogleCloudPlatform/cluster-autoscaler,
// pkg/provisioningrequests), the reason is GKE's word for it, so that alerts and tools written for
// `queued-provisioning.gke.io` keep working with only the class name changed; where GKE has no such
// situation (a queue position, a group's consent, the ResizeRequest's owner checks), the reason is ours.
// docs/kueue.md lists them beside GKE's and cluster-autoscaler's.
// Events: every event the provisioner emits on a ProvisioningRequest, one per condition change, declared once;
// docs/events.md renders this table.
// Messages: what a ProvisioningRequest's conditions say while its ResizeRequest waits, provisions or fails (pure).
// Kueue copies the Provisioned=False message onto the Workload's admission check, so a batch user sees
// the queue position and the ETA where they look. They are as of the message's write: it is written on
// a transition and when the ETA moves materially, not at every queue move (rewrite.ts). An ETA is given
// to the second when exact and to the minute when estimated.
import { ErrorCode } from "../../api/errors.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import { PROVISIONING_CLASS } from "../../api/provisioning-request.js";
import { defineEventCatalog } from "../../events/catalog.js";
import { rfc3339Seconds } from "../../api/time.js";
import { messageOf } from "../errors.js";
import type { Eta, RequestInsight } from "../../queue/insight.js";
import { waitingForSentence } from "../../queue/text.js";

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

/**
 * A known ETA as it is shown, in the message and in provisioningClassDetails alike: an exact one to the
 * second, an estimated one rounded up to the minute (so that it does not move on every pass).
 */
export function shownEta(eta: Exclude<Eta, { basis: "unknown" }>): {
  readonly kind: "exact" | "estimated";
  readonly time: string;
} {
  return eta.basis === "exact"
    ? { kind: "exact", time: rfc3339Seconds(eta.time) }
    : { kind: "estimated", time: rfc3339Seconds(Math.ceil(eta.time / 60_000) * 60_000) };
}

export function etaPhrase(eta: Eta): string {
  if (eta.basis === "unknown") return `ETA unknown: ${eta.reason}`;
  const { kind, time } = shownEta(eta);
  return kind === "exact" ? `ETA ${time} (exact)` : `ETA about ${time.replace(/:00Z$/, "Z")} (estimated)`;
}

/** Said while the ETA comes after the queue deadline; its appearing or going is worth a rewrite. */
export const LATE_WARNING =
  "The queue deadline comes before the expected start: it fails then unless the queue moves faster.";

/** Provisioned=False while the ResizeRequest is not final: Queued or Provisioning, with position and ETA. */
export function waitingMessage(
  rr: ResizeRequest,
  insight: RequestInsight | undefined,
  queueLength: number,
): { readonly reason: Reason; readonly message: string } {
  const where = `${rr.metadata.namespace ?? ""}/${rr.spec.instanceGroupManager}`;
  const size = rr.spec.resizeBy ?? 0;
  if (!insight)
    return {
      reason: waitingReason(rr, false),
      message: `Queued for ${size} instances of InstanceGroupManager ${where}.`,
    };
  const waiting = waitingForSentence(insight.waitingFor, rfc3339Seconds);
  if (insight.waitingFor.kind === "Attempt")
    return {
      reason: waitingReason(rr, true),
      message: `Provisioning ${size} instances of InstanceGroupManager ${where}: waiting for ${lower(waiting)} ${etaPhrase(insight.eta)}.`,
    };
  return {
    reason: waitingReason(rr, false),
    message: `Queued at position ${insight.position} of ${queueLength} for ${size} instances of InstanceGroupManager ${where}; waiting for ${lower(waiting)} ${etaPhrase(insight.eta)}.${insight.missesDeadline ? ` ${LATE_WARNING}` : ""}`,
  };
}

const lower = (sentence: string): string => sentence.charAt(0).toLowerCase() + sentence.slice(1);

/** Failed=True after the ResizeRequest failed or was cancelled: a reason per error code, its message. */
export function failureOf(rr: ResizeRequest): { readonly reason: Reason; readonly message: string } {
  const where = `ResizeRequest ${rr.metadata.namespace ?? ""}/${rr.metadata.name ?? ""}`;
  const reason = failedReason(rr);
  if (rr.status?.state === "CANCELLED")
    return { reason, message: `${where} was cancelled before its capacity was provisioned.` };
  const error = rr.status?.error;
  return { reason, message: `${where} failed: ${error ? messageOf(error) : "no error recorded"}` };
}

/**
 * The one answer to a request naming another namespace's group that does not exist or does not allow
 * the request's namespace: the two cases read the same, so the parameter is no oracle for which groups
 * exist elsewhere or what their owners allow.
 */
export function unavailableGroupMessage(key: string, namespace: string): string {
  return `InstanceGroupManager ${key} (parameter instanceGroupManager) does not exist or does not serve ProvisioningRequests of namespace ${namespace}: a group of another namespace serves them only once its owner allows the namespace in spec.provisioningRequests.namespaces.`;
}
