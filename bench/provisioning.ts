// At Kueue's scale: N Jobs (500; `npm run bench -- provisioning --jobs 2000`) through the real Kueue
// (testbed/kueue.ts, started against the local cluster if it is not running yet), each holding back its
// Job behind a ProvisioningRequest admission check, spread over 50 groups whose targets are ready the
// moment they are scaled (as the throughput benchmark's: a group runs one attempt at a time, so one
// group would measure its queue, not the provider). Two sides in the same run, each on a fresh
// namespace with its own ClusterQueue, held until every Job's Workload exists and then released:
// - simulated: bench/instant-provisioner.ts, a process answering `Provisioned=True` at once (the floor);
// - ours: the operator (the real process, `node dist/cli.js run`, default concurrency) serving
//   ProvisioningRequests of its class with a ResizeRequest each.
// Figures: Jobs admitted per second (release → the last Workload Admitted, as this benchmark's watch
// saw it) and `ratio` = ours ÷ simulated; API calls by caller (the API server's own counters,
// apportioned by resource: provisioning-figures.ts); ProvisioningRequest creation → Provisioned=True
// (p50/p99, as the watch saw both); the operator's resident memory. Rounds alternate the sides
// (BENCH_PROVISIONING_ROUNDS, default 1); the median round's figures are reported.
import { spawn } from "node:child_process";
import path from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { PROVISIONING_CLASS } from "../src/api/provisioning-request.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { startKueue } from "../testbed/kueue.js";
import { localClusterDir } from "../testbed/local.js";
import { ensureTools } from "../testbed/tools.js";
import {
  apiServerCounters,
  callsBetween,
  installCrds,
  kubeConfig,
  kubeconfigFile,
  log,
  machine,
  report,
  repoRoot,
  round,
  rssBytes,
  startOperator,
  untilReady,
  logTime,
} from "./lib.js";
import { GROUPS, prepare, until, type Fixture } from "./provisioning-fixture.js";
import {
  byCaller,
  callsOf,
  jobsFlag,
  percentile,
  provisionedLatencies,
  type Caller,
} from "./provisioning-figures.js";

const SIMULATED_CLASS = "instant.bench.resize-operator.dev";
/** The operator's default --concurrency; the simulated provisioner writes with as many at a time. */
const CONCURRENCY = 4;
const ROUNDS = Number(process.env.BENCH_PROVISIONING_ROUNDS ?? 1);

interface SideResult {
  readonly seconds: number;
  readonly jobsPerSecond: number;
  readonly calls: Record<string, number>;
  readonly callers: Record<Caller, number>;
  readonly apiServerCpuSeconds: number;
  readonly provisionedMs: { p50: number; p99: number; max: number };
  readonly rssMiB?: { end: number; peak: number };
  readonly providerExit: number | null;
}

/** Releases the held ClusterQueue and waits until every Job is admitted; counts the API calls meanwhile. */
type Measured = Omit<SideResult, "rssMiB" | "providerExit">;

async function measure(kc: KubeConfig, f: Fixture, jobs: number): Promise<Measured> {
  const c0 = await apiServerCounters(kc);
  const started = Date.now();
  await f.release();
  await until(
    `${jobs} Jobs admitted in ${f.ns}`,
    () => f.sightings.admittedAt.size >= jobs,
    Math.max(900_000, jobs * 1000),
  );
  const doneAt = Math.max(...f.sightings.admittedAt.values());
  const c1 = await apiServerCounters(kc);
  const calls = callsBetween(c0, c1, /./);
  const latencies = provisionedLatencies(f.sightings.sightings());
  const seconds = (doneAt - started) / 1000;
  return {
    seconds,
    jobsPerSecond: jobs / seconds,
    calls,
    callers: byCaller(calls),
    apiServerCpuSeconds: c1.cpuSeconds - c0.cpuSeconds,
    provisionedMs: {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: percentile(latencies, 100),
    },
  };
}

async function simulatedSide(http: KubeHttp, kc: KubeConfig, jobs: number): Promise<SideResult> {
  log(`provisioning: simulated side (${jobs} Jobs)`);
  const f = await prepare(http, "bench-prov-sim", SIMULATED_CLASS, jobs, false);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(repoRoot, "bench", "instant-provisioner.ts"),
      f.ns,
      SIMULATED_CLASS,
      String(CONCURRENCY),
    ],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] },
  );
  const exit = new Promise<number | null>((resolve) => child.on("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    void exit.then(() => {
      reject(new Error("the simulated provisioner exited before it was ready"));
    });
  });
  const result = await measure(kc, f, jobs);
  log(`provisioning: simulated ${JSON.stringify(summary(result, jobs))}`);
  child.kill("SIGTERM");
  const providerExit = await exit;
  await f.remove();
  return { ...result, providerExit };
}

async function ourSide(http: KubeHttp, kc: KubeConfig, cli: string, jobs: number): Promise<SideResult> {
  log(`provisioning: our side (${jobs} Jobs over ${GROUPS} groups)`);
  const f = await prepare(http, "bench-prov-ours", PROVISIONING_CLASS, jobs, true);
  const op = await startOperator(cli, { name: "provisioning", namespace: f.ns });
  await untilReady(op);
  await until(
    "the operator serving ProvisioningRequests",
    () => logTime(op.log, "serving ProvisioningRequests") !== undefined,
    60_000,
  );
  const result = await measure(kc, f, jobs);
  log(`provisioning: ours ${JSON.stringify(summary(result, jobs))}`);
  const rssMiB = {
    end: round(rssBytes(op.pid) / 2 ** 20, 1),
    peak: round(rssBytes(op.pid, "VmHWM") / 2 ** 20, 1),
  };
  const providerExit = await op.stop();
  await f.remove();
  return { ...result, rssMiB, providerExit };
}

const summary = (side: Measured & { providerExit?: number | null }, jobs: number) => ({
  seconds: round(side.seconds, 2),
  jobsAdmittedPerSecond: round(side.jobsPerSecond, 2),
  provisionedMsP50: side.provisionedMs.p50,
  provisionedMsP99: side.provisionedMs.p99,
  provisionedMsMax: side.provisionedMs.max,
  providerApiCallsPerRequest: round(side.callers.provider / jobs, 2),
  kueueApiCallsPerJob: round(side.callers.kueue / jobs, 2),
  eventWritesPerJob: round(side.callers.events / jobs, 2),
  clusterApiCallsPerJob: round(side.callers.cluster / jobs, 2),
  apiServerCpuMsPerJob: round((side.apiServerCpuSeconds * 1000) / jobs, 2),
  providerExit: side.providerExit,
});

export async function provisioning(cli: string, args: readonly string[]): Promise<void> {
  const jobs = jobsFlag(args);
  const kc = kubeConfig();
  const http = new KubeHttp(kc);
  await installCrds(http);
  // Kueue is started once (or reused) and left running: `npm run cluster:down` stops it with the cluster.
  await startKueue({ dir: localClusterDir, kubeconfig: kubeconfigFile(), tools: await ensureTools(), log });
  const rounds: { simulated: SideResult; ours: SideResult; ratio: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which side goes first, so a drift of the shared machine moves both.
    const first = i % 2 === 0 ? "simulated" : "ours";
    const a =
      first === "simulated" ? await simulatedSide(http, kc, jobs) : await ourSide(http, kc, cli, jobs);
    const b =
      first === "simulated" ? await ourSide(http, kc, cli, jobs) : await simulatedSide(http, kc, jobs);
    const [simulated, ours] = first === "simulated" ? [a, b] : [b, a];
    const ratio = ours.jobsPerSecond / simulated.jobsPerSecond;
    log(`provisioning: round ${i + 1} ratio ${round(ratio)}`);
    rounds.push({ simulated, ours, ratio });
  }
  const middle = [...rounds].sort((x, y) => x.ratio - y.ratio)[Math.floor(rounds.length / 2)];
  if (!middle) throw new Error("no rounds");
  const { ours, simulated } = middle;
  report({
    bench: `provisioning-${jobs}`,
    jobs,
    groups: GROUPS,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    ratio: round(middle.ratio),
    roundRatios: rounds.map((r) => round(r.ratio)),
    target: ">= 0.6",
    jobsAdmittedPerSecond: round(ours.jobsPerSecond, 2),
    simulatedJobsAdmittedPerSecond: round(simulated.jobsPerSecond, 2),
    apiCallsPerProvisioningRequest: round(ours.callers.provider / jobs, 2),
    // Events have no writer in the API server's counters: ours are what our side wrote beyond the other.
    eventWritesPerProvisioningRequest: round(
      Math.max(0, ours.callers.events - simulated.callers.events) / jobs,
      2,
    ),
    kueueApiCallsPerJob: round(simulated.callers.kueue / jobs, 2),
    provisionedMsP50: ours.provisionedMs.p50,
    provisionedMsP99: ours.provisionedMs.p99,
    operatorRssMiB: ours.rssMiB,
    ours: summary(ours, jobs),
    simulated: summary(simulated, jobs),
    ourCalls: callsOf(ours.calls, "provider"),
    kueueCalls: callsOf(simulated.calls, "kueue"),
    machine: machine(),
  });
}
