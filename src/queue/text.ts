// The queue insight in words: what a request waits for, how its ETA was derived, and a time relative to
// now ("in 3m"). Shared by the server and the browser UI (which re-renders relative times as the clock
// moves) and by `kubectl resize`, so this module imports types only
// (test/unit/dashboard/ui-imports.test.ts).
import type { Eta, WaitingFor } from "./insight.js";

/** Formats a moment (ms since the epoch) for the reader: local time in the browser, ISO in tests. */
export type TimeFormat = (ms: number) => string;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** One sentence saying what the request waits for. */
export function waitingForSentence(w: WaitingFor, time: TimeFormat): string {
  switch (w.kind) {
    case "GroupMissing":
      return `The group ${w.group} does not exist (yet).`;
    case "TargetMissing":
      return `The group's target ${w.target} is missing or cannot be scaled.`;
    case "Capacity":
      return `Room under maxSize: it needs ${plural(w.needs, "instance")}, ${w.room} free (${w.replicas} of ${w.maxSize} in use).`;
    case "Booking":
      return `Capacity booked ahead: FutureReservation ${w.booking} holds the group's room ${w.until === undefined ? "beyond the next 90 days" : `until ${time(w.until)}, when it can start`}.`;
    case "Backoff":
      return `The backoff after a failed attempt, until ${time(w.until)}.`;
    case "Unschedulable":
      return `Capacity in the cluster: the last attempt's pods were Unschedulable (${w.message})${w.until === undefined ? "" : `; next attempt at ${time(w.until)}`}.`;
    case "Attempt":
      return `Its attempt #${w.attempt} to finish (${w.phase}, started ${time(w.startedTime)}).`;
    case "Release":
      return `The release of ${w.request}'s instances, applied first (one change at a time); its attempt follows.`;
    case "Starting":
      return "Nothing: its attempt starts at the controller's next pass.";
    case "BehindHead":
      return `Its turn: ${plural(w.ahead, "request")} ahead of it, first ${w.head} (first come, first served).`;
  }
}

/** What the request waits for, for a table cell: the kind and its one figure ("Capacity (needs 3, room 2)"). */
export function waitingForShort(w: WaitingFor, time: TimeFormat): string {
  switch (w.kind) {
    case "Capacity":
      return `Capacity (needs ${w.needs}, room ${w.room})`;
    case "Backoff":
      return `Backoff (until ${time(w.until)})`;
    case "Booking":
      return `Booking (${w.booking}${w.until === undefined ? "" : `, until ${time(w.until)}`})`;
    case "Attempt":
      return `Attempt ${w.attempt} (${w.phase})`;
    case "BehindHead":
      return `BehindHead (${w.head})`;
    case "Release":
      return `Release (${w.request})`;
    default:
      return w.kind;
  }
}

/** How the ETA was derived, in words. */
export function etaBasisText(eta: Eta): string {
  switch (eta.basis) {
    case "exact":
      return "exact: capacity frees at known release times and attempts take the group's usual duration";
    case "estimated":
      return "estimated from the group's recent attempt durations and success rate";
    case "unknown":
      return `unknown: ${eta.reason}`;
  }
}

/** A span of time, coarsely: "42s", "3m", "2h 5m", "1d 4h". */
export function durationText(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d${h > 0 ? ` ${h}h` : ""}`;
  if (h > 0) return `${h}h${m > 0 ? ` ${m}m` : ""}`;
  return m > 0 ? `${m}m` : `${s}s`;
}

/** `ms` relative to `now`: "in 3m", "2h 5m ago", "now" (within a second). */
export function relativeTime(ms: number, now: number): string {
  if (Math.round(Math.abs(ms - now) / 1000) === 0) return "now";
  const span = durationText(ms - now);
  return ms > now ? `in ${span}` : `${span} ago`;
}
