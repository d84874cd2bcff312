// Splits the integration files into lanes that run at the same time, each lane a jest process with its
// own control plane and Redis (its global setup starts them), so no file shares a cluster with a file
// of another lane: a file that restarts the API server, installs Karpenter or Kueue, or counts Nodes
// sees only its own lane's cluster, exactly as when the files ran one at a time. Most of an integration
// file's time is spent waiting (run durations, ETAs, leases), so two lanes on two cores take about half
// the time of one.
//
// The split is by measured seconds per file (integration-seconds.json, refreshed with
// `npm run -s test:integration:lanes -- --record`), greedy longest-first: deterministic on every
// machine, so a lane's content is the same in CI and at a developer's desk.

/** Seconds assumed for a file not measured yet: about the median of the measured ones. */
export const UNMEASURED_SECONDS = 15;

/** The files of each lane, in lane order; every file in exactly one lane. */
export function assignLanes(
  files: readonly string[],
  seconds: Readonly<Record<string, number>>,
  count: number,
): string[][] {
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`lane count must be a positive integer, not ${count}`);
  const weight = (f: string): number => seconds[f] ?? UNMEASURED_SECONDS;
  const lanes = Array.from({ length: count }, () => ({ files: [] as string[], total: 0 }));
  const longestFirst = [...files].sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : a > b ? 1 : 0));
  for (const file of longestFirst) {
    // The lane with the least work so far; the first such lane on a tie, so the split is reproducible.
    const lane = lanes.reduce((least, l) => (l.total < least.total ? l : least));
    lane.files.push(file);
    lane.total += weight(file);
  }
  return lanes.map((l) => l.files);
}

/** One test file's result in a jest `--json` report: its path and when it started and ended (ms). */
export interface ReportedFile {
  readonly name: string;
  readonly startTime: number;
  readonly endTime: number;
}

/**
 * The seconds table measured by one run of every file: whole seconds (at least 1) keyed by the file's
 * path relative to `rootDir`, sorted by path so a refresh diffs cleanly.
 */
export function measuredSeconds(reports: readonly ReportedFile[], rootDir: string): Record<string, number> {
  const prefix = rootDir.endsWith("/") ? rootDir : `${rootDir}/`;
  return Object.fromEntries(
    reports
      .map((r): [string, number] => [
        r.name.startsWith(prefix) ? r.name.slice(prefix.length) : r.name,
        Math.max(1, Math.round((r.endTime - r.startTime) / 1000)),
      ])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
