// The two API calls the recorder needs, behind an interface so the recorder's logic can be tested with
// a fake and its calls counted by a decorator. Implementations report failures as SinkError.
import type { EventsV1Event, EventsV1EventSeries } from "@kubernetes/client-node";
import { ApiError, isAlreadyExists, isConflict, isNotFound, isServerError } from "../runtime/api-errors.js";

export interface EventTarget {
  namespace: string;
  name: string;
}

export interface EventSink {
  create(event: EventsV1Event): Promise<void>;
  /** Sets `series` on an existing Event (JSON merge patch). */
  patchSeries(target: EventTarget, series: EventsV1EventSeries): Promise<void>;
}

/**
 * A failed sink call; `status` is the HTTP status, or undefined when no response arrived, and `reason`
 * the Kubernetes Status reason when the server sent one.
 */
export class SinkError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly reason?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "SinkError";
  }
}

export type Failure = "retry" | "not-found" | "already-exists" | "rejected";

/**
 * How the recorder treats a failed call. Only server-side failures (5xx) and failures without a
 * response (network, timeout) are retried: a 4xx will fail the same way again.
 */
export function classify(err: unknown): Failure {
  // Anything that is not a SinkError did not come from a response: treat it as a transport failure.
  if (!(err instanceof SinkError) || err.status === undefined) return "retry";
  // The API's own error helpers tell the answers apart.
  const answer = new ApiError(err.status, err.reason, err.message);
  if (isNotFound(answer)) return "not-found";
  if (isAlreadyExists(answer) || isConflict(answer)) return "already-exists";
  return isServerError(answer) ? "retry" : "rejected";
}
