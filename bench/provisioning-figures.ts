// The pure arithmetic of the provisioning benchmark (bench/provisioning.ts): its flags, whose API calls
// a counted call is (the API server counts by verb and resource, not by client), percentiles and the
// per-side figures. Unit-tested in test/unit/bench/provisioning-figures.test.ts.

export const DEFAULT_JOBS = 500;

/** `--jobs N` (or `--jobs=N`) among the benchmark runner's arguments; DEFAULT_JOBS without it. */
export function jobsFlag(args: readonly string[]): number {
  let value: string | undefined;
  let given = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--jobs") value = args[i + 1];
    else if (arg.startsWith("--jobs=")) value = arg.slice("--jobs=".length);
    else continue;
    given = true;
  }
  if (!given) return DEFAULT_JOBS;
  const jobs = Number(value);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new Error(`--jobs wants a whole number from 1, got ${value}`);
  return jobs;
}

/**
 * Who made an API call counted as "VERB group resource subresource" (callsBetween's keys) in a
 * benchmark namespace where only Kueue, one provisioner, the Job controller and the scheduler work:
 * - `provider`: the provisioner — our kinds (ResizeRequests, groups, the scalable targets), the
 *   ProvisioningRequests' status, the PodTemplates and namespace it reads, the pod list of its
 *   booking-window check;
 * - `kueue`: Kueue's API, its ProvisioningRequests and PodTemplates (created and deleted by it), and
 *   its writes to the Jobs (unsuspending them);
 * - `events`: every writer's Events (Kueue, the provisioner, the Job controller, the scheduler);
 * - `cluster`: the rest — the Job controller's Job status and pods, the scheduler's pod status.
 */
export type Caller = "provider" | "kueue" | "events" | "cluster";

export function callerOf(key: string): Caller {
  const [verb = "", group = "", resource = "", subresource = ""] = key.split(" ");
  if (resource === "events") return "events";
  if (group === "compute.resize-operator.dev" || group === "bench.resize-operator.dev") return "provider";
  if (resource === "provisioningrequests") return subresource === "status" ? "provider" : "kueue";
  if (group === "kueue.x-k8s.io") return "kueue";
  if (resource === "podtemplates") return verb === "GET" ? "provider" : "kueue";
  if (group === "" && resource === "namespaces" && verb === "GET") return "provider";
  if (group === "" && resource === "pods" && verb === "LIST") return "provider";
  if (group === "batch" && resource === "jobs" && subresource === "") return "kueue";
  return "cluster";
}

/** Sums calls (by callsBetween's key) per caller. */
export function byCaller(calls: Readonly<Record<string, number>>): Record<Caller, number> {
  const out: Record<Caller, number> = { provider: 0, kueue: 0, events: 0, cluster: 0 };
  for (const [key, n] of Object.entries(calls)) out[callerOf(key)] += n;
  return out;
}

/** The calls of one caller, by key. */
export function callsOf(calls: Readonly<Record<string, number>>, caller: Caller): Record<string, number> {
  return Object.fromEntries(Object.entries(calls).filter(([key]) => callerOf(key) === caller));
}

/** The `p`-th percentile (0–100) of `values` by nearest rank; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** When the benchmark's watch first saw a ProvisioningRequest, and first saw it `Provisioned=True`. */
export interface Sighting {
  readonly createdAt: number;
  readonly provisionedAt?: number;
}

/** Milliseconds from each request's creation to `Provisioned=True`, for those provisioned. */
export function provisionedLatencies(sightings: Iterable<Sighting>): number[] {
  const out: number[] = [];
  for (const s of sightings) if (s.provisionedAt !== undefined) out.push(s.provisionedAt - s.createdAt);
  return out;
}
