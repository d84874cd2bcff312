// The booking of a provisioned request (pure): when it ends, computed once per pass by observation and
// read by the decision, which sets BookingExpired at that moment unless a pod consumes the capacity.
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { DEFAULT_BOOKING_WINDOW } from "../../api/instance-shape.js";
import { parseKubeDuration } from "../../api/duration.js";
import { ProvisioningCondition as C, type PrCondition } from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import type { ParsedParameters } from "./parameters.js";

const DEFAULT_WINDOW_MS = 600_000;

/**
 * When the booking of a request served by `rr` ends: Provisioned=True's transition (or `nowMs`, for a
 * request provisioned by this very pass) plus the window — the request's bookingWindow parameter, else
 * its group's, else 10 minutes. Undefined once it expired or the capacity was released.
 */
export function bookingEndsAt(
  conditions: readonly PrCondition[] | undefined,
  parameters: ParsedParameters,
  group: InstanceGroupManager | undefined,
  rr: ResizeRequest,
  nowMs: number,
): number | undefined {
  const isTrue = (type: string): boolean =>
    conditions?.some((c) => c.type === type && c.status === "True") ?? false;
  if (isTrue(C.BookingExpired) || rr.status?.release !== undefined) return undefined;
  const provisioned = conditions?.find((c) => c.type === C.Provisioned && c.status === "True");
  const since = Date.parse(provisioned?.lastTransitionTime ?? "") || nowMs;
  if (parameters.ok && parameters.value.bookingWindowMs !== undefined)
    return since + parameters.value.bookingWindowMs;
  return (
    since +
    (parseKubeDuration(group?.spec.provisioningRequests?.bookingWindow ?? DEFAULT_BOOKING_WINDOW) ??
      DEFAULT_WINDOW_MS)
  );
}
