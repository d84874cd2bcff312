// Memory, start-up and takeover with 100,000 and 250,000 ResizeRequests with full statuses (as the
// operator leaves a SUCCEEDED request) in the watched namespace, each against a baseline measured in the
// same run: the same operator on a namespace with none. The operator runs as a standby (the bench holds
// its Lease), so it lists, watches and caches everything — what every replica does — without
// reconciling: the memory figures are the caches' cost, not a reconcile storm's. Then the bench releases
// the Lease, and the standby takes over: the time from the release to its first reconcile is the
// takeover, which must not grow with the number of cached requests.
// Start-up (process start → /readyz 200) is also set against a bare list of the same objects in the
// same run (bare-list.ts: the informer's pages, JSON-parsed and dropped), which tells the API server's
// share from ours: the target is ready ≤ 1.5× the bare list, and linear (2.5× the objects ≤ 2.7× the
// time). The bare streamed list (the same objects as a watch's initial events, as the informers list
// when the server offers it) is reported beside it. `npm run bench -- memory` writes memory-N,
// startup-N and takeover-N; `npm run bench -- startup` runs the same measurement for startup-N alone
// (no takeover). BENCH_MEMORY_COUNTS=20000 measures at 20,000 only, for a quick run.
import { setTimeout as sleep } from "node:timers/promises";
import { isConflict, isAlreadyExists } from "../src/runtime/api-errors.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { bareList, bareStreamedList } from "./bare-list.js";
import {
  createGroupWithTarget,
  createSucceededRequest,
  installCrds,
  logTime,
  kubeConfig,
  log,
  machine,
  namespace,
  pool,
  report,
  round,
  rrPath,
  rssBytes,
  startOperator,
  untilReady,
} from "./lib.js";

/** How many requests to measure at, in increasing order (BENCH_MEMORY_COUNTS=100000,250000). */
const COUNTS = (process.env.BENCH_MEMORY_COUNTS ?? "100000,250000").split(",").map(Number);
const GROUPS = 100;
const MiB = 2 ** 20;
const LEASE = "resize-operator-leader";
/** The standby tries the Lease this often: short, so that the takeover is the operator's own work. */
const RETRY_PERIOD = "200ms";

const leasePath = (ns: string): string => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
const microTime = (): string => new Date().toISOString().replace("Z", "000Z");

/** Sets the Lease's holder: "bench-holder" for an hour (the operator stays a standby), or nobody. */
async function setLease(http: KubeHttp, ns: string, held: boolean): Promise<void> {
  const spec = held
    ? {
        holderIdentity: "bench-holder",
        leaseDurationSeconds: 3600,
        acquireTime: microTime(),
        renewTime: microTime(),
      }
    : // What a leader's graceful release writes: no holder, expired in a second.
      { holderIdentity: "", leaseDurationSeconds: 1, renewTime: microTime() };
  for (;;) {
    const current = await http
      .request("GET", `${leasePath(ns)}/${LEASE}`)
      .then((l) => l as { metadata: Record<string, unknown> })
      .catch(() => undefined);
    try {
      if (current) await http.request("PUT", `${leasePath(ns)}/${LEASE}`, { body: { ...current, spec } });
      else await http.request("POST", leasePath(ns), { body: { metadata: { name: LEASE }, spec } });
      return;
    } catch (err) {
      // The standby renewed it in between (or created it): read it again.
      if (!isConflict(err) && !isAlreadyExists(err)) throw err;
    }
  }
}

async function metricsText(port: number): Promise<string> {
  return fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
}

const sum = (text: string, pattern: RegExp): number =>
  [...text.matchAll(pattern)].reduce((a, m) => a + Number(m[1]), 0);

/** The result files a run writes for each count (startup-N also for the `startup` benchmark alone). */
export type Figures = "memory" | "startup" | "takeover";

interface Takeover {
  /** From the Lease's release to the first reconcile (includes up to one retry period of waiting). */
  takeoverMs: number;
  /** From "became leader" to the first reconcile: the part the cache's size could lengthen. */
  firstPassMs: number;
}

interface Sample {
  readyMs: number;
  rss: number;
  peakRss: number;
  cached: number;
  /** Absent when the takeover is not measured. */
  takeover?: Takeover;
}

/**
 * Starts a standby operator on `ns`: time to /readyz, RSS once the heap has settled, the peak RSS; then,
 * `withTakeover`, releases the Lease and times the takeover (release → the resize controller's first
 * reconcile).
 */
async function measure(
  http: KubeHttp,
  cli: string,
  ns: string,
  name: string,
  withTakeover: boolean,
): Promise<Sample> {
  await setLease(http, ns, true);
  const op = await startOperator(cli, {
    name,
    namespace: ns,
    args: ["--leader-elect=true", `--leader-election-namespace=${ns}`, `--retry-period=${RETRY_PERIOD}`],
  });
  try {
    const readyAt = await untilReady(op);
    await sleep(5000);
    const rss = rssBytes(op.pid);
    const peakRss = rssBytes(op.pid, "VmHWM");
    const cached = sum(await metricsText(op.metricsPort), /^resize_requests\{[^}]*\} (\d+)/gm);
    const readyMs = readyAt - op.startedAt;
    if (!withTakeover) return { readyMs, rss, peakRss, cached };
    const released = Date.now();
    await setLease(http, ns, false);
    const reconciles =
      /^controller_runtime_reconcile_total\{[^}]*controller="instancegroupmanager"[^}]*\} (\d+)/gm;
    while (sum(await metricsText(op.metricsPort), reconciles) === 0) {
      if (Date.now() - released > 120_000) throw new Error(`${name}: no reconcile 120 s after the release`);
      await sleep(10);
    }
    const reconciled = Date.now();
    const leading = logTime(op.log, "became leader");
    if (leading === undefined) throw new Error(`${name}: reconciled without "became leader" in its log`);
    return {
      readyMs,
      rss,
      peakRss,
      cached,
      takeover: { takeoverMs: reconciled - released, firstPassMs: reconciled - leading },
    };
  } finally {
    await op.stop();
  }
}

/** Creates the requests count by count and measures each; writes the result files `figures` names. */
export async function memoryAndStartup(cli: string, figures: readonly Figures[]): Promise<void> {
  const withTakeover = figures.includes("takeover");
  const kc = kubeConfig();
  const http = new KubeHttp(kc);
  await installCrds(http);

  // Both namespaces have one group, so that the new leader has something to reconcile.
  const empty = await namespace(http, "bench-mem-empty");
  await createGroupWithTarget(http, empty.name, "g000");
  log("memory: baseline (no requests)");
  const base = await measure(http, cli, empty.name, "memory-empty", withTakeover);

  const full = await namespace(http, "bench-mem");
  await createGroupWithTarget(http, full.name, "g000");
  let created = 0;
  let first: CountRun["first"] | undefined;
  try {
    for (const count of COUNTS) {
      log(`memory: creating SUCCEEDED ResizeRequests ${created}..${count} over ${GROUPS} groups`);
      const startedAt = Date.now();
      await pool(
        Array.from({ length: count - created }, (_, i) => created + i),
        48,
        (i) =>
          createSucceededRequest(
            http,
            full.name,
            `r${String(i).padStart(6, "0")}`,
            `g${String(i % GROUPS).padStart(3, "0")}`,
            i,
          ),
      );
      created = count;
      log(`memory: created in ${Math.round((Date.now() - startedAt) / 1000)} s`);
      const sample = (await http.request("GET", rrPath(full.name), { query: { limit: 1 } })) as {
        items: unknown[];
      };
      const objectJsonBytes = Buffer.byteLength(JSON.stringify(sample.items[0]));
      const bare = await bareList(http, rrPath(full.name));
      const streamed = await bareStreamedList(http, rrPath(full.name));
      for (const listed of [bare, streamed])
        if (listed.objects !== count)
          throw new Error(`a bare list found ${listed.objects} of ${count} requests`);
      const loaded = await measure(http, cli, full.name, `memory-${count}`, withTakeover);
      if (loaded.cached !== count)
        throw new Error(`expected ${count} cached requests, /metrics says ${loaded.cached}`);
      first ??= { count, readyMs: loaded.readyMs, bareListMs: bare.seconds * 1000 };
      const run: CountRun = {
        count,
        loaded,
        base,
        objectJsonBytes,
        bareListMs: bare.seconds * 1000,
        bareStreamedListMs: streamed.seconds * 1000,
        first,
      };
      if (figures.includes("memory")) reportMemory(run);
      if (figures.includes("startup")) reportStartup(run);
      if (figures.includes("takeover")) reportTakeover(run);
    }
  } finally {
    // The namespace controller deletes about 450 requests a second here: 250,000 take over 9 minutes.
    await Promise.all([empty.remove(), full.remove(30 * 60_000)]);
  }
}

interface CountRun {
  count: number;
  loaded: Sample;
  base: Sample;
  objectJsonBytes: number;
  bareListMs: number;
  bareStreamedListMs: number;
  /** The first count measured in this run, for linearity. */
  first: { count: number; readyMs: number; bareListMs: number };
}

function reportMemory({ count, loaded, base, objectJsonBytes }: CountRun): void {
  const bytesPerObject = Math.round((loaded.rss - base.rss) / count);
  const targeted = count === 100_000;
  report({
    bench: `memory-${count}`,
    objects: count,
    rssMiB: round(loaded.rss / MiB, 1),
    baselineRssMiB: round(base.rss / MiB, 1),
    ratio: round(loaded.rss / base.rss, 2),
    bytesPerObject,
    peakRssMiB: round(loaded.peakRss / MiB, 1),
    baselinePeakRssMiB: round(base.peakRss / MiB, 1),
    objectJsonBytes,
    ...(targeted && {
      target: "rssMiB <= 450 and bytesPerObject <= 2500",
      met: loaded.rss / MiB <= 450 && bytesPerObject <= 2500,
    }),
    machine: machine(),
  });
}

/** Linear: 2.5 times the objects in at most 2.7 times the time, i.e. 8 % above proportional. */
const LINEAR_SLACK = 1.08;

function reportStartup({ count, loaded, base, bareListMs, bareStreamedListMs, first }: CountRun): void {
  const ratioToBareList = loaded.readyMs / bareListMs;
  const growth = count === first.count ? undefined : loaded.readyMs / first.readyMs;
  const allowedGrowth = (count / first.count) * LINEAR_SLACK;
  report({
    bench: `startup-${count}`,
    objects: count,
    readySeconds: round(loaded.readyMs / 1000, 2),
    baselineReadySeconds: round(base.readyMs / 1000, 2),
    ratio: round(loaded.readyMs / base.readyMs, 2),
    bareListSeconds: round(bareListMs / 1000, 2),
    ratioToBareList: round(ratioToBareList, 2),
    bareStreamedListSeconds: round(bareStreamedListMs / 1000, 2),
    ...(growth !== undefined && {
      growthFrom: first.count,
      readyGrowth: round(growth, 2),
      readyGrowthAllowed: round(allowedGrowth, 2),
      bareListGrowth: round(bareListMs / first.bareListMs, 2),
    }),
    target: `ratioToBareList <= 1.5${growth === undefined ? "" : ` and readyGrowth <= ${round(allowedGrowth, 2)}`}`,
    met: ratioToBareList <= 1.5 && (growth === undefined || growth <= allowedGrowth),
    machine: machine(),
  });
}

function reportTakeover({ count, loaded, base }: CountRun): void {
  if (!loaded.takeover || !base.takeover) throw new Error("the takeover was not measured");
  report({
    bench: `takeover-${count}`,
    objects: count,
    takeoverSeconds: round(loaded.takeover.takeoverMs / 1000, 2),
    baselineTakeoverSeconds: round(base.takeover.takeoverMs / 1000, 2),
    firstPassSeconds: round(loaded.takeover.firstPassMs / 1000, 3),
    baselineFirstPassSeconds: round(base.takeover.firstPassMs / 1000, 3),
    ratio: round(loaded.takeover.firstPassMs / base.takeover.firstPassMs, 2),
    retryPeriod: RETRY_PERIOD,
    machine: machine(),
  });
}
