// Reconcile throughput: 500 ResizeRequests (resizeBy 1) over 50 groups whose targets are ready the
// moment they are scaled (readiness read from spec.replicas of a controller-less Workload kind), and
// the operator (--concurrency=4) drives them all to SUCCEEDED. Baseline, measured in the same run: the
// floor (throughput-floor.ts), a plain client doing the least the contract asks of any implementation
// (the crash-safe writes, the contract's status fields, its fewest Events), with 4 workers; it is
// watched as the operator side is (a watch standing for its informer, and this benchmark's own), and
// both sides end when this benchmark's watch sees the last SUCCEEDED. Calls, bytes and CPU are counted
// by the API server itself (apiserver_request_total, process_cpu_seconds_total and the families of
// lib.ts's COST_FAMILIES), so both sides are counted the same way; `apiServerCpuRatio` is ours ÷ the
// floor's API-server CPU per request. Three rounds alternate the two sides (BENCH_THROUGHPUT_ROUNDS);
// the median round is reported, with every round's ratio.
//
// The operator's namespace has the chart's finalizer policy (a MutatingAdmissionPolicy, Kubernetes
// 1.36+) bound to it, as a default install would, so the API server adds the finalizer when a request
// is created; BENCH_FINALIZER_POLICY=0 measures without it (the operator adds the finalizer itself).
// The floor is unchanged (it still adds the finalizer by PATCH): the figures stay comparable run to run.
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import type { ResizeRequest } from "../src/api/resize-request.js";
import { finalizerPolicy, finalizerPolicyBinding } from "../src/generate/finalizer-policy.js";
import { isNotFound } from "../src/runtime/api-errors.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import {
  apiServerCounters,
  callsBetween,
  costBetween,
  type ApiServerCounters,
  createGroupWithTarget,
  createRequest,
  installCrds,
  kubeConfig,
  log,
  logTime,
  machine,
  namespace,
  pool,
  report,
  round,
  rrPath,
  startOperator,
  untilReady,
  watchAllSucceeded,
  WRITE_VERBS,
} from "./lib.js";
import { FINALIZER, runFloor, type Fixture } from "./throughput-floor.js";
import {
  backgroundCpuPerSecond,
  clusterPid,
  cpuMark,
  machineCpuMsBetween,
  processCpuMs,
  processCpuSeconds,
} from "./cpu.js";

const REQUESTS = 500;
const GROUPS = 50;
const CONCURRENCY = 4;
/** Rounds of each side, alternated (BENCH_THROUGHPUT_ROUNDS, default 3). */
const ROUNDS = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? 3);
/** Waited after each side's last SUCCEEDED before its API-server counters are read. */
const SETTLE_MS = 3000;

const POLICIES = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
const BINDINGS = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";

/**
 * The generated finalizer policy, bound to `ns` only; resolves once a server-side dry run of a create
 * in `ns` comes back with the finalizer (policies take effect asynchronously). Returns its removal.
 */
async function bindFinalizerPolicy(http: KubeHttp, ns: string): Promise<() => Promise<void>> {
  const policy = finalizerPolicy();
  const binding = finalizerPolicyBinding();
  const name = policy.metadata.name;
  const remove = async (): Promise<void> => {
    for (const url of [`${BINDINGS}/${name}`, `${POLICIES}/${name}`])
      await http.request("DELETE", url).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  };
  await remove();
  await http.request("POST", POLICIES, { body: policy });
  const selector = { matchLabels: { "kubernetes.io/metadata.name": ns } };
  await http.request("POST", BINDINGS, {
    body: { ...binding, spec: { ...binding.spec, matchResources: { namespaceSelector: selector } } },
  });
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    const probe = (await http.request("POST", `${rrPath(ns)}?dryRun=All`, {
      body: {
        apiVersion: "compute.resize-operator.dev/v1",
        kind: "ResizeRequest",
        metadata: { name: "probe" },
        spec: { instanceGroupManager: "probe", resizeBy: 1 },
      },
    })) as ResizeRequest;
    if (probe.metadata.finalizers?.includes(FINALIZER)) return remove;
    await sleep(250);
  }
  throw new Error("the finalizer policy did not take effect within 60 s");
}

async function fixture(
  http: KubeHttp,
  prefix: string,
  beforeRequests?: (ns: string) => Promise<void>,
): Promise<Fixture> {
  const { name: ns, remove } = await namespace(http, prefix);
  await beforeRequests?.(ns);
  const groups = Array.from({ length: GROUPS }, (_, i) => `g${String(i).padStart(2, "0")}`);
  await pool(groups, 8, (g) => createGroupWithTarget(http, ns, g));
  const byGroup = new Map(groups.map((g) => [g, [] as string[]]));
  // Round-robin over groups, so each group's FIFO order is its creation order.
  const requests = Array.from({ length: REQUESTS }, (_, i) => ({
    name: `r${String(i).padStart(4, "0")}`,
    group: groups[i % GROUPS] ?? "g00",
  }));
  for (const r of requests) byGroup.get(r.group)?.push(r.name);
  await pool(requests, 8, (r) => createRequest(http, ns, r.name, r.group));
  return { ns, remove, byGroup };
}

/** Sums the writes whose key contains `part` (e.g. "resizerequests"). */
const sum = (writes: Record<string, number>, part: string): number =>
  Object.entries(writes)
    .filter(([k]) => k.includes(part))
    .reduce((a, [, v]) => a + v, 0);

interface Round {
  baselineMs: number;
  operatorMs: number;
  ratio: number;
  baselineCounters: readonly [ApiServerCounters, ApiServerCounters];
  operatorCounters: readonly [ApiServerCounters, ApiServerCounters];
  /** The operator's /metrics at the end of its run. */
  metrics: string;
  exit: number | null;
  /** CPU per side's window, ms: the machine's (less the background) and the client's own. */
  cpu: {
    floorMachineMs: number;
    floorClientMs: number;
    floorEtcdMs: number;
    operatorMachineMs: number;
    operatorMs: number;
    operatorEtcdMs: number;
    operatorWatchMs: number;
  };
}

/**
 * One round: the floor on a fresh fixture, then the operator on another, each timed alone; both
 * namespaces are deleted only after both sides ran (a deletion is hundreds of API writes that must not
 * land inside a measurement), and before the next round.
 */
async function oneRound(
  http: KubeHttp,
  kc: KubeConfig,
  cli: string,
  withPolicy: boolean,
  profileDir: string | undefined,
): Promise<Round> {
  log(`throughput: baseline fixture (${GROUPS} groups, ${REQUESTS} requests)`);
  const base = await fixture(http, "bench-floor");
  // The floor is watched as the operator is: one watch stands for the informer any controller needs to
  // learn of new requests, the other is this benchmark's own (the operator side has both too), so the
  // API server's watch fan-out is counted on both sides.
  const floorInformer = await watchAllSucceeded(http, base.ns, REQUESTS);
  const floorWatch = await watchAllSucceeded(http, base.ns, REQUESTS);
  const background = await backgroundCpuPerSecond();
  const etcd = clusterPid("etcd");
  const etcdMs = (): number => (etcd === undefined ? Number.NaN : processCpuMs(etcd));
  const b0 = await apiServerCounters(kc);
  const c0 = cpuMark();
  const e0 = etcdMs();
  const floorStarted = Date.now();
  await runFloor(http, base, CONCURRENCY);
  const [, floorDoneAt] = await Promise.all([floorInformer(60_000), floorWatch(60_000)]);
  const baselineMs = floorDoneAt - floorStarted;
  // The same settling time as the operator side's below, so both windows hold as much idle API server.
  await sleep(SETTLE_MS);
  const c1 = cpuMark();
  const e1 = etcdMs();
  const b1 = await apiServerCounters(kc);

  log(`throughput: operator fixture (finalizer policy ${withPolicy ? "bound" : "absent"})`);
  let unbind = (): Promise<void> => Promise.resolve();
  const f = await fixture(http, "bench-tp", async (ns) => {
    if (withPolicy) unbind = await bindFinalizerPolicy(http, ns);
  });
  const allSucceeded = await watchAllSucceeded(http, f.ns, REQUESTS);
  const o0 = await apiServerCounters(kc);
  const co0 = cpuMark();
  const eo0 = etcdMs();
  const op = await startOperator(cli, {
    name: "throughput",
    namespace: f.ns,
    args: [`--concurrency=${CONCURRENCY}`],
    nodeArgs: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  });
  await untilReady(op);
  const doneAt = await allSucceeded(600_000);
  const startedAt = logTime(op.log, "controller started");
  if (startedAt === undefined) throw new Error(`no "controller started" in ${op.log}`);
  // Let the last group-status writes and events land before counting.
  await sleep(SETTLE_MS);
  const co1 = cpuMark();
  const eo1 = etcdMs();
  const o1 = await apiServerCounters(kc);
  const metrics = await fetch(`http://127.0.0.1:${op.metricsPort}/metrics`).then((r) => r.text());
  const exit = await op.stop();
  await unbind();
  await Promise.all([base.remove(), f.remove()]);
  const operatorMs = doneAt - startedAt;
  log(`throughput: round ratio ${round(baselineMs / operatorMs)}`);
  return {
    baselineMs,
    operatorMs,
    ratio: baselineMs / operatorMs,
    baselineCounters: [b0, b1],
    operatorCounters: [o0, o1],
    metrics,
    exit,
    cpu: {
      floorMachineMs: machineCpuMsBetween(c0, c1, background),
      // This process ran the floor and both its watches; on the operator side it ran one watch.
      floorClientMs: c1.selfMs - c0.selfMs,
      floorEtcdMs: e1 - e0,
      operatorMachineMs: machineCpuMsBetween(co0, co1, background),
      // The operator process's whole life, start-up included (it started inside the window).
      operatorMs: processCpuSeconds(metrics) * 1000,
      operatorEtcdMs: eo1 - eo0,
      // This benchmark's own watch on the operator side (the floor's client figure has it too).
      operatorWatchMs: co1.selfMs - co0.selfMs,
    },
  };
}

/**
 * What one side's requests cost the API server beyond their count, per request: bytes written to it and
 * sent to watchers, watch events, CEL and admission time, and the API server's and etcd's time per
 * resource (not CPU: time, which waits count in too), each summed by resource.
 */
function costPerRequest(before: ApiServerCounters, after: ApiServerCounters): Record<string, unknown> {
  const per = (figures: Record<string, number>, scale: number, digits: number): Record<string, number> =>
    Object.fromEntries(
      Object.entries(figures)
        .map(([k, v]) => [k, round((v * scale) / REQUESTS, digits)] as const)
        .filter(([, v]) => v > 0),
    );
  const total = (figures: Record<string, number>): number =>
    Object.values(figures).reduce((a, v) => a + v, 0);
  const kib = 1 / 1024;
  const bodies = costBetween(before, after, "apiserver_request_body_size_bytes_sum", ["resource", "verb"]);
  const watchBytes = costBetween(before, after, "apiserver_watch_events_sizes_sum", ["resource"]);
  const watchEvents = costBetween(before, after, "apiserver_watch_events_total", ["resource"]);
  const cel = costBetween(before, after, "apiserver_cel_evaluation_duration_seconds_sum", []);
  const admission = costBetween(before, after, "apiserver_admission_step_admission_duration_seconds_sum", [
    "operation",
    "type",
  ]);
  // WATCH and the long-running calls are open for the whole window whatever the load: left out.
  const handling = Object.fromEntries(
    Object.entries(
      costBetween(before, after, "apiserver_request_duration_seconds_sum", [
        "verb",
        "resource",
        "subresource",
      ]),
    ).filter(([k]) => !k.startsWith("WATCH") && !k.startsWith("CONNECT")),
  );
  const etcd = costBetween(before, after, "etcd_request_duration_seconds_sum", ["operation", "resource"]);
  return {
    requestBodyKiB: round((total(bodies) * kib) / REQUESTS, 2),
    requestBodyKiBBy: per(bodies, kib, 2),
    watchEvents: round(total(watchEvents) / REQUESTS, 2),
    watchEventsBy: per(watchEvents, 1, 2),
    watchKiB: round((total(watchBytes) * kib) / REQUESTS, 2),
    watchKiBBy: per(watchBytes, kib, 2),
    celMs: round((total(cel) * 1000) / REQUESTS, 3),
    admissionMsBy: per(admission, 1000, 3),
    handlingMs: round((total(handling) * 1000) / REQUESTS, 2),
    handlingMsBy: per(handling, 1000, 2),
    etcdMs: round((total(etcd) * 1000) / REQUESTS, 2),
  };
}

export async function throughput(cli: string, profileDir?: string): Promise<void> {
  const kc = kubeConfig();
  const http = new KubeHttp(kc);
  await installCrds(http);
  const withPolicy = process.env.BENCH_FINALIZER_POLICY !== "0";
  // Rounds alternate the two sides, so a drift of the shared machine moves both; the figure and its
  // counts are the median round's (one round per side varied from 0.48 to 0.55 on the same code).
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await oneRound(http, kc, cli, withPolicy, profileDir));
  const middle = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)];
  if (!middle) throw new Error("no rounds");
  const [b0, b1] = middle.baselineCounters;
  const [o0, o1] = middle.operatorCounters;
  const baselineWrites = callsBetween(b0, b1, WRITE_VERBS);
  const opWrites = callsBetween(o0, o1, WRITE_VERBS);
  // Single-object reads, the target and its Scale among them (lists and watches are the informers', once).
  const opReads = callsBetween(o0, o1, /^GET$/);

  const per = (n: number): number => round(n / REQUESTS, 2);
  const operatorRps = REQUESTS / (middle.operatorMs / 1000);
  const baselineRps = REQUESTS / (middle.baselineMs / 1000);
  const reconciles = [
    ...middle.metrics.matchAll(/^controller_runtime_reconcile_total\{[^}]*result="(\w+)"\} (\d+)/gm),
  ].reduce((a, m) => a + Number(m[2]), 0);
  report({
    bench: "throughput",
    requests: REQUESTS,
    groups: GROUPS,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    operatorSeconds: round(middle.operatorMs / 1000, 2),
    operatorRequestsPerSecond: round(operatorRps, 1),
    baselineSeconds: round(middle.baselineMs / 1000, 2),
    baselineRequestsPerSecond: round(baselineRps, 1),
    ratio: round(middle.ratio),
    roundRatios: rounds.map((r) => round(r.ratio)),
    target: ">= 0.7",
    operatorWritesPerRequest: per(sum(opWrites, "compute.resize-operator.dev") + sum(opWrites, "workloads")),
    operatorStateWritesPerRequest: per(sum(opWrites, "resizerequests")),
    stateWritesTarget: "<= 4",
    finalizerPolicy: withPolicy,
    operatorStatusWritesPerRequest: per(sum(opWrites, "resizerequests status")),
    operatorFinalizerWritesPerRequest: per(sum(opWrites, "PATCH compute.resize-operator.dev resizerequests")),
    operatorScaleWritesPerRequest: per(sum(opWrites, "workloads scale")),
    operatorGroupStatusWritesPerRequest: per(sum(opWrites, "instancegroupmanagers")),
    operatorEventWritesPerRequest: per(sum(opWrites, "events")),
    operatorReconcilesPerRequest: per(reconciles),
    operatorTargetReadsPerRequest: per(sum(opReads, "workloads")),
    // What bounds the ratio: the API server's CPU per request on each side (etcd's is not counted). Over
    // the operator's run this includes its start-up's lists and the 3 s before counting.
    operatorApiServerCpuMsPerRequest: round(((o1.cpuSeconds - o0.cpuSeconds) * 1000) / REQUESTS, 2),
    baselineApiServerCpuMsPerRequest: round(((b1.cpuSeconds - b0.cpuSeconds) * 1000) / REQUESTS, 2),
    // Ours ÷ the floor's: what a request of ours costs the shared API server beyond the minimum.
    apiServerCpuRatio: round((o1.cpuSeconds - o0.cpuSeconds) / (b1.cpuSeconds - b0.cpuSeconds), 2),
    apiServerCpuTarget: "<= 1.4",
    // What bounds the ratio on a machine whose cores every side shares: the whole machine's CPU per
    // request (less what it burns idle), and the client's own share of it. Both sides CPU-bound, the
    // throughput ratio is at most the floor's machine CPU per request ÷ ours (cpuBoundRatio).
    machineCpuMsPerRequest: {
      operator: round(middle.cpu.operatorMachineMs / REQUESTS, 2),
      floor: round(middle.cpu.floorMachineMs / REQUESTS, 2),
    },
    clientCpuMsPerRequest: {
      operator: round(middle.cpu.operatorMs / REQUESTS, 2),
      operatorSideWatch: round(middle.cpu.operatorWatchMs / REQUESTS, 2),
      floor: round(middle.cpu.floorClientMs / REQUESTS, 2),
    },
    etcdCpuMsPerRequest: {
      operator: round(middle.cpu.operatorEtcdMs / REQUESTS, 2),
      floor: round(middle.cpu.floorEtcdMs / REQUESTS, 2),
    },
    // The same bound from the three processes each side is made of (API server, etcd, the client), which
    // other work on the machine does not move: (floor's sum) ÷ (ours).
    processCpuBoundRatio: round(
      ((b1.cpuSeconds - b0.cpuSeconds) * 1000 + middle.cpu.floorEtcdMs + middle.cpu.floorClientMs) /
        ((o1.cpuSeconds - o0.cpuSeconds) * 1000 +
          middle.cpu.operatorEtcdMs +
          middle.cpu.operatorMs +
          middle.cpu.operatorWatchMs),
    ),
    cpuBoundRatio: round(middle.cpu.floorMachineMs / middle.cpu.operatorMachineMs),
    roundCpuBoundRatios: rounds.map((r) => round(r.cpu.floorMachineMs / r.cpu.operatorMachineMs)),
    baselineEventWritesPerRequest: per(sum(baselineWrites, "events")),
    baselineWritesPerRequest: per(
      sum(baselineWrites, "compute.resize-operator.dev") + sum(baselineWrites, "workloads"),
    ),
    // Beyond the call counts (costPerRequest): where each side's API-server time and bytes go.
    operatorCost: costPerRequest(o0, o1),
    baselineCost: costPerRequest(b0, b1),
    operatorWrites: opWrites,
    operatorReads: opReads,
    operatorExitCodes: rounds.map((r) => r.exit),
    machine: machine(),
  });
}
