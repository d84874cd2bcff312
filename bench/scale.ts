// Scale: does a reconcile pass cost the same with 50 or 5,000 requests in a group, and with or without
// a long history of finished ones? Each case is one group whose target is ready the moment it is
// scaled (as in throughput.ts), a fresh namespace, and the operator (--concurrency=4) started after the
// fixture exists, timed from "controller started" to the last of the case's requests SUCCEEDED.
// Cases of 50 requests run three times (interleaved) and count by their median; BENCH_SCALE=history
// or depth runs one half.
//  - queue depth: N = 50, 500, 5,000 requests queued in the group; the rate at 5,000 against 50.
//  - history: 50 new requests behind H = 0 and H = 10,000 requests that already SUCCEEDED (created
//    with a final status through the status subresource; the group's finishedRequestRetention keeps
//    them for ten years, so none is deleted during the case); the rate behind 10,000 against none.
// Memory and start-up with 100,000 cached requests are bench/memory.ts.
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeHttp } from "../src/runtime/kube-http.js";
import {
  createGroupWithTarget,
  createRequest,
  createSucceededRequest,
  installCrds,
  kubeConfig,
  log,
  logTime,
  machine,
  namespace,
  pool,
  report,
  round,
  startOperator,
  untilReady,
  watchAllSucceeded,
} from "./lib.js";

const CONCURRENCY = 4;
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 10_000);
const QUEUED = [50, 500, 5_000] as const;
const NEW_BEHIND_HISTORY = 50;
const HISTORY = [0, 10_000] as const;
const GROUP = "g";
/** The longest retention a group accepts: history stays for the whole case. */
const KEEP = "87600h";

interface Case {
  /** Requests the operator drives to SUCCEEDED in this case. */
  queued: number;
  /** Requests already SUCCEEDED before the operator starts. */
  finished: number;
}

async function drainRate(cli: string, http: KubeHttp, c: Case, profileDir?: string): Promise<number> {
  const label = `queued ${c.queued}, finished ${c.finished}`;
  const ns = await namespace(http, "bench-scale");
  try {
    await createGroupWithTarget(http, ns.name, GROUP, { finishedRequestRetention: KEEP });
    const names = (prefix: string, n: number): string[] =>
      Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(6, "0")}`);
    const started = Date.now();
    // History first, so the new requests come after it in the group's FIFO order.
    await pool(names("done", c.finished), 32, (name, i) =>
      createSucceededRequest(http, ns.name, name, GROUP, i),
    );
    await pool(names("r", c.queued), 16, (name) => createRequest(http, ns.name, name, GROUP));
    log(`scale: ${label}: fixture in ${Math.round((Date.now() - started) / 1000)} s`);
    // History is old by definition: the control plane's own work on a fixture just created (the
    // garbage collector's graph, the watch caches) is let settle, in every case alike.
    await sleep(SETTLE_MS);
    const allSucceeded = await watchAllSucceeded(http, ns.name, c.finished + c.queued);
    const op = await startOperator(cli, {
      name: `scale-${c.queued}-${c.finished}`,
      namespace: ns.name,
      args: [`--concurrency=${CONCURRENCY}`],
      nodeArgs: profileDir
        ? ["--cpu-prof", `--cpu-prof-dir=${path.join(profileDir, label.replace(/\W+/g, "-"))}`]
        : [],
    });
    try {
      await untilReady(op);
      const doneAt = await allSucceeded(3_600_000);
      const controllerStarted = logTime(op.log, "controller started");
      if (controllerStarted === undefined) throw new Error(`no "controller started" in ${op.log}`);
      const rate = c.queued / ((doneAt - controllerStarted) / 1000);
      log(`scale: ${label}: ${round(rate, 1)} requests/s`);
      return rate;
    } finally {
      await op.stop();
    }
  } finally {
    await ns.remove();
  }
}

export async function scale(cli: string, profileDir?: string): Promise<void> {
  const http = new KubeHttp(kubeConfig());
  await installCrds(http);

  // BENCH_SCALE=history or depth runs one half (to iterate on one figure); both by default.
  const half = process.env.BENCH_SCALE;
  if (half !== undefined && half !== "history" && half !== "depth")
    throw new Error(`BENCH_SCALE must be history or depth, not ${half}`);
  // History first: its cases are short, and each half reports as soon as it is measured.
  if (half !== "depth") await historyHalf(cli, http, profileDir);
  if (half !== "history") await depthHalf(cli, http, profileDir);
}

const rate = (table: Record<string, number>, key: number): number => table[key] ?? Number.NaN;
const rounded = (table: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(table).map(([k, v]) => [k, round(v, 1)]));

/**
 * A case of 50 requests drains in under 2 s, where the operator's start and the machine's other work
 * weigh as much as the drain (one run of the same code measured ratios of 0.67 and 1.03): such cases
 * run REPEATS times, interleaved so that drift hits every case alike, and count by their median.
 */
const REPEATS = 3;
const SHORT = 50;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Each case's drain rate (the median of its runs) and every run's rate. */
async function drainRates(
  cli: string,
  http: KubeHttp,
  cases: readonly Case[],
  key: (c: Case) => number,
  profileDir?: string,
): Promise<{ rates: Record<string, number>; runs: Record<string, number[]> }> {
  const runs = new Map<number, number[]>();
  const rounds = cases.some((c) => c.queued <= SHORT) ? REPEATS : 1;
  for (let r = 0; r < rounds; r++)
    for (const c of cases) {
      if (r > 0 && c.queued > SHORT) continue;
      const measured = await drainRate(cli, http, c, profileDir);
      runs.set(key(c), [...(runs.get(key(c)) ?? []), measured]);
    }
  const entries = [...runs];
  return {
    rates: Object.fromEntries(entries.map(([k, v]) => [k, median(v)])),
    runs: Object.fromEntries(entries.map(([k, v]) => [k, v.map((x) => round(x, 1))])),
  };
}

async function historyHalf(cli: string, http: KubeHttp, profileDir?: string): Promise<void> {
  const { rates: byHistory, runs } = await drainRates(
    cli,
    http,
    HISTORY.map((finished) => ({ queued: NEW_BEHIND_HISTORY, finished })),
    (c) => c.finished,
    profileDir,
  );
  const historyRatio = rate(byHistory, 10_000) / rate(byHistory, 0);
  report({
    bench: "scale-history",
    concurrency: CONCURRENCY,
    newRequests: NEW_BEHIND_HISTORY,
    requestsPerSecondByFinished: rounded(byHistory),
    runsByFinished: runs,
    ratio: round(historyRatio),
    target: "rate behind 10000 finished >= 0.9 x behind none",
    met: historyRatio >= 0.9,
    machine: machine(),
  });
}

async function depthHalf(cli: string, http: KubeHttp, profileDir?: string): Promise<void> {
  const { rates: byDepth, runs } = await drainRates(
    cli,
    http,
    QUEUED.map((queued) => ({ queued, finished: 0 })),
    (c) => c.queued,
    profileDir,
  );
  const depthRatio = rate(byDepth, 5_000) / rate(byDepth, 50);
  report({
    bench: "scale-depth",
    concurrency: CONCURRENCY,
    requestsPerSecondByQueued: rounded(byDepth),
    runsByQueued: runs,
    ratio: round(depthRatio),
    target: "rate at 5000 queued >= 0.8 x rate at 50",
    met: depthRatio >= 0.8,
    machine: machine(),
  });
}
