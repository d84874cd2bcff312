// Faults 1: the operator is SIGKILLed at random moments while 50 requests are in flight at once (10
// groups, created concurrently, some with a run duration, some cancelled mid-way), restarted, and
// killed again — at least 20 times per round. Afterwards every request is in the state it must be in
// and each target's replicas equal exactly what its requests imply. Soak: rounds repeat until
// SOAK_MINUTES are over.
import { setTimeout as sleep } from "node:timers/promises";
import { isFinalState } from "../support/invariants.js";
import { startOperator } from "../support/operator.js";
import { reliabilitySuite } from "../support/reliability-suite.js";
import { report, seededRandom, settleAndCheck } from "../support/reliability.js";
import { cancelRequest, createRequest, listRequests } from "../support/resize.js";

const KILLS = 20;
const GROUPS = 10;
const CONCURRENT = 50;
const OPERATOR_ARGS = ["--concurrency=10"];

const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const random = seededRandom(seed);
const suite = reliabilitySuite();

async function round(index: number): Promise<Record<string, number>> {
  const started = Date.now();
  const ns = await suite.namespace(`rel-crash-${index}`, GROUPS);
  const { groups } = ns;
  // 50 requests at once, before and while the operator runs.
  const names = Array.from({ length: CONCURRENT }, (_, i) => `r${String(i).padStart(2, "0")}`);
  await Promise.all(
    names.map((name, i) =>
      createRequest(ns.name, name, {
        instanceGroupManager: groups[i % GROUPS],
        resizeBy: 1 + Math.floor(random() * 3),
        ...(random() < 0.2 && { requestedRunDuration: { seconds: "2" } }),
      }),
    ),
  );
  const cancelled = new Set<string>();
  let killsInFlight = 0;
  for (let kill = 0; kill < KILLS; kill++) {
    const op = suite.track(
      startOperator({ namespace: ns.name, name: `crash-${index}-${kill}`, args: OPERATOR_ARGS }),
    );
    await sleep(500 + random() * 2500);
    if (random() < 0.3) {
      const victim = names[Math.floor(random() * names.length)] ?? "r00";
      await cancelRequest(ns.name, victim);
      cancelled.add(victim);
      await sleep(random() * 400);
    }
    if (op.exited()) throw new Error(`operator exited on its own; see ${op.log}`);
    await op.kill();
    // A kill counts as mid-flight when some request was not final at that moment.
    if (!(await listRequests(ns.name)).every(isFinalState)) killsInFlight++;
  }
  const survivor = suite.track(
    startOperator({ namespace: ns.name, name: `crash-${index}-final`, args: OPERATOR_ARGS }),
  );
  const { requests } = await settleAndCheck(ns.name, groups, CONCURRENT, 120_000);
  for (const rr of requests) {
    const name = rr.metadata.name ?? "";
    // A cancel that arrives after success is refused (stays SUCCEEDED); nothing may fail here.
    const allowed = cancelled.has(name) ? ["CANCELLED", "SUCCEEDED"] : ["SUCCEEDED"];
    expect(allowed).toContain(rr.status?.state);
  }
  expect(survivor.exited()).toBe(false);
  await survivor.stop();
  return {
    ms: Date.now() - started,
    killsInFlight,
    succeeded: requests.filter((rr) => rr.status?.state === "SUCCEEDED").length,
    cancelled: requests.filter((rr) => rr.status?.state === "CANCELLED").length,
  };
}

suite.soak(
  `SIGKILL ${KILLS}× during ${CONCURRENT} concurrent requests: right final states, replicas exactly implied (seed ${seed})`,
  {
    name: "crash",
    boundedMs: 300_000,
    fixed: { seed, kills: KILLS, requests: CONCURRENT },
    after: (rounds) => {
      report("crash total", { rounds, kills: rounds * KILLS, requests: rounds * CONCURRENT });
    },
  },
  round,
);
