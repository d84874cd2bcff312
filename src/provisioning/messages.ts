// What a ProvisioningRequest's conditions say while its ResizeRequest waits, provisions or fails (pure).
// Kueue copies the Provisioned=False message onto the Workload's admission check, so a batch user sees
// the queue position and the ETA where they look. They are as of the message's write: it is written on
// a transition and when the ETA moves materially, not at every queue move (rewrite.ts). An ETA is given
// to the second when exact and to the minute when estimated.
import type { ResizeRequest } from "../api/resize-request.js";
import { rfc3339Seconds } from "../api/time.js";
import { messageOf } from "../controllers/errors.js";
import type { Eta, RequestInsight } from "../queue/insight.js";
import { waitingForSentence } from "../queue/text.js";
import { failedReason, waitingReason, type Reason } from "./reasons.js";

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
