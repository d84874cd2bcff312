// The two API calls the recorder needs, behind an interface so the recorder's logic can be tested with
// a fake and its calls counted by a decorator. Implementations report failures as SinkError.
import type { EventsV1Event, EventsV1EventSeries } from "@kubernetes/client-node";

export interface EventTarget {
  namespace: string;
  name: string;
}

export interface EventSink {
  create(event: EventsV1Event): Promise<void>;
  /** Sets `series` on an existing Event (JSON merge patch). */
  patchSeries(target: EventTarget, series: EventsV1EventSeries): Promise<void>;
}

/** A failed sink call; `status` is the HTTP status, or undefined when no response arrived. */
export class SinkError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
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
  if (err.status === 404) return "not-found";
  if (err.status === 409) return "already-exists";
  return err.status >= 500 ? "retry" : "rejected";
}
