// The replay of a group's queue into the time ahead (docs/lifecycle.md "Position, what a request waits
// for, and its ETA"): the rules of rules.ts, the ones the decision applies pass by pass, applied to the
// moments capacity frees and attempts end, to tell when each queued request starts and is provisioned.
import { durationToMillis } from "../api/duration.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { fitsUnderMax, nextAttemptAt, releaseTarget, sizeOf } from "./rules.js";

/** A moment when capacity frees: a SUCCEEDED request's run duration ends, or an expected one's. */
export interface PendingRelease {
  readonly time: number;
  readonly size: number;
  readonly request: string;
}

/** The replay's verdict on one request: when it starts and is provisioned, or why nothing is known. */
export type Replayed =
  { readonly start: number; readonly time: number; readonly approximate: boolean } | string;

export interface ReplayInput {
  /** The queued requests in FIFO order, the attempt in progress left out. */
  readonly queue: readonly ResizeRequest[];
  readonly group: InstanceGroupManager;
  /** The replicas the target has, or will have once the change under way is applied. */
  readonly replicas: number;
  readonly releases: readonly PendingRelease[];
  /** When the attempt in progress is expected to end (now if none). */
  readonly busyUntil: number;
  /** How long one request's attempts take. */
  readonly duration: number;
  readonly approximate: boolean;
}

/**
 * Replays the queue: each request in FIFO order starts when the previous attempt has ended, its backoff
 * has passed and (under maxSize) the releases due by then leave room for it; its attempt takes
 * `duration`. A release never lowers the replicas below minSize, and one due during an attempt waits
 * for it (one change at a time). Returns one verdict per queued request, in order; a reason string once
 * nothing is known.
 */
export function replay(args: ReplayInput): Replayed[] {
  const { maxSize, minSize } = args.group.spec;
  const releases = [...args.releases];
  let replicas = args.replicas;
  let free = args.busyUntil;
  let unknown: string | undefined;
  /** Applies, in time order, the releases due by `time`. */
  const releaseUntil = (time: number): void => {
    releases.sort((a, b) => a.time - b.time);
    while ((releases[0]?.time ?? Infinity) <= time) {
      const r = releases.shift();
      if (r) replicas = releaseTarget(replicas, r.size, minSize);
    }
  };
  return args.queue.map((request): Replayed => {
    if (unknown !== undefined) return unknown;
    const k = sizeOf(request);
    let start = Math.max(free, nextAttemptAt(request.status?.nextAttemptTime));
    releaseUntil(start);
    // Approved FutureReservations are not counted yet: counting them is asking bookings.ts's
    // fits(schedule, [start, start + run), k) here, the booking controller's own rule (docs/booking.md).
    while (!fitsUnderMax(replicas, k, maxSize)) {
      const next = releases[0];
      if (!next) {
        unknown = `capacity is held by replicas no scheduled release frees (${replicas} of maxSize ${maxSize ?? ""}, ${request.metadata.name ?? ""} needs ${k})`;
        return unknown;
      }
      start = Math.max(start, next.time);
      releaseUntil(start);
    }
    replicas += k;
    free = start + args.duration;
    const run = request.spec.requestedRunDuration;
    if (run)
      releases.push({ time: free + durationToMillis(run), size: k, request: request.metadata.name ?? "" });
    return { start, time: free, approximate: args.approximate };
  });
}
