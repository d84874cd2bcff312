// Faults 2: kube-apiserver is stopped for a few seconds in the middle of a run — requests in every
// phase, a cancel issued right after it is back, new requests created while it restarts — and the
// operator recovers without a lost update: every request reaches its final state and each target's
// replicas equal exactly what its requests imply. Soak: repeated until SOAK_MINUTES are over.
import { setTimeout as sleep } from "node:timers/promises";
import { startComponent, stopComponent } from "../../testbed/components.js";
import { eventually } from "../support/kube.js";
import { startOperator } from "../support/operator.js";
import { reliabilitySuite } from "../support/reliability-suite.js";
import { seededRandom, settleAndCheck } from "../support/reliability.js";
import { cancelRequest, createRequest, getRequest } from "../support/resize.js";

const GROUPS = 5;
const BEFORE = 25;
const AFTER = 10;
const DOWN_MS = 4_000;

const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const random = seededRandom(seed);
const suite = reliabilitySuite({ timeoutMs: 240_000 });

/** Creates a request, retrying while the restarted API server installs its paths. */
async function createRetrying(namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await eventually(
    `creating ${name}`,
    async () => {
      // A create whose answer was lost may have happened: an existing object counts.
      await createRequest(namespace, name, spec).catch(() => getRequest(namespace, name));
      return true;
    },
    90_000,
  );
}

async function round(index: number): Promise<{ ms: number; downMs: number; recoveredMs: number }> {
  const dir = process.env.TESTBED_DIR;
  if (!dir) throw new Error("TESTBED_DIR is set by the global setup");
  const started = Date.now();
  const ns = await suite.namespace(`rel-apiserver-${index}`, GROUPS);
  const { groups } = ns;
  const op = startOperator({ namespace: ns.name, name: `apiserver-${index}`, args: ["--concurrency=5"] });
  suite.track(op);
  const spec = (i: number) => ({
    instanceGroupManager: groups[i % GROUPS],
    resizeBy: 1 + Math.floor(random() * 2),
    ...(random() < 0.2 && { requestedRunDuration: { seconds: "2" } }),
  });
  await Promise.all(Array.from({ length: BEFORE }, (_, i) => createRequest(ns.name, `b${i}`, spec(i))));
  // Mid-run: some requests done, some provisioning, most queued.
  await sleep(2_000 + random() * 2_000);
  const stoppedAt = Date.now();
  await stopComponent(dir, "kube-apiserver");
  try {
    await sleep(DOWN_MS);
  } finally {
    startComponent(dir, "kube-apiserver");
  }
  // Changes made right after the restart must reach the operator (re-established watches or relist).
  await createRetrying(ns.name, "a0", spec(0));
  const recoveredMs = Date.now() - stoppedAt;
  await cancelRequest(ns.name, `b${BEFORE - 1}`);
  for (let i = 1; i < AFTER; i++) await createRetrying(ns.name, `a${i}`, spec(i));
  const { requests } = await settleAndCheck(ns.name, groups, BEFORE + AFTER, 120_000);
  for (const rr of requests) {
    const allowed = rr.metadata.name === `b${BEFORE - 1}` ? ["CANCELLED", "SUCCEEDED"] : ["SUCCEEDED"];
    expect(allowed).toContain(rr.status?.state);
  }
  expect(op.exited()).toBe(false);
  await op.stop();
  return { ms: Date.now() - started, downMs: DOWN_MS, recoveredMs };
}

suite.soak(
  `a kube-apiserver restart mid-run loses no update (seed ${seed})`,
  { name: "apiserver", boundedMs: 240_000, fixed: { seed, requests: BEFORE + AFTER } },
  round,
);
