// Shared parts of the reliability and security suites (test/reliability, test/security): the bounded
// vs soak scale, a seeded random generator, per-group invariant checks, operator memory sampling,
// the figures each run reports, and the scan of operator logs for secrets.
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ResizeRequest } from "../../src/api/resize-request.js";
import { impliedReplicas, isFinalState } from "./invariants.js";
import { eventually } from "./kube.js";
import { listRequests, replicasOf } from "./resize.js";

/** `npm run test:soak` sets SOAK=1: the same tests, looped for SOAK_MINUTES (default 30) each. */
export const SOAK = process.env.SOAK === "1";
const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 30);

/** When a soak loop ends (now + SOAK_MINUTES); 0 in the bounded run, so a loop runs its body once. */
export function soakDeadline(): number {
  return SOAK ? Date.now() + SOAK_MINUTES * 60_000 : 0;
}

/** Jest timeout of a test that loops until `soakDeadline()`: its bounded timeout, or the soak time plus it. */
export function soakTimeout(boundedMs: number): number {
  return SOAK ? SOAK_MINUTES * 60_000 + boundedMs : boundedMs;
}

/** A seeded generator, so a failing run can be replayed: the seed is printed in the test's name. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** One line of figures: to stderr, and appended to $RELIABILITY_REPORT when set (for docs/reliability.md). */
export function report(test: string, figures: Record<string, string | number>): void {
  const line = `${test}: ${Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")}\n`;
  process.stderr.write(`[figures] ${line}`);
  const file = process.env.RELIABILITY_REPORT;
  if (file) appendFileSync(file, line);
}

export interface Settled {
  readonly requests: ResizeRequest[];
  /** Group name → replicas of its target. */
  readonly replicas: Map<string, number>;
}

/**
 * Waits until `count` requests exist in `namespace`, all final with every due release applied, then
 * checks THE invariant for every group: its target's replicas equal exactly what its requests imply.
 */
export async function settleAndCheck(
  namespace: string,
  groups: readonly string[],
  count: number,
  timeoutMs: number,
): Promise<Settled> {
  const requests = await eventually(
    `${count} requests final in ${namespace}`,
    async () => {
      const items = await listRequests(namespace);
      const pending = items.filter(
        (rr) =>
          !isFinalState(rr) || (rr.status?.runUntil !== undefined && rr.status.release?.phase !== "Applied"),
      );
      if (pending.length === 0 && items.length === count) return items;
      // Thrown (not returned) so that a timeout says which requests were stuck, and where.
      throw new Error(
        `${items.length}/${count} exist; not settled: ${pending.slice(0, 8).map(describe).join("; ")}`,
      );
    },
    timeoutMs,
  );
  const replicas = new Map<string, number>();
  for (const group of groups) {
    const mine = requests.filter((rr) => rr.spec.instanceGroupManager === group);
    const actual = (await replicasOf(namespace, group)).replicas;
    replicas.set(group, actual);
    if (actual !== impliedReplicas(0, mine))
      throw new Error(
        `invariant broken for ${namespace}/${group}: replicas ${actual}, requests imply ${impliedReplicas(0, mine)} (${mine
          .map((rr) => `${rr.metadata.name}:${rr.spec.resizeBy ?? 0}:${rr.status?.state ?? "?"}`)
          .join(" ")})`,
      );
  }
  for (const rr of requests) {
    if (rr.status?.provisioning !== undefined)
      throw new Error(`${rr.metadata.name ?? "?"} is final but still records an attempt`);
  }
  return { requests, replicas };
}

/** One request's progress in a line: name, state, attempt phase, release phase, latest condition. */
function describe(rr: ResizeRequest): string {
  const condition = rr.status?.conditions?.at(-1);
  return [
    rr.metadata.name ?? "?",
    rr.status?.state ?? "no status",
    rr.status?.provisioning && `attempt ${rr.status.provisioning.phase}`,
    rr.status?.release && `release ${rr.status.release.phase}`,
    condition && `${condition.type}=${condition.status}/${condition.reason}`,
  ]
    .filter(Boolean)
    .join(" ");
}

/** Resident set size of a process in MiB (Linux /proc), or undefined once it is gone. */
export function rssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; keeps every sample. */
export function sampleMemory(pid: number | undefined, everyMs = 500): { stop: () => number[] } {
  const samples: number[] = [];
  const take = () => {
    const mib = rssMiB(pid);
    if (mib !== undefined) samples.push(mib);
  };
  take();
  // Unreferenced: a test that fails before `stop()` must not keep jest from exiting.
  const timer = setInterval(take, everyMs).unref();
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** Every operator log written in this run (test/support/operator.ts writes them to TESTBED_DIR). */
export function operatorLogs(): string[] {
  const dir = process.env.TESTBED_DIR;
  if (!dir) throw new Error("TESTBED_DIR is set by the global setup");
  return readdirSync(dir)
    .filter((f) => f.startsWith("operator-") && f.endsWith(".log"))
    .map((f) => path.join(dir, f));
}

/** The secrets (exact values) found in any operator log of this run, with the file they are in. */
export function secretsInLogs(secrets: Readonly<Record<string, string>>): string[] {
  const hits: string[] = [];
  for (const file of operatorLogs()) {
    const text = readFileSync(file, "utf8");
    for (const [what, value] of Object.entries(secrets)) {
      if (value.length >= 8 && text.includes(value)) hits.push(`${what} in ${path.basename(file)}`);
    }
  }
  return hits;
}
