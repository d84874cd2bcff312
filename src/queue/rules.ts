// The rules of a group's queue, each written once (docs/lifecycle.md "Queueing", "Run duration",
// "Queue deadline"). The decision (src/controllers/resize/decide/) applies them to the pass at hand; the queue
// model (insight.ts, replay.ts) applies them to the time ahead. Pure, and imports only the model, so
// both layers read the same rule and a change to one is a change to both.
import { fifo, type QueueEntry } from "../api/lifecycle.js";

/** FIFO order of a group's queue: creation time, then name. */
export { fifo, type QueueEntry };

/** What a request's size is read from: a count (`resizeBy`) or a list of named instances. */
export interface Sized {
  readonly spec: {
    readonly resizeBy?: number | undefined;
    readonly instances?: readonly unknown[] | undefined;
  };
}

/** The instances a request asks for. */
export const sizeOf = (r: Sized): number => r.spec.resizeBy ?? r.spec.instances?.length ?? 0;

/** Whether `size` more instances fit under maxSize at `replicas` (always, without maxSize). */
export function fitsUnderMax(replicas: number, size: number, maxSize: number | undefined): boolean {
  return maxSize === undefined || replicas + size <= maxSize;
}

/** How many more instances fit under maxSize at `replicas`, never negative; unbounded without maxSize. */
export function roomUnder(replicas: number, maxSize: number | undefined): number {
  return maxSize === undefined ? Number.POSITIVE_INFINITY : Math.max(0, maxSize - replicas);
}

/** When the head's next attempt may start (its backoff's `status.nextAttemptTime`), ms; 0 without one. */
export function nextAttemptAt(nextAttemptTime: string | undefined): number {
  return nextAttemptTime === undefined ? 0 : Date.parse(nextAttemptTime) || 0;
}

/** What keeps the head of the queue from starting its attempt, in the order the decision checks. */
export type HeadHold =
  /** replicas + size > maxSize (minSize plays no part). */
  | "Capacity"
  /** It fits now but would overrun an approved booking's window while it holds its instances (booking-wait.ts). */
  | "Booking"
  /** Its backoff after a failed attempt has not passed. */
  | "Backoff"
  /** Another change of the group (an attempt or a release) is unresolved or goes first: one at a time. */
  | "Busy";

export interface HeadState {
  readonly replicas: number;
  readonly size: number;
  readonly maxSize: number | undefined;
  /** nextAttemptAt() of the head, ms. */
  readonly nextAttemptMs: number;
  readonly nowMs: number;
  /** An attempt is unresolved, or a change (a release) is planned or under way. */
  readonly busy: boolean;
  /** Whether holding its instances would overrun an approved booking (booking-wait.ts bookingWait). */
  readonly bookingInTheWay?: boolean;
}

/** Whether the head may start its attempt now: undefined when it may, otherwise what holds it. */
export function headHold(h: HeadState): HeadHold | undefined {
  if (!fitsUnderMax(h.replicas, h.size, h.maxSize)) return "Capacity";
  if (h.bookingInTheWay === true) return "Booking";
  if (h.nextAttemptMs > h.nowMs) return "Backoff";
  if (h.busy) return "Busy";
  return undefined;
}

/**
 * The replicas a release of `size` instances from `replicas` leaves: never below minSize, and never
 * more than there are (a target already below minSize stays where it is: a release only removes).
 */
export function releaseTarget(replicas: number, size: number, minSize: number): number {
  return Math.min(replicas, Math.max(minSize, replicas - size));
}

/** Whether a release lowers the replicas; at the floor it removes nothing and ends at once. */
export function releaseLowers(replicas: number, size: number, minSize: number): boolean {
  return releaseTarget(replicas, size, minSize) < replicas;
}

/** A recorded release is still to be applied: the target is at its base, not yet at its target. */
export function releaseUnapplied(
  release: { readonly baseReplicas: number; readonly targetReplicas: number },
  replicas: number,
): boolean {
  return replicas === release.baseReplicas && replicas !== release.targetReplicas;
}

/** A request's queue deadline: its creation plus its own maxQueueDuration, else its group's. */
export interface QueueDeadline {
  /** creationTimestamp + maxQueueDuration, in milliseconds. */
  readonly atMs: number;
  readonly durationMs: number;
  /** Whose spec.maxQueueDuration set it: the request's own wins over the group's default. */
  readonly setBy: "request" | "group";
}

/** The queue deadline from the request's own duration and its group's, both in ms; undefined if neither. */
export function queueDeadlineOf(
  createdMs: number,
  ownMs: number | undefined,
  groupMs: number | undefined,
): QueueDeadline | undefined {
  const durationMs = ownMs ?? groupMs;
  if (durationMs === undefined) return undefined;
  return { atMs: createdMs + durationMs, durationMs, setBy: ownMs === undefined ? "group" : "request" };
}
