// The attempts of a group's recent successful requests: how long one takes and how many it takes.
// The queue model's ETAs (insight.ts) and a booking's lead time (src/booking/deliver.ts) go by it.
import type { ResizeRequest } from "../api/resize-request.js";

/** The attempts of the group's recent successful requests. */
export interface AttemptHistory {
  /** Succeeded requests the figures come from (at most HISTORY_SIZE, the most recent). */
  readonly samples: number;
  /** Median time from an attempt's start to all its instances ready, in whole ms. */
  readonly attemptDurationMs: number;
  /** Succeeded attempts over all attempts of those requests (1 when none failed). */
  readonly successRate: number;
}

/** How many recent successes the attempt duration and success rate are taken from. */
export const HISTORY_SIZE = 20;

const ms = (timestamp: string | undefined): number => (timestamp === undefined ? NaN : Date.parse(timestamp));

/** Median attempt duration and success rate of the most recent successful requests. */
export function attemptHistory(requests: readonly ResizeRequest[]): AttemptHistory | undefined {
  const recent = requests
    .filter((r) => r.status?.state === "SUCCEEDED")
    .map((r) => ({
      succeeded: ms(r.status?.succeededTime),
      duration: ms(r.status?.succeededTime) - ms(r.status?.provisioningStartedTime),
      attempts: Math.max(1, r.status?.attempts ?? 1),
    }))
    .filter((s) => Number.isFinite(s.duration) && s.duration >= 0)
    .sort((a, b) => b.succeeded - a.succeeded)
    .slice(0, HISTORY_SIZE);
  if (recent.length === 0) return undefined;
  const durations = recent.map((s) => s.duration).sort((a, b) => a - b);
  const mid = Math.floor(durations.length / 2);
  // Whole milliseconds, as the times it gives are.
  const median =
    durations.length % 2 === 1
      ? (durations[mid] ?? 0)
      : Math.round(((durations[mid - 1] ?? 0) + (durations[mid] ?? 0)) / 2);
  const attempts = recent.reduce((sum, s) => sum + s.attempts, 0);
  return { samples: recent.length, attemptDurationMs: median, successRate: recent.length / attempts };
}
