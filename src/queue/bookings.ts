// Capacity over time (docs/booking.md "The rule of approval"): how many of a group's instances are held
// at each moment ahead, as a step function built from holds, and whether a booking fits under maxSize
// for its whole window. Pure; the booking controller (src/booking/) approves with it, and the queue
// holds (booking-wait.ts) admit queued requests with the same functions, so the two never disagree.
//
// What holds capacity: the target's replicas now, each running request's instances until its release
// (one without a run duration, for ever; the release floor at minSize is rules.ts's releaseTarget), and
// every approved booking for its window (once, when its delivery holds its instances already). A queued
// request holds nothing yet.
import { durationToMillis } from "../api/duration.js";
import {
  HOLDING_PROCUREMENT_STATUSES,
  MAX_WINDOW_MS,
  windowLengthMs,
  type FutureReservation,
} from "../api/future-reservation.js";
import { groupDurations, type InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { releaseTarget, sizeOf } from "./rules.js";

/** `count` instances held from `from` (inclusive) until `until` (exclusive; Infinity: for ever), ms. */
export interface Hold {
  readonly from: number;
  readonly until: number;
  readonly count: number;
  /** Who holds them, for messages: a request, a booking, or the target's other replicas. */
  readonly holder: string;
}

/** A span of time [start, end), ms. */
export interface Window {
  readonly start: number;
  readonly end: number;
}

/** A group's capacity ahead: the bound (none without maxSize) and what holds it. */
export interface Schedule {
  readonly maxSize: number | undefined;
  readonly holds: readonly Hold[];
}

/** One step of the function: `level` instances held from `at` until the next step's `at`. */
export interface Step {
  readonly at: number;
  readonly level: number;
}

/** The held instances as steps in time order, from -Infinity (level 0) on; equal levels merged. */
export function steps(holds: readonly Hold[]): Step[] {
  const deltas = new Map<number, number>();
  const add = (at: number, d: number): void => {
    deltas.set(at, (deltas.get(at) ?? 0) + d);
  };
  for (const h of holds) {
    if (h.count <= 0 || !(h.until > h.from)) continue;
    add(h.from, h.count);
    if (h.until !== Infinity) add(h.until, -h.count);
  }
  const out: Step[] = [{ at: -Infinity, level: 0 }];
  let level = 0;
  for (const at of [...deltas.keys()].sort((a, b) => a - b)) {
    level += deltas.get(at) ?? 0;
    if (level !== out[out.length - 1]?.level) out.push({ at, level });
  }
  return out;
}

/** Instances held at `t`. */
export function heldAt(holds: readonly Hold[], t: number): number {
  return holds.reduce((sum, h) => (h.from <= t && t < h.until ? sum + h.count : sum), 0);
}

/** The most instances held at any moment of `w` on these steps (0 for an empty window). */
function peakOn(levels: readonly Step[], w: Window): number {
  let peak = 0;
  for (const [i, step] of levels.entries()) {
    const next = levels[i + 1]?.at ?? Infinity;
    if (step.at >= w.end) break;
    if (next > w.start) peak = Math.max(peak, step.level);
  }
  return peak;
}

/** The most instances held at any moment of `w` (0 for an empty window). */
export function peakHeld(holds: readonly Hold[], w: Window): number {
  return w.end > w.start ? peakOn(steps(holds), w) : 0;
}

/** Whether `count` more instances fit under maxSize for the whole window (always, without maxSize). */
export function fits(schedule: Schedule, w: Window, count: number): boolean {
  if (schedule.maxSize === undefined) return true;
  return peakHeld(schedule.holds, w) + count <= schedule.maxSize;
}

/**
 * The earliest window of `durationMs` starting no earlier than `after`, and at most `horizonMs` after
 * it, in which `count` more instances fit; undefined when none does. Only `after` and the moments the
 * held instances go down can start it: a window that fits at any other start fits a moment earlier too.
 */
export function earliestFit(
  schedule: Schedule,
  durationMs: number,
  count: number,
  after: number,
  horizonMs: number = MAX_WINDOW_MS,
): Window | undefined {
  const { maxSize } = schedule;
  if (maxSize === undefined) return { start: after, end: after + durationMs };
  if (count > maxSize) return undefined;
  const levels = steps(schedule.holds);
  const candidates = [
    after,
    ...levels
      .filter((s, i) => s.at > after && s.at <= after + horizonMs && s.level < (levels[i - 1]?.level ?? 0))
      .map((s) => s.at),
  ];
  for (const start of candidates) {
    const w = { start, end: start + durationMs };
    if (peakOn(levels, w) + count <= maxSize) return w;
  }
  return undefined;
}

/** What requestHolds() reads of a group: its bounds, the target's replicas and its provisioning timeout. */
export type HoldingGroup = Pick<InstanceGroupManager, "spec" | "status">;

const ms = (t: string | undefined): number => (t === undefined ? NaN : Date.parse(t));

/**
 * When a request's instances go, if it holds any at `now`: a SUCCEEDED request at its runUntil (at once
 * when due; never without a run duration, or once deleted: a deleted request's instances stay), an
 * attempt whose increase is applied or being applied at the latest moment it can succeed (its deadline,
 * else its start plus the group's provisioning timeout) plus its run duration. undefined when it holds
 * nothing: queued, rolling back, released, or finished otherwise.
 */
export function releaseOf(r: HoldingRequest, now: number, provisioningTimeoutMs: number): number | undefined {
  const s = r.status;
  if (s?.state === "SUCCEEDED") {
    if (s.release) return s.release.phase === "Applied" ? undefined : now;
    if (s.runUntil === undefined || r.metadata.deletionTimestamp) return Infinity;
    return Math.max(now, ms(s.runUntil) || now);
  }
  const p = s?.provisioning;
  if (s?.state !== "ACCEPTED" || !p || (p.phase !== "Applying" && p.phase !== "Applied")) return undefined;
  const run = r.spec.requestedRunDuration;
  if (!run) return Infinity;
  const deadline = ms(p.deadline) || (ms(p.startedTime) || now) + provisioningTimeoutMs;
  return Math.max(now, deadline) + durationToMillis(run);
}

/** A moment ahead when a running request's instances go: `until` (ms; Infinity: never). */
export interface Release {
  readonly until: number;
  readonly size: number;
  readonly holder: string;
}

/**
 * The held instances from `now` on, `replicas` now going down at each release in time order by the
 * release rule (never below minSize). One rule for the approval (requestHolds), the admission of a
 * queued request and the replay of the queue ahead (booking-wait.ts).
 */
export function levelHolds(
  replicas: number,
  releases: readonly Release[],
  minSize: number,
  now: number,
): Hold[] {
  let level = replicas;
  const holds: Hold[] = [];
  for (const r of [...releases].sort((a, b) => a.until - b.until)) {
    if (r.until === Infinity) break;
    const after = releaseTarget(level, r.size, minSize);
    holds.push({ from: now, until: Math.max(now, r.until), count: level - after, holder: r.holder });
    level = after;
  }
  holds.push({ from: now, until: Infinity, count: level, holder: "the target's replicas" });
  return holds;
}

/** What requestHolds() reads of a request: its size, its run, its state and whether it is deleted. */
export type HoldingRequest = Pick<ResizeRequest, "spec" | "status"> & {
  readonly metadata: Pick<ResizeRequest["metadata"], "name" | "deletionTimestamp">;
};

/**
 * The group's held instances from `now` on: the target's replicas (status.targetSize, or the running
 * requests' instances if more — the status lags a scale change by up to a second), going down at each
 * running request's release by the release rule (never below minSize).
 */
export function requestHolds(group: HoldingGroup, requests: readonly HoldingRequest[], now: number): Hold[] {
  const { provisioningTimeoutMs } = groupDurations(group.spec);
  const running = requests.flatMap((r): Release[] => {
    const until = releaseOf(r, now, provisioningTimeoutMs);
    return until === undefined
      ? []
      : [{ until, size: sizeOf(r), holder: `ResizeRequest ${r.metadata.name ?? ""}` }];
  });
  const heldByRequests = running.reduce((sum, x) => sum + x.size, 0);
  const replicas = Math.max(group.status?.targetSize ?? 0, heldByRequests);
  return levelHolds(replicas, running, group.spec.minSize, now);
}

/** The window a booking asks for, ms; undefined when malformed (the CRD's rules keep that out). */
export function bookingWindow(b: Pick<FutureReservation, "spec">): Window | undefined {
  const start = ms(b.spec.timeWindow.startTime);
  const end = start + (windowLengthMs(b.spec.timeWindow) ?? NaN);
  return Number.isFinite(start) && Number.isFinite(end) && end > start ? { start, end } : undefined;
}

/** Whether a booking's window holds capacity: approved (or delivered) and not cancelled. */
export function holdsCapacity(b: Pick<FutureReservation, "status">): boolean {
  const status = b.status?.procurementStatus;
  return status !== undefined && HOLDING_PROCUREMENT_STATUSES.includes(status);
}

/**
 * The holds of the bookings that hold capacity, each for its window; those named in `delivered` are
 * left out: their delivery request holds their instances already, for longer than the window.
 */
export function bookingHolds(
  bookings: readonly FutureReservation[],
  delivered: ReadonlySet<string> = new Set(),
): Hold[] {
  const counted = bookings.filter((b) => holdsCapacity(b) && !delivered.has(b.metadata.name ?? ""));
  return counted.flatMap((b): Hold[] => {
    const w = bookingWindow(b);
    return w
      ? [
          {
            from: w.start,
            until: w.end,
            count: b.spec.totalCount,
            holder: `FutureReservation ${b.metadata.name ?? ""}`,
          },
        ]
      : [];
  });
}
