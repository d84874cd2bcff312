// What a ProvisioningRequest's conditions say while its ResizeRequest waits, provisions or fails (pure).
// Kueue copies the Provisioned=False message onto the Workload's admission check, so a batch user sees
// the queue position and the ETA where they look. The message is written only when it changes: an ETA
// is given to the second when exact and to the minute when estimated, so that it does not move on
// every pass.
import { ErrorCode } from "../api/errors.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { rfc3339Seconds } from "../api/time.js";
import { messageOf } from "../controller/errors.js";
import type { Eta, RequestInsight } from "../queue/insight.js";
import { waitingForSentence } from "../queue/text.js";

const isoMinute = (ms: number): string =>
  rfc3339Seconds(Math.ceil(ms / 60_000) * 60_000).replace(/:00Z$/, "Z");

export function etaPhrase(eta: Eta): string {
  switch (eta.basis) {
    case "exact":
      return `ETA ${rfc3339Seconds(eta.time)} (exact)`;
    case "estimated":
      return `ETA about ${isoMinute(eta.time)} (estimated)`;
    case "unknown":
      return `ETA unknown: ${eta.reason}`;
  }
}

/** Provisioned=False while the ResizeRequest is not final: Queued or Provisioning, with position and ETA. */
export function waitingMessage(
  rr: ResizeRequest,
  insight: RequestInsight | undefined,
  queueLength: number,
): { readonly reason: "Queued" | "Provisioning"; readonly message: string } {
  const where = `${rr.metadata.namespace ?? ""}/${rr.spec.instanceGroupManager}`;
  const size = rr.spec.resizeBy ?? 0;
  if (!insight)
    return { reason: "Queued", message: `Queued for ${size} instances of InstanceGroupManager ${where}.` };
  const waiting = waitingForSentence(insight.waitingFor, rfc3339Seconds);
  if (insight.waitingFor.kind === "Attempt")
    return {
      reason: "Provisioning",
      message: `Provisioning ${size} instances of InstanceGroupManager ${where}: waiting for ${lower(waiting)} ${etaPhrase(insight.eta)}.`,
    };
  return {
    reason: "Queued",
    message: `Queued at position ${insight.position} of ${queueLength} for ${size} instances of InstanceGroupManager ${where}; waiting for ${lower(waiting)} ${etaPhrase(insight.eta)}.${insight.missesDeadline ? " The queue deadline comes before the expected start: it fails then unless the queue moves faster." : ""}`,
  };
}

const lower = (sentence: string): string => sentence.charAt(0).toLowerCase() + sentence.slice(1);

/** Failed=True after the ResizeRequest failed or was cancelled: a reason per error code, its message. */
export function failureOf(rr: ResizeRequest): { readonly reason: string; readonly message: string } {
  const where = `ResizeRequest ${rr.metadata.namespace ?? ""}/${rr.metadata.name ?? ""}`;
  if (rr.status?.state === "CANCELLED")
    return {
      reason: "ResizeRequestCancelled",
      message: `${where} was cancelled before its capacity was provisioned.`,
    };
  const error = rr.status?.error;
  const code = error?.errors[0]?.code;
  const reason =
    code === ErrorCode.QUOTA_EXCEEDED
      ? "QuotaExceeded"
      : code === ErrorCode.DEADLINE_EXCEEDED
        ? "QueueDeadlineExceeded"
        : code === ErrorCode.RESOURCE_NOT_FOUND
          ? "InstanceGroupManagerNotFound"
          : "ResizeRequestFailed";
  return { reason, message: `${where} failed: ${error ? messageOf(error) : "no error recorded"}` };
}
