// Faults 6: the REST API is linearizable under faults, checked. Concurrent clients using Google's
// official Go client make a random mix of inserts (with requestIds, some replayed), gets, lists,
// cancels, deletes and Operation reads against two operator replicas with leader election, while the
// leader is SIGKILLed (and restarted on its port) or frozen with SIGSTOP past its lease (another
// replica takes over while it still believes it leads), kube-apiserver is restarted, the replicas'
// TCP connections to Redis or to the API server are cut (reset, new ones refused) or blackholed (a
// partition) by a fault proxy (testbed/fault-proxy.ts) and restored, or the Redis master of a Sentinel
// set is killed and failed over (alone, and with the leader frozen meanwhile), or the project's slot
// of a Redis Cluster is moved to another master (resharding). Every history is
// checked with Porcupine against the model in test/linearizable/model (docs/reliability.md); a
// violation fails the test and leaves the history and its HTML visualization in the folder printed.
// Each history's mutations (answers a correct server cannot give, added to the real history) must be
// found illegal, so the checker is shown not to be vacuous on the very histories it passes.
// Bounded: one history per fault kind. Soak: rounds of every kind until SOAK_MINUTES are over.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { dependentsRestarted, startComponent, stopComponent } from "../../testbed/components.js";
import { FaultProxy, type NetworkFault } from "../../testbed/fault-proxy.js";
import { ensureLinearizable } from "../../testbed/go-programs.js";
import { waitFor } from "../../testbed/processes.js";
import {
  SENTINEL_MASTER,
  startRedisCluster,
  startSentinelSet,
  type RedisClusterSet,
  type SentinelSet,
} from "../../testbed/redis-topologies.js";
import { moveSlot } from "../../testbed/redis-slot-move.js";
import { eventually } from "../support/kube.js";
import {
  apiServerAddress,
  Replicas,
  runRecorder,
  writeProxiedKubeconfig,
  type HistoryResult,
} from "../support/linearizable.js";
import { reliabilitySuite } from "../support/reliability-suite.js";
import { SOAK, seededRandom } from "../support/reliability.js";
import { listRequests } from "../support/resize.js";
import { fullAccess, serviceAccountToken } from "../support/rest.js";

const GROUPS = 3;
const REPLICAS = 2;
const CLIENTS = 6;
/** Calls checked per history, at least (reads with an unknown outcome are not counted). */
const OPS = 500;
/**
 * The fault kinds, by the Redis the replicas use: the testbed's server through a fault proxy, a
 * Sentinel set (master + 2 replicas + 3 Sentinels) or a Redis Cluster (3 masters, 3 replicas) of
 * this file's own. The API server is always
 * reached through a fault proxy.
 */
const PHASES = {
  proxied: [
    "none",
    "leader-killed",
    "leader-frozen",
    "apiserver-restarted",
    "redis-cut",
    "redis-blackholed",
    "apiserver-cut",
    "apiserver-blackholed",
  ],
  sentinel: ["redis-failover", "redis-failover+leader-frozen"],
  cluster: ["redis-slot-moved"],
} as const;
type Phase = keyof typeof PHASES;
type Fault = (typeof PHASES)[Phase][number];
/** How long a history lasts at least, so it spans its fault and the recovery after it. */
const SPAN_MS: Record<Fault, number> = {
  none: 0,
  "leader-killed": 14_000,
  "leader-frozen": 14_000,
  "apiserver-restarted": 25_000,
  "redis-cut": 12_000,
  "redis-blackholed": 12_000,
  "apiserver-cut": 12_000,
  "apiserver-blackholed": 12_000,
  "redis-failover": 14_000,
  "redis-failover+leader-frozen": 16_000,
  "redis-slot-moved": 12_000,
};
const FREEZE_MS = 7_000; // past the 4 s lease
const APISERVER_DOWN_MS = 4_000;
const NETWORK_FAULT_MS = 5_000; // past the 3 s renew deadline: the leader loses its Lease

const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const random = seededRandom(seed);
let sentinel: SentinelSet | undefined;
let cluster: RedisClusterSet | undefined;
let redisProxy: FaultProxy | undefined;
let apiProxy: FaultProxy | undefined;
const suite = reliabilitySuite({
  timeoutMs: 240_000,
  teardown: () => Promise.all([sentinel?.stop(), cluster?.stop(), redisProxy?.close(), apiProxy?.close()]),
});
const folder = path.join(tmpdir(), `resize-operator-linearizable-${process.pid}`);
const kubeconfig = path.join(folder, "kubeconfig-proxied");
let binary: string;
let failed = false;
/** What went wrong in the soak's rounds so far. */
const soakProblems: string[] = [];
/** Histories checked per fault kind, over the whole run. */
const perFault = new Map<Fault, number>();

beforeAll(async () => {
  // A cold build compiles the compute client (a minute or two on 2 cores); later runs hit the cache.
  binary = await ensureLinearizable();
  mkdirSync(folder, { recursive: true });
  process.stderr.write(`[linearizable] histories under ${folder}\n`);
  const redis = new URL(process.env.REDIS_URL ?? "redis://unset");
  redisProxy = await FaultProxy.start({ host: redis.hostname, port: Number(redis.port || 6379) });
  apiProxy = await FaultProxy.start(apiServerAddress());
  writeProxiedKubeconfig(kubeconfig, apiProxy.port);
  const dir = process.env.TESTBED_DIR ?? folder;
  sentinel = await startSentinelSet(path.join(dir, `linz-sentinel-${Date.now()}`));
  cluster = await startRedisCluster(path.join(dir, `linz-cluster-${Date.now()}`));
}, 900_000);

afterAll(() => {
  // Kept when something failed (the histories and visualizations are the evidence) or on request.
  if (!failed && process.env.TESTBED_KEEP !== "1") rmSync(folder, { recursive: true, force: true });
});

/** The operator's Redis flags in `phase`. */
function redisFlags(phase: Phase): string[] {
  if (phase === "sentinel" && sentinel)
    return [`--redis-sentinels=${sentinel.sentinelsFlag}`, `--redis-sentinel-master=${SENTINEL_MASTER}`];
  if (phase === "cluster" && cluster) return [`--redis-cluster-nodes=${cluster.nodesFlag}`];
  const url = new URL(process.env.REDIS_URL ?? "redis://unset");
  url.hostname = "127.0.0.1";
  url.port = String(redisProxy?.port ?? 0);
  return [`--redis-url=${url.toString()}`];
}

/** Freezes the leader for FREEZE_MS; resolves with whether another replica took the Lease meanwhile. */
async function freezeLeader(replicas: Replicas): Promise<boolean> {
  const leader = await replicas.leader();
  const before = leader.process.name;
  let tookOver = false;
  const watching = (async () => {
    const deadline = Date.now() + FREEZE_MS;
    while (Date.now() < deadline && !tookOver) {
      tookOver = (await replicas.leader().catch(() => leader)).process.name !== before;
      await sleep(250);
    }
  })();
  await replicas.freeze(leader, FREEZE_MS);
  await watching;
  return tookOver;
}

/** Kills the Sentinel set's master; resolves once another server is master and the killed one restarted. */
async function failOver(set: SentinelSet): Promise<boolean> {
  const port = await set.masterPort();
  const master = set.servers.find((s) => s.port === port);
  if (!master) return false;
  await master.kill();
  await waitFor("a Sentinel failover", async () => (await set.masterPort()) !== port, 30_000);
  // Back on its port and data folder, as a pod would; the Sentinels make it a replica.
  await master.restart();
  return true;
}

/**
 * `fault` on `proxy` for NETWORK_FAULT_MS; resolves with whether the replicas felt it: for Redis, a
 * replica's /readyz said 503 (Redis unavailable) meanwhile; for the API server, a replica logged that
 * it lost its Lease.
 */
async function cutOff(
  proxy: FaultProxy | undefined,
  fault: NetworkFault,
  replicas: Replicas,
): Promise<boolean> {
  if (!proxy) return false;
  const logs = replicas.all.map((r) => ({ file: r.process.log, from: logLength(r.process.log) }));
  let unready = false;
  const sampling = new AbortController();
  const sampler = (async () => {
    while (!sampling.signal.aborted) {
      const status = await fetch(`${replicas.all[0]?.baseUrl ?? ""}/readyz`, {
        signal: AbortSignal.timeout(1_000),
      })
        .then((res) => res.status)
        .catch(() => 0);
      unready ||= status === 503;
      await sleep(200);
    }
  })();
  await proxy.during(fault, NETWORK_FAULT_MS);
  sampling.abort();
  await sampler;
  if (proxy === redisProxy) return unready;
  // The Lease is lost once renewals fail for the renew deadline; the log line may follow the restore.
  await sleep(1_000);
  return logs.some(({ file, from }) => readFileSync(file, "utf8").slice(from).includes("leadership lost"));
}

function logLength(file: string): number {
  return existsSync(file) ? readFileSync(file, "utf8").length : 0;
}

/** Injects `fault` into a running history; resolves with whether it took effect as intended. */
async function inject(fault: Fault, replicas: Replicas, project: string): Promise<boolean> {
  await sleep(2_000 + random() * 2_000);
  switch (fault) {
    case "none":
      return true;
    case "leader-killed": {
      const leader = await replicas.leader();
      const before = leader.process.name;
      await replicas.killAndRestart(leader, 1_000);
      return (await replicas.leader()).process.name !== before;
    }
    case "leader-frozen":
      return freezeLeader(replicas);
    case "apiserver-restarted": {
      const dir = process.env.TESTBED_DIR;
      if (!dir) throw new Error("TESTBED_DIR is set by the global setup");
      await stopComponent(dir, "kube-apiserver");
      try {
        await sleep(APISERVER_DOWN_MS);
      } finally {
        startComponent(dir, "kube-apiserver");
      }
      return true;
    }
    case "redis-cut":
      return cutOff(redisProxy, "cut", replicas);
    case "redis-blackholed":
      return cutOff(redisProxy, "blackhole", replicas);
    case "apiserver-cut":
      return cutOff(apiProxy, "cut", replicas);
    case "apiserver-blackholed":
      return cutOff(apiProxy, "blackhole", replicas);
    case "redis-failover":
      return sentinel ? failOver(sentinel) : false;
    case "redis-failover+leader-frozen": {
      if (!sentinel) return false;
      const [failedOver, tookOver] = await Promise.all([failOver(sentinel), freezeLeader(replicas)]);
      return failedOver && tookOver;
    }
    case "redis-slot-moved": {
      if (!cluster) return false;
      // The operator's keys of a project share its hash tag (src/operations/keys.ts): one slot.
      const move = await moveSlot(cluster, `{${project}}`);
      process.stderr.write(
        `[linearizable] slot ${move.slot} moved ${move.from} → ${move.to}: ${move.keys} keys, ${move.ms} ms\n`,
      );
      return move.keys > 0 && (await cluster.masterOf(`{${project}}`)) === move.to;
    }
  }
}

/** Runs one history per fault kind of `phase` in a namespace of its own; returns their results. */
async function phase(name: Phase, index: number, problems: string[]): Promise<HistoryResult[]> {
  const ns = await suite.namespace(`rel-linz-${name.slice(0, 1)}${index}`, GROUPS, { maxSize: 3 });
  const token = await serviceAccountToken(ns.name, "client", fullAccess());
  const replicas = new Replicas(ns.name, redisFlags(name), (p) => suite.track(p), { KUBECONFIG: kubeconfig });
  await replicas.start(REPLICAS);
  const results: HistoryResult[] = [];
  for (const [k, fault] of PHASES[name].entries()) {
    const out = path.join(folder, ns.name, `h${k}-${fault}`);
    const recording = runRecorder(binary, [
      "record",
      `-endpoints=${replicas.all.map((r) => r.baseUrl).join(",")}`,
      `-token=${token}`,
      `-project=${ns.name}`,
      `-groups=${ns.groups.join(",")}`,
      `-prefix=h${k}`,
      `-clients=${CLIENTS}`,
      `-ops=${OPS}`,
      `-duration=${SPAN_MS[fault]}ms`,
      `-seed=${seed + index * 100 + k}`,
      `-fault=${fault}`,
      `-out=${out}`,
      // The CRD view: client-go reads among the calls and a watch, straight to the API server (the
      // fault proxy is the operator's).
      `-kubeconfig=${process.env.KUBECONFIG ?? ""}`,
      // Off by default: a requestId used by two calls at once meets the two violations reported in
      // docs/reliability.md (LINEARIZABLE_CONCURRENT_REPLAYS=1 reproduces them).
      ...(process.env.LINEARIZABLE_CONCURRENT_REPLAYS === "1" ? ["-concurrent-replays"] : []),
    ]);
    const tookEffect = await inject(fault, replicas, ns.name).catch((err: unknown) => {
      problems.push(`h${k} ${fault}: injecting failed: ${String(err)}`);
      return true;
    });
    const run = await recording;
    if (fault === "apiserver-restarted") {
      // The next history starts on a whole cluster again.
      await eventually("the API server answers", () => listRequests(ns.name).then(() => true), 90_000);
      await dependentsRestarted();
    }
    // The next history starts on a whole Sentinel set: a master with two synced replicas.
    if (fault.startsWith("redis-failover")) await sentinel?.healthy(60_000);
    const r = run.result;
    const label = `${ns.name} h${k} ${fault}`;
    if (!tookEffect)
      problems.push(
        `${label}: the fault did not take effect (no other leader or master, Redis not missed, no Lease lost)`,
      );
    if (!r) {
      problems.push(`${label}: no result (exit ${String(run.code)}): ${run.stderr.slice(-2_000)}`);
      continue;
    }
    results.push(r);
    perFault.set(fault, (perFault.get(fault) ?? 0) + 1);
    process.stderr.write(
      `[linearizable] ${label}: ${r.verdict}, ${r.ops} ops (${r.open} open), ` +
        `check ${r.checkMs} ms, watch ${r.watchEvents} events, mutations caught ${r.caught}/${r.mutations}\n`,
    );
    if (r.verdict !== "Ok")
      problems.push(
        `${label}: ${r.verdict}: ${r.history}${r.html ? `, visualization ${r.html}` : ""}` +
          (r.first ? `; first illegal answer: ${r.first}` : ""),
      );
    if (r.watchEvents === 0) problems.push(`${label}: the client-go watch delivered nothing`);
    for (const p of r.watchProblems ?? []) problems.push(`${label}: ${p}`);
    if (r.mutations === 0 || r.caught !== r.mutations)
      problems.push(`${label}: the checker accepted a corrupted history: ${(r.missed ?? []).join(", ")}`);
    if (r.ops < OPS) problems.push(`${label}: only ${r.ops} calls checked (want ${OPS})`);
    if (run.code !== 0) problems.push(`${label}: exit ${String(run.code)}`);
  }
  if (!replicas.alive()) problems.push(`${ns.name}: an operator replica exited on its own`);
  // The next phase's replicas lead in their own namespace; these would only load the machine.
  problems.push(...(await replicas.stop()).map((late) => `${ns.name}: ${late}`));
  return results;
}

async function round(index: number): Promise<Record<string, number | string>> {
  const started = Date.now();
  const problems: string[] = [];
  const results: HistoryResult[] = [];
  for (const name of Object.keys(PHASES) as Phase[]) results.push(...(await phase(name, index, problems)));
  if (problems.length > 0) {
    failed = true;
    soakProblems.push(...problems);
    process.stderr.write(`[linearizable] round ${index}: ${problems.join("\n")}\n`);
  }
  // A soak goes on after a failed round (its histories are kept) and fails at its end, so one bad
  // round does not end hours of checking.
  if (!SOAK) expect(problems).toEqual([]);
  return {
    ms: Date.now() - started,
    histories: results.length,
    ops: results.reduce((n, r) => n + r.ops, 0),
    minOps: Math.min(...results.map((r) => r.ops)),
    open: results.reduce((n, r) => n + r.open, 0),
    violations: results.filter((r) => r.verdict === "Illegal").length,
    mutationsCaught: results.reduce((n, r) => n + r.caught, 0),
    maxCheckMs: Math.max(...results.map((r) => r.checkMs)),
    // Over the run so far, so the last round's line has the totals.
    perFault: [...perFault].map(([f, n]) => `${f}:${n}`).join(","),
  };
}

suite.soak(
  `the REST API is linearizable under leader kills and freezes, API-server restarts, network cuts and partitions, and Redis failovers (seed ${seed})`,
  {
    name: "linearizable",
    boundedMs: 600_000,
    fixed: { seed, clients: CLIENTS, soak: String(SOAK) },
    after: () => {
      expect(soakProblems).toEqual([]);
    },
  },
  round,
);
