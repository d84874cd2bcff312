// Delivery of an approved booking (docs/booking.md "Delivery"): at its window's start minus the lead
// time, the booking controller creates one ResizeRequest for the booking's instances, whose run ends
// exactly at the window's end, and the booking follows it — PROVISIONING, FULFILLED, or FAILED when it
// cannot be delivered by the window's start — and says when the window has ended. Pure: the snapshot in,
// status changes, the request to create and the requests to cancel out; execute.ts carries them out.
import { ResizeRequestCondition } from "../api/conditions.js";
import {
  FUTURE_RESERVATION_LABEL,
  FutureReservationCondition as FC,
  WINDOW_END_ANNOTATION,
  type FutureReservation,
} from "../api/future-reservation.js";
import { isFinalState } from "../api/lifecycle.js";
import { API_VERSION, FUTURE_RESERVATION, RESIZE_REQUEST } from "../api/names.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { rfc3339, rfc3339Seconds } from "../api/time.js";
import type { Window } from "../queue/bookings.js";
import { deliveryName as deliveryNameOf } from "../queue/booking-wait.js";
import { attemptHistory } from "../queue/history.js";
import { bookingEvents as E } from "./events.js";
import type { Verdict } from "./verdict.js";

/** Lead time when the group has no successful attempt to go by: a minute. */
export const DEFAULT_LEAD_MS = 60_000;
/** The shortest lead time, whatever the group's attempts took. */
export const MIN_LEAD_MS = 10_000;

/**
 * How long before its window a booking's delivery starts: twice the median time the group's recent
 * successful attempts took to have every instance ready (a margin for a slower one), at least
 * MIN_LEAD_MS; DEFAULT_LEAD_MS when the group has none.
 */
export function leadTimeMs(requests: readonly ResizeRequest[]): number {
  const history = attemptHistory(requests);
  return history ? Math.max(MIN_LEAD_MS, 2 * history.attemptDurationMs) : DEFAULT_LEAD_MS;
}

/** The delivery request's name: `fr-` and the booking's name, cut to an RFC 1035 label (≤ 63). */
export const deliveryName = (b: Pick<FutureReservation, "metadata">): string =>
  deliveryNameOf(b.metadata.name ?? "");

/** The booking's delivery request among the group's requests, if it exists. */
export function deliveryOf(
  b: Pick<FutureReservation, "metadata">,
  requests: readonly ResizeRequest[],
): ResizeRequest | undefined {
  const name = deliveryName(b);
  return requests.find(
    (r) => r.metadata.name === name && r.metadata.labels?.[FUTURE_RESERVATION_LABEL] === b.metadata.name,
  );
}

/**
 * The ResizeRequest that delivers `b` at `now`: all its instances at once, run until the window's end
 * (the annotation makes that exact: decide/attempt.ts), owned by the booking (deleting the booking
 * deletes it; its instances then stay, as a deleted request's do).
 */
export function deliveryRequest(b: FutureReservation, w: Window, now: number): ResizeRequest {
  const name = b.metadata.name ?? "";
  return {
    apiVersion: API_VERSION,
    kind: RESIZE_REQUEST.kind,
    metadata: {
      name: deliveryName(b),
      namespace: b.metadata.namespace ?? "",
      labels: { [FUTURE_RESERVATION_LABEL]: name },
      annotations: { [WINDOW_END_ANNOTATION]: rfc3339(w.end) },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: FUTURE_RESERVATION.kind,
          name,
          uid: b.metadata.uid ?? "",
          controller: true,
        },
      ],
    },
    spec: {
      instanceGroupManager: b.spec.instanceGroupManager,
      resizeBy: b.spec.totalCount,
      cancel: false,
      requestedRunDuration: { seconds: String(Math.max(1, Math.ceil((w.end - now) / 1000))) },
      description: `Delivery of FutureReservation ${name}: ${b.spec.totalCount} instances from ${rfc3339Seconds(w.start)} to ${rfc3339Seconds(w.end)}.`,
    },
  };
}

/**
 * A CANCELLED booking whose delivery request SUCCEEDED (it was FULFILLED, or its delivery succeeded
 * before the cancel reached it: a succeeded request refuses a cancel) gives its instances back now
 * rather than at the window's end: the request's run is brought forward to end now, and the
 * run-duration release removes exactly its own instances (docs/lifecycle.md "Whose instances").
 * undefined when there is nothing left to release early: no such request, or its release already due
 * or under way (so a pass after the release decides nothing again).
 */
export function releaseOnCancel(
  b: FutureReservation,
  w: Window | undefined,
  d: ResizeRequest | undefined,
  now: number,
): Verdict | undefined {
  const s = d?.status;
  if (b.status?.procurementStatus !== "CANCELLED" || s?.state !== "SUCCEEDED" || s.release) return undefined;
  if (s.runUntil !== undefined && Date.parse(s.runUntil) <= now) return undefined;
  const end = w ? ` at ${rfc3339Seconds(w.end)}` : "";
  return {
    procurementStatus: "CANCELLED",
    condition: {
      type: FC.Ended,
      status: "True",
      reason: "ReleasedOnCancel",
      message: `Cancelled before the window's end${end}: ResizeRequest ${deliveryName(b)}'s ${b.spec.totalCount} instances are released now.`,
    },
    event: E.BookingReleasedOnCancel,
  };
}

/** What delivery asks of one booking now. */
export interface DeliveryStep {
  readonly verdict?: Verdict;
  /** Create the delivery request. */
  readonly create?: boolean;
  /** Cancel the delivery request (it is active and no longer wanted). */
  readonly cancel?: boolean;
  /** When this booking next needs a pass (ms since the epoch). */
  readonly wakeAt?: number;
}

const provisioning = (message: string): Verdict => ({
  procurementStatus: "PROVISIONING",
  condition: { type: FC.Delivered, status: "Unknown", reason: "Provisioning", message },
  event: E.BookingProvisioning,
});

const failed = (reason: string, message: string): Verdict => ({
  procurementStatus: "FAILED",
  condition: { type: FC.Delivered, status: "False", reason, message },
  event: E.BookingFailed,
});

/** Why the delivery request is where it is, for a failure's message. */
function whyNot(d: ResizeRequest | undefined): string {
  const s = d?.status;
  if (!s) return "";
  // The condition that says where it stands: failed, else still queued (waiting for capacity, a backoff).
  const said = [
    ResizeRequestCondition.Failed,
    ResizeRequestCondition.Cancelled,
    ResizeRequestCondition.Queued,
  ]
    .map((type) => s.conditions?.find((c) => c.type === type && c.status === "True"))
    .find((c) => c !== undefined);
  const error = s.lastAttempt?.error?.errors[0];
  const last = error ? `; last attempt: ${error.code}${error.message ? `: ${error.message}` : ""}` : "";
  return said || last ? ` (${said ? `${said.reason}: ${said.message}` : ""}${last})` : "";
}

/**
 * The delivery step of a booking that holds capacity (APPROVED, PROVISIONING or FULFILLED, not being
 * cancelled), given its delivery request `d` if it exists.
 */
export function deliveryStep(
  b: FutureReservation,
  w: Window,
  d: ResizeRequest | undefined,
  now: number,
  leadMs: number,
): DeliveryStep {
  const status = b.status?.procurementStatus;
  const request = deliveryName(b);
  const state = d?.status?.state;
  const active = d !== undefined && !isFinalState(state);
  const count = b.spec.totalCount;
  if (now >= w.end) {
    if (status === "FULFILLED")
      return {
        verdict: {
          procurementStatus: "FULFILLED",
          condition: {
            type: FC.Ended,
            status: "True",
            reason: "WindowEnded",
            message: `The window ended at ${rfc3339Seconds(w.end)}: ResizeRequest ${request}'s ${count} instances are released.`,
          },
          event: E.BookingEnded,
        },
        cancel: active,
      };
    return {
      verdict: failed(
        "NotDelivered",
        `The window ended at ${rfc3339Seconds(w.end)} without its ${count} instances delivered${whyNot(d)}.`,
      ),
      cancel: active,
    };
  }
  if (!d) {
    // A delivered request removed by hand: its instances stay (a deleted request's do) until removed.
    if (status === "FULFILLED") return { wakeAt: w.end };
    const at = w.start - leadMs;
    if (now < at && status === "APPROVED") return { wakeAt: at };
    return {
      verdict: provisioning(
        `Delivering ${count} instances through ResizeRequest ${request} (created ahead of the window's start at ${rfc3339Seconds(w.start)}; its instances go at ${rfc3339Seconds(w.end)}).`,
      ),
      create: true,
      wakeAt: w.start,
    };
  }
  if (state === "SUCCEEDED")
    return {
      verdict: {
        procurementStatus: "FULFILLED",
        condition: {
          type: FC.Delivered,
          status: "True",
          reason: "Fulfilled",
          message: `All ${count} instances are ready (ResizeRequest ${request}); they are released at ${rfc3339Seconds(w.end)}. Select them with the label compute.resize-operator.dev/resize-request=${request}.`,
        },
        event: E.BookingFulfilled,
      },
      wakeAt: w.end,
    };
  if (!active)
    return {
      verdict: failed("DeliveryFailed", `ResizeRequest ${request} ended ${state ?? ""}${whyNot(d)}.`),
    };
  // A stockout is retried until the window's start; after it, a request backing off from a failed
  // attempt would eat into the window it was booked for. One that never tried yet (created late, the
  // operator down at the lead time) gets its attempt.
  if (now >= w.start && !d.status?.provisioning && (d.status?.attempts ?? 0) > 0)
    return {
      verdict: failed(
        "NotDeliveredByStart",
        `Not delivered by the window's start at ${rfc3339Seconds(w.start)}: ResizeRequest ${request} was backing off from a failed attempt${whyNot(d)}; it is cancelled.`,
      ),
      cancel: true,
    };
  return {
    verdict: provisioning(
      `Delivering ${count} instances through ResizeRequest ${request} (created ahead of the window's start at ${rfc3339Seconds(w.start)}; its instances go at ${rfc3339Seconds(w.end)}).`,
    ),
    ...(now < w.start && { wakeAt: w.start }),
  };
}
