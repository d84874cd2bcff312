// Queue insight (docs/design.md §4): for every request of a group that is not final, its position, what it
// waits for and when it is expected to be provisioned, derived on read from the objects and never
// stored (storing it would rewrite every request behind the head whenever the queue moves).
//
// The rules are not restated here: the size of a request, FIFO order, whether the head may start (room
// under maxSize, its backoff, one change of the group at a time) and the release floor at minSize are
// imported from rules.ts, the module the decision (src/controllers/resize/decide/) imports them from too; the
// replay of the time ahead is replay.ts. test/unit/queue/rules.property.test.ts and
// test/unit/queue/replay.test.ts hold the model to the decision.
import { durationToMillis, parseKubeDuration } from "../api/duration.js";
export { attemptHistory, HISTORY_SIZE, type AttemptHistory } from "./history.js";
import { ErrorCode } from "../api/errors.js";
import { groupDurations, type InstanceGroupManager } from "../api/instance-group-manager.js";
import { isFinalState } from "../api/lifecycle.js";
import type { ProvisioningPhase, ResizeRequest } from "../api/resize-request.js";
import type { FutureReservation } from "../api/future-reservation.js";
import {
  claimedDelivery,
  deliveredBookings,
  deliveriesFirst,
  deliveryOf,
  type BookingWait,
} from "./booking-wait.js";
import { attemptHistory, type AttemptHistory } from "./history.js";
import { bookingWaitAt, replay, type PendingRelease, type Replayed } from "./replay.js";
import {
  fifo,
  headHold,
  nextAttemptAt,
  queueDeadlineOf,
  releaseLowers,
  releaseUnapplied,
  roomUnder,
  sizeOf,
} from "./rules.js";

/** The target's replicas as its /scale (or the group's status) reports them. */
export interface TargetCounts {
  readonly replicas: number;
  readonly readyReplicas: number;
}
export interface QueueInput {
  /** The group; undefined when it does not exist. */
  readonly group: InstanceGroupManager | undefined;
  /** The group's requests in any order, finished ones included (they give the attempt history). */
  readonly requests: readonly ResizeRequest[];
  /** The target's counts; undefined when the target is missing or not scalable. */
  readonly target: TargetCounts | undefined;
  /** Milliseconds since the epoch. */
  readonly now: number;
  /** The group's FutureReservations, any state: a request may not start into an approved one's window. */
  readonly bookings?: readonly FutureReservation[];
}

/** What a waiting request waits for. Only the head waits for something of its own. */
export type WaitingFor =
  | { readonly kind: "GroupMissing"; readonly group: string }
  | { readonly kind: "TargetMissing"; readonly target: string }
  /** The head: it fits now, but holding its instances would overrun an approved booking's window until `until`. */
  | { readonly kind: "Booking"; readonly booking: string; readonly until: number | undefined }
  /** The head: its size does not fit under maxSize yet. */
  | {
      readonly kind: "Capacity";
      readonly needs: number;
      readonly room: number;
      readonly replicas: number;
      readonly maxSize: number;
    }
  /** The head, after a failed attempt: the next one starts no earlier than `until`. */
  | { readonly kind: "Backoff"; readonly until: number }
  /** The head's last attempt failed because its pods were Unschedulable; `message` quotes the scheduler. */
  | { readonly kind: "Unschedulable"; readonly message: string; readonly until: number | undefined }
  /** The request's own attempt is in progress. */
  | {
      readonly kind: "Attempt";
      readonly attempt: number;
      readonly phase: ProvisioningPhase;
      readonly startedTime: number;
    }
  /**
   * The head: a release of another request's instances changes the target first (one change at a
   * time); its attempt follows once the release is applied.
   */
  | { readonly kind: "Release"; readonly request: string }
  /** The head: nothing blocks it; the controller starts its attempt at its next pass. */
  | { readonly kind: "Starting" }
  /** Behind the head (first come, first served: it never jumps ahead). */
  | { readonly kind: "BehindHead"; readonly head: string; readonly ahead: number };

export type WaitingKind = WaitingFor["kind"];

/**
 * When the request's instances are expected to be ready (`time`), and its attempt to start (`start`).
 * exact: capacity frees at known release times and attempts take the group's recent attempt duration;
 * estimated: the same replay where something is not known exactly (no maxSize bound, so the cluster's
 * room decides; failed attempts lately, so retries are counted in; an attempt running longer than usual);
 * unknown: nothing sound can be said, `reason` says why.
 */
export type Eta =
  | { readonly basis: "exact"; readonly start: number; readonly time: number }
  | { readonly basis: "estimated"; readonly start: number; readonly time: number }
  | { readonly basis: "unknown"; readonly reason: string };

export type EtaBasis = Eta["basis"];

export interface RequestInsight {
  readonly name: string;
  /** 1-based, FIFO over the group's requests that are not final. */
  readonly position: number;
  readonly size: number;
  /** When it entered the queue (its creation), ms. */
  readonly waitingSince: number;
  readonly state: string;
  readonly waitingFor: WaitingFor;
  readonly eta: Eta;
  /**
   * When it fails if still waiting (creation + its spec.maxQueueDuration, else the group's), ms;
   * undefined without a deadline.
   */
  readonly queueDeadline: number | undefined;
  /** The ETA's start comes after the queue deadline: unless the queue moves faster, it will fail then. */
  readonly missesDeadline: boolean;
}

/** A moment when capacity frees, as the model expects it. */
export interface QueueRelease {
  readonly request: string;
  readonly size: number;
  /** Milliseconds since the epoch. */
  readonly time: number;
  /** `scheduled`: a succeeded request's runUntil; otherwise the basis of that request's ETA. */
  readonly basis: "scheduled" | Exclude<EtaBasis, "unknown">;
}

export interface QueueInsight {
  readonly requests: readonly RequestInsight[];
  readonly queueLength: number;
  /** The first request in the queue, if any. */
  readonly head: RequestInsight | undefined;
  readonly history: AttemptHistory | undefined;
  /**
   * When capacity frees, in time order: succeeded requests' scheduled releases, then the attempt's and
   * the queued requests' with a run duration, at their expected end plus that duration.
   */
  readonly releases: readonly QueueRelease[];
}

const ms = (timestamp: string | undefined): number => (timestamp === undefined ? NaN : Date.parse(timestamp));

const entry = (r: ResizeRequest): { creationTimestamp: string; name: string } => ({
  creationTimestamp: r.metadata.creationTimestamp ?? "",
  name: r.metadata.name ?? "",
});

/** The held releases, then each request with a known ETA and a run duration at its end plus the run. */
function expectedReleases(
  held: readonly PendingRelease[],
  insights: readonly RequestInsight[],
  requests: readonly ResizeRequest[],
): QueueRelease[] {
  const byName = new Map(requests.map((r) => [r.metadata.name ?? "", r]));
  const expected = insights.flatMap((q): QueueRelease[] => {
    const run = byName.get(q.name)?.spec.requestedRunDuration;
    if (!run || q.eta.basis === "unknown") return [];
    return [{ request: q.name, size: q.size, time: q.eta.time + durationToMillis(run), basis: q.eta.basis }];
  });
  return [...held.map((r): QueueRelease => ({ ...r, basis: "scheduled" })), ...expected].sort(
    (a, b) => a.time - b.time || a.request.localeCompare(b.request),
  );
}

function lastAttemptUnschedulable(r: ResizeRequest): string | undefined {
  const error = r.status?.lastAttempt?.error?.errors.find(
    (e) => e.code === ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED,
  );
  return error ? (error.message ?? error.code) : undefined;
}

/** Its creation plus its own maxQueueDuration, else its group's (the decision's rule); undefined if none. */
function queueDeadline(r: ResizeRequest, group: InstanceGroupManager | undefined): number | undefined {
  const duration = (setting: string | undefined): number | undefined =>
    setting === undefined ? undefined : parseKubeDuration(setting);
  const own = duration(r.spec.maxQueueDuration);
  return queueDeadlineOf(ms(r.metadata.creationTimestamp), own, duration(group?.spec.maxQueueDuration))?.atMs;
}

/** The queue of one group at `now`: position, what each waiting request waits for, and its ETA. */
export function queueInsight(input: QueueInput): QueueInsight {
  const { group, target, now } = input;
  const history = attemptHistory(input.requests);
  const unordered = input.requests
    .filter((r) => !isFinalState(r.status?.state))
    // A request that cannot ever fit fails at admission; one being cancelled leaves at the next pass.
    .filter((r) => group?.spec.maxSize === undefined || sizeOf(r) <= group.spec.maxSize)
    .filter((r) => r.status?.provisioning !== undefined || !(r.spec.cancel || r.metadata.deletionTimestamp));
  // The decision's order: a booking's delivery first, then first come, first served.
  const waiting = deliveriesFirst(
    unordered.sort((a, b) => fifo(entry(a), entry(b))),
    (r) => deliveryOf(r.metadata.name ?? "", claimedDelivery(r.metadata), input.bookings),
  );
  const head = waiting[0];
  const insightOf = (r: ResizeRequest, i: number, waitingFor: WaitingFor, eta: Eta): RequestInsight => {
    const deadline = queueDeadline(r, group);
    return {
      name: r.metadata.name ?? "",
      position: i + 1,
      size: sizeOf(r),
      waitingSince: ms(r.metadata.creationTimestamp),
      state: r.status?.state ?? "CREATING",
      waitingFor,
      eta,
      queueDeadline: deadline,
      // An attempt in progress is no longer waiting: the deadline does not interrupt it.
      missesDeadline:
        deadline !== undefined &&
        waitingFor.kind !== "Attempt" &&
        eta.basis !== "unknown" &&
        eta.start > deadline,
    };
  };
  const behind = (i: number): WaitingFor => ({
    kind: "BehindHead",
    head: head?.metadata.name ?? "",
    ahead: i,
  });
  // Succeeded requests holding instances free them at their runUntil (one already due: now).
  const releases: PendingRelease[] = input.requests.flatMap((r) =>
    r.status?.state === "SUCCEEDED" && !r.status.release && r.status.runUntil !== undefined
      ? [{ time: Math.max(now, ms(r.status.runUntil)), size: sizeOf(r), request: r.metadata.name ?? "" }]
      : [],
  );
  const summary = (requests: RequestInsight[]): QueueInsight => ({
    requests,
    queueLength: requests.length,
    head: requests[0],
    history,
    releases: expectedReleases(releases, requests, input.requests),
  });

  if (!group || !target) {
    const waitingFor: WaitingFor = !group
      ? { kind: "GroupMissing", group: head?.spec.instanceGroupManager ?? "" }
      : {
          kind: "TargetMissing",
          target: `${group.spec.targetRef.kind}/${group.spec.targetRef.name}`,
        };
    const reason = !group ? "the group does not exist" : "the group's target is missing or not scalable";
    return summary(waiting.map((r, i) => insightOf(r, i, waitingFor, { basis: "unknown", reason })));
  }

  // The attempt in progress (at most one per group) ends at its start plus the usual duration.
  const attempting = waiting.find((r) => r.status?.provisioning !== undefined);
  const p = attempting?.status?.provisioning;
  let replicas = target.replicas;
  for (const r of input.requests)
    if (r.status?.state === "SUCCEEDED" && r.status.release?.phase === "Applying")
      replicas = r.status.release.targetReplicas;
  if (p && (p.phase === "Applying" || p.phase === "Applied")) replicas = p.targetReplicas;

  const queued = waiting.filter((r) => r !== attempting);
  const { provisioningTimeoutMs } = groupDurations(group.spec);
  const bookingState = {
    bookings: input.bookings,
    delivered: deliveredBookings(input.requests, now, provisioningTimeoutMs),
  };
  const headWait =
    head && !attempting
      ? bookingWaitAt({ group, replicas, releases, ...bookingState }, head, now)
      : undefined;
  // A release that changes the target now goes before any attempt (one change at a time).
  const releasing = attempting
    ? undefined
    : input.requests.find((r) => releaseGoesFirst(r, group.spec.minSize, target.replicas, now));
  const headBlocker = head && !attempting ? lastAttemptUnschedulable(head) : undefined;
  const blocked = !history
    ? "no attempt of this group has succeeded yet, so its attempt duration is unknown"
    : p && (p.phase === "RollingBack" || p.phase === "RolledBack" || attempting.spec.cancel)
      ? `the attempt of ${attempting.metadata.name ?? ""} is being rolled back`
      : headBlocker !== undefined
        ? `the last attempt's pods were Unschedulable: ${headBlocker}`
        : undefined;
  let verdicts: Replayed[] = queued.map(() => blocked ?? "");
  let attemptEta: Eta = { basis: "unknown", reason: blocked ?? "" };
  if (history && blocked === undefined) {
    const expectedEnd = p ? ms(p.startedTime) + history.attemptDurationMs : now;
    // An attempt running longer than usual may end at any moment: from then on, times are estimates.
    const overrun = expectedEnd < now;
    const approximate = group.spec.maxSize === undefined || history.successRate < 1 || overrun;
    const busyUntil = Math.max(now, expectedEnd);
    if (p)
      attemptEta = { basis: approximate ? "estimated" : "exact", start: ms(p.startedTime), time: busyUntil };
    // The attempt's own instances go at its expected end plus its run duration, like a queued one's.
    const attemptRun = attempting?.spec.requestedRunDuration;
    const attemptRelease: PendingRelease[] =
      p && attemptRun
        ? [
            {
              time: busyUntil + durationToMillis(attemptRun),
              size: sizeOf(attempting),
              request: attempting.metadata.name ?? "",
            },
          ]
        : [];
    verdicts = replay({
      queue: queued,
      group,
      replicas,
      releases: [...releases, ...attemptRelease],
      busyUntil,
      // Expected attempts per success (1 / success rate), each taking the usual duration.
      duration: Math.round(history.attemptDurationMs / history.successRate),
      approximate,
      ...bookingState,
    });
  }

  const insights = waiting.map((r, i): RequestInsight => {
    const q = queued.indexOf(r);
    const verdict = verdicts[q] ?? "";
    const eta: Eta =
      r === attempting
        ? attemptEta
        : typeof verdict === "string"
          ? { basis: "unknown", reason: verdict }
          : { basis: verdict.approximate ? "estimated" : "exact", start: verdict.start, time: verdict.time };
    const waitingFor = i === 0 ? headWaitingFor(r, group, replicas, now, releasing, headWait) : behind(i);
    return insightOf(r, i, waitingFor, eta);
  });
  return summary(insights);
}

/**
 * A SUCCEEDED request whose release changes the target at the controller's next pass: one recorded
 * and not applied yet, or one due by now that lowers the replicas (the order of decide/release.ts).
 */
function releaseGoesFirst(r: ResizeRequest, minSize: number, replicas: number, now: number): boolean {
  const s = r.status;
  if (s?.state !== "SUCCEEDED") return false;
  if (s.release) return s.release.phase === "Applying" && releaseUnapplied(s.release, replicas);
  // A deleted request's instances stay where they are (docs/design.md §4 "Deletion").
  const due = s.runUntil !== undefined && ms(s.runUntil) <= now && !r.metadata.deletionTimestamp;
  return due && releaseLowers(replicas, sizeOf(r), minSize);
}

/** What the head waits for, checked in the order of the decision. */
function headWaitingFor(
  r: ResizeRequest,
  group: InstanceGroupManager,
  replicas: number,
  now: number,
  releasing: ResizeRequest | undefined,
  booking: BookingWait | undefined,
): WaitingFor {
  const p = r.status?.provisioning;
  if (p) return { kind: "Attempt", attempt: p.attempt, phase: p.phase, startedTime: ms(p.startedTime) };
  const k = sizeOf(r);
  const { maxSize } = group.spec;
  const next = nextAttemptAt(r.status?.nextAttemptTime);
  const hold = headHold({
    replicas,
    size: k,
    maxSize,
    nextAttemptMs: next,
    nowMs: now,
    busy: false,
    bookingInTheWay: booking !== undefined,
  });
  if (hold === "Capacity" && maxSize !== undefined)
    return { kind: "Capacity", needs: k, room: roomUnder(replicas, maxSize), replicas, maxSize };
  if (hold === "Booking" && booking)
    return { kind: "Booking", booking: booking.booking, until: booking.until };
  const until = hold === "Backoff" ? next : undefined;
  const unschedulable = lastAttemptUnschedulable(r);
  if (until !== undefined)
    return unschedulable === undefined
      ? { kind: "Backoff", until }
      : { kind: "Unschedulable", message: unschedulable, until };
  if (releasing) return { kind: "Release", request: releasing.metadata.name ?? "" };
  // Its backoff passed: the retry starts at the next pass; the cause of the last failure is told.
  if (unschedulable !== undefined) return { kind: "Unschedulable", message: unschedulable, until };
  return { kind: "Starting" };
}
