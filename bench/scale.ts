// Scale: does a reconcile pass cost the same with 50 or 5,000 requests in a group, and with or without
// a long history of finished ones? Each case is one group whose target is ready the moment it is
// scaled (as in throughput.ts), a fresh namespace, and the operator (--concurrency=4) started after the
// fixture exists, timed from "controller started" to the last of the case's requests SUCCEEDED.
//  - queue depth: N = 50, 500, 5,000 requests queued in the group; the rate at 5,000 against 50.
//  - history: 50 new requests behind H = 0 and H = 10,000 requests that already SUCCEEDED (created
//    with a final status through the status subresource; the group's finishedRequestRetention keeps
//    them for ten years, so none is deleted during the case); the rate behind 10,000 against none.
// Memory and start-up with 100,000 cached requests are bench/memory.ts.
import path from "node:path";
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
  const rate = (table: Record<string, number>, key: number): number => table[key] ?? Number.NaN;
  const rounded = (table: Record<string, number>): Record<string, number> =>
    Object.fromEntries(Object.entries(table).map(([k, v]) => [k, round(v, 1)]));

  // History first: its cases are short, and each half reports as soon as it is measured.
  const byHistory: Record<string, number> = {};
  for (const finished of HISTORY)
    byHistory[finished] = await drainRate(cli, http, { queued: NEW_BEHIND_HISTORY, finished }, profileDir);
  const historyRatio = rate(byHistory, 10_000) / rate(byHistory, 0);
  report({
    bench: "scale-history",
    concurrency: CONCURRENCY,
    newRequests: NEW_BEHIND_HISTORY,
    requestsPerSecondByFinished: rounded(byHistory),
    ratio: round(historyRatio),
    target: "rate behind 10000 finished >= 0.9 x behind none",
    met: historyRatio >= 0.9,
    machine: machine(),
  });

  const byDepth: Record<string, number> = {};
  for (const queued of QUEUED)
    byDepth[queued] = await drainRate(cli, http, { queued, finished: 0 }, profileDir);
  const depthRatio = rate(byDepth, 5_000) / rate(byDepth, 50);
  report({
    bench: "scale-depth",
    concurrency: CONCURRENCY,
    requestsPerSecondByQueued: rounded(byDepth),
    ratio: round(depthRatio),
    target: "rate at 5000 queued >= 0.8 x rate at 50",
    met: depthRatio >= 0.8,
    machine: machine(),
  });
}
