// Faults 6: the REST API is linearizable under faults, checked. Concurrent clients using Google's
// official Go client make a random mix of inserts (with requestIds, some replayed), gets, lists,
// cancels, deletes and Operation reads against two operator replicas with leader election, while the
// leader is SIGKILLed (and restarted on its port), frozen with SIGSTOP past its lease (another
// replica takes over while it still believes it leads), or kube-apiserver is restarted. Every history
// is checked with Porcupine against the model in test/linearizable/model (docs/reliability.md); a
// violation fails the test and leaves the history and its HTML visualization in the folder printed.
// Each history's mutations (answers a correct server cannot give, added to the real history) must be
// found illegal, so the checker is shown not to be vacuous on the very histories it passes.
// Bounded: one history per fault kind. Soak: rounds until SOAK_MINUTES are over.
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { dependentsRestarted, startComponent, stopComponent } from "../../testbed/components.js";
import { ensureLinearizable } from "../../testbed/go-programs.js";
import { eventually } from "../support/kube.js";
import { Replicas, runRecorder, type HistoryResult } from "../support/linearizable.js";
import { reliabilitySuite } from "../support/reliability-suite.js";
import { SOAK, seededRandom } from "../support/reliability.js";
import { listRequests } from "../support/resize.js";
import { fullAccess, serviceAccountToken } from "../support/rest.js";

const GROUPS = 3;
const REPLICAS = 2;
const CLIENTS = 6;
const OPS = 500;
const FAULTS = ["none", "leader-killed", "leader-frozen", "apiserver-restarted"] as const;
type Fault = (typeof FAULTS)[number];
/** How long a history lasts at least, so it spans its fault and the recovery after it. */
const SPAN_MS: Record<Fault, number> = {
  none: 0,
  "leader-killed": 20_000,
  "leader-frozen": 20_000,
  "apiserver-restarted": 35_000,
};
const FREEZE_MS = 8_000; // twice the 4 s lease
const APISERVER_DOWN_MS = 4_000;

const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const random = seededRandom(seed);
const suite = reliabilitySuite({ timeoutMs: 240_000 });
const folder = path.join(tmpdir(), `resize-operator-linearizable-${process.pid}`);
let binary: string;
let failed = false;

beforeAll(async () => {
  // A cold build compiles the compute client (a minute or two on 2 cores); later runs hit the cache.
  binary = await ensureLinearizable();
  mkdirSync(folder, { recursive: true });
  process.stderr.write(`[linearizable] histories under ${folder}\n`);
}, 900_000);

afterAll(() => {
  // Kept when something failed (the histories and visualizations are the evidence) or on request.
  if (!failed && process.env.TESTBED_KEEP !== "1") rmSync(folder, { recursive: true, force: true });
});

/** Injects `fault` into a running history; resolves with whether it took effect as intended. */
async function inject(fault: Fault, replicas: Replicas): Promise<boolean> {
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
    case "leader-frozen": {
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
  }
}

async function round(index: number): Promise<Record<string, number | string>> {
  const started = Date.now();
  const ns = await suite.namespace(`rel-linz-${index}`, GROUPS, { maxSize: 3 });
  const token = await serviceAccountToken(ns.name, "client", fullAccess());
  const redis = process.env.REDIS_URL;
  if (!redis) throw new Error("REDIS_URL is set by the global setup");
  const replicas = new Replicas(ns.name, redis, (p) => suite.track(p));
  await replicas.start(REPLICAS);

  const results: HistoryResult[] = [];
  const problems: string[] = [];
  for (const [k, fault] of FAULTS.entries()) {
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
      // Off by default: a requestId used by two calls at once meets the two violations reported in
      // docs/reliability.md (LINEARIZABLE_CONCURRENT_REPLAYS=1 reproduces them).
      ...(process.env.LINEARIZABLE_CONCURRENT_REPLAYS === "1" ? ["-concurrent-replays"] : []),
    ]);
    const tookEffect = await inject(fault, replicas);
    const run = await recording;
    if (fault === "apiserver-restarted") {
      // The next history starts on a whole cluster again.
      await eventually("the API server answers", () => listRequests(ns.name).then(() => true), 90_000);
      await dependentsRestarted();
    }
    const r = run.result;
    if (!tookEffect) problems.push(`h${k}: the fault ${fault} did not take effect (no other leader)`);
    if (!r) {
      problems.push(`h${k}: no result (exit ${String(run.code)}): ${run.stderr.slice(-2_000)}`);
      continue;
    }
    results.push(r);
    process.stderr.write(
      `[linearizable] h${k} ${fault}: ${r.verdict}, ${r.ops} ops (${r.open} open), ` +
        `check ${r.checkMs} ms, mutations caught ${r.caught}/${r.mutations}\n`,
    );
    if (r.verdict !== "Ok")
      problems.push(
        `h${k} ${fault}: ${r.verdict}: ${r.history}${r.html ? `, visualization ${r.html}` : ""}` +
          (r.first ? `; first illegal answer: ${r.first}` : ""),
      );
    if (r.mutations === 0 || r.caught !== r.mutations)
      problems.push(`h${k}: the checker accepted a corrupted history: ${(r.missed ?? []).join(", ")}`);
    if (r.ops < OPS * 0.8) problems.push(`h${k}: only ${r.ops} calls checked (want about ${OPS})`);
    if (run.code !== 0) problems.push(`h${k}: exit ${String(run.code)}`);
  }
  if (!replicas.alive()) problems.push("an operator replica exited on its own");
  if (problems.length > 0) failed = true;
  expect(problems).toEqual([]);
  return {
    ms: Date.now() - started,
    histories: results.length,
    ops: results.reduce((n, r) => n + r.ops, 0),
    open: results.reduce((n, r) => n + r.open, 0),
    faults: FAULTS.filter((f) => f !== "none").length,
    violations: results.filter((r) => r.verdict === "Illegal").length,
    mutationsCaught: results.reduce((n, r) => n + r.caught, 0),
    maxCheckMs: Math.max(...results.map((r) => r.checkMs)),
  };
}

suite.soak(
  `the REST API is linearizable under leader kills, leader freezes and API-server restarts (seed ${seed})`,
  { name: "linearizable", boundedMs: 600_000, fixed: { seed, clients: CLIENTS, soak: String(SOAK) } },
  round,
);
