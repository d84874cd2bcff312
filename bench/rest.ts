// REST throughput and p99 latency of zoneOperations.get and resizeRequests.get under concurrent load
// (autocannon, 127.0.0.1 only, bounded in time), against a bare node:http server doing the same reads
// (bare-server.ts) measured in the same run. The operator serves REST as a real client sees it: bearer
// token (TokenReview, cached), SubjectAccessReview per call, validation, Google-shaped JSON.
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { freePort } from "../testbed/processes.js";
import { startRedis, stopRedis } from "../testbed/redis.js";
import {
  apiServerCounters,
  callsBetween,
  createGroupWithTarget,
  createRequest,
  installCrds,
  kubeConfig,
  kubeconfigFile,
  log,
  machine,
  namespace,
  repoRoot,
  report,
  round,
  serviceAccountToken,
  startOperator,
  untilReady,
  workDir,
  WRITE_VERBS,
} from "./lib.js";

const CONNECTIONS = 16;
/** What each method's ratio must reach (docs/performance.md). */
const TARGETS: Readonly<Record<string, string>> = {
  zoneOperationsGet: ">= 0.5",
  resizeRequestsGet: ">= 0.9",
};
const SECONDS = 10;
/** Rounds of each side, alternated (BENCH_REST_ROUNDS, default 3). */
const ROUNDS = Number(process.env.BENCH_REST_ROUNDS ?? 3);

interface Load {
  rps: number;
  p99Ms: number;
  non2xx: number;
}

/** One autocannon run (its CLI, JSON output) against `url`. */
function load(url: string, headers: Record<string, string> = {}): Load {
  const res = spawnSync(
    process.execPath,
    [
      path.join(repoRoot, "node_modules", "autocannon", "autocannon.js"),
      "-c",
      String(CONNECTIONS),
      "-d",
      String(SECONDS),
      "-j",
      ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`]),
      url,
    ],
    { encoding: "utf8", maxBuffer: 16 * 2 ** 20 },
  );
  if (res.status !== 0) throw new Error(`autocannon failed: ${res.stderr}`);
  const out = JSON.parse(res.stdout) as {
    requests: { average: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  };
  return { rps: out.requests.average, p99Ms: out.latency.p99, non2xx: out.non2xx + out.errors };
}

/** A ServiceAccount allowed to read requests in `ns`, and a token for it. */
function readerToken(http: KubeHttp, ns: string): Promise<string> {
  return serviceAccountToken(http, ns, "reader", [
    {
      apiGroups: ["compute.resize-operator.dev"],
      resources: ["resizerequests", "instancegroupmanagers"],
      verbs: ["get", "list"],
    },
  ]);
}

export async function restBench(cli: string, profileDir?: string): Promise<void> {
  const kc = kubeConfig();
  const http = new KubeHttp(kc);
  await installCrds(http);
  const redis = await startRedis({ dir: path.join(workDir, "redis") });
  const ns = await namespace(http, "bench-rest");
  await createGroupWithTarget(http, ns.name, "g");
  await createRequest(http, ns.name, "r", "g");
  const token = await readerToken(http, ns.name);
  const op = await startOperator(cli, {
    name: "rest",
    namespace: ns.name,
    args: [`--redis-url=${redis.url}`],
    nodeArgs: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  });
  const barePort = await freePort();
  const bare = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(repoRoot, "bench", "bare-server.ts"),
      String(barePort),
      redis.url,
      kubeconfigFile(),
    ],
    { cwd: repoRoot, stdio: "inherit" },
  );
  try {
    await untilReady(op);
    const base = `http://127.0.0.1:${op.httpPort}/compute/v1/projects/${ns.name}/zones/local-a`;
    const auth = { authorization: `Bearer ${token}` };
    // The insert Operation the operations controller creates for the kubectl-made request.
    let opName: string | undefined;
    for (let i = 0; i < 100 && opName === undefined; i++) {
      const list = (await fetch(`${base}/operations`, { headers: auth }).then((r) => r.json())) as {
        items?: { name: string }[];
      };
      opName = list.items?.[0]?.name;
      if (opName === undefined) await sleep(200);
    }
    if (opName === undefined) throw new Error("no Operation appeared for the request");
    const urls = {
      zoneOperationsGet: {
        operator: `${base}/operations/${opName}`,
        bare: `http://127.0.0.1:${barePort}/op/${ns.name}/local-a/${opName}`,
      },
      resizeRequestsGet: {
        operator: `${base}/instanceGroupManagers/g/resizeRequests/r`,
        bare: `http://127.0.0.1:${barePort}/rr/${ns.name}/g/r`,
      },
    };
    for (const [method, u] of Object.entries(urls)) {
      for (const [url, headers] of [
        [u.operator, auth],
        [u.bare, {}],
      ] as const) {
        // The bare server may still be starting (tsx compiles it first).
        let check: Response | undefined;
        for (let i = 0; i < 100 && check === undefined; i++)
          check = await fetch(url, { headers }).catch(() => sleep(200).then(() => undefined));
        if (check?.status !== 200)
          throw new Error(`${url}: HTTP ${String(check?.status)} ${(await check?.text()) ?? ""}`);
      }
      log(`rest: ${method}, ${CONNECTIONS} connections for ${SECONDS} s each side, ${ROUNDS} rounds`);
      // Rounds alternate the two sides, so a drift of the shared machine (the API server's own load,
      // another process) moves both; the figure is the median round.
      const rounds: { operator: Load; baseline: Load; ratio: number }[] = [];
      const before = await apiServerCounters(kc);
      for (let i = 0; i < ROUNDS; i++) {
        const operator = load(u.operator, auth);
        const baseline = load(u.bare);
        rounds.push({ operator, baseline, ratio: operator.rps / baseline.rps });
      }
      // Reviews during the method's rounds: only the operator makes them (the bare server checks nothing).
      const calls = callsBetween(before, await apiServerCounters(kc), WRITE_VERBS);
      const middle = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)];
      if (!middle) throw new Error("no rounds");
      const operatorCalls = rounds.reduce((sum, r) => sum + r.operator.rps * SECONDS, 0);
      // What bounds the operator's figure: API-server round trips per REST call (RBAC checks, reviews).
      const perCall = (key: string): number => round((calls[key] ?? 0) / operatorCalls, 2);
      report({
        bench: `rest-${method}`,
        connections: CONNECTIONS,
        seconds: SECONDS,
        rounds: ROUNDS,
        requestsPerSecond: round(middle.operator.rps, 1),
        p99Ms: middle.operator.p99Ms,
        errors: rounds.reduce((sum, r) => sum + r.operator.non2xx, 0),
        baselineRequestsPerSecond: round(middle.baseline.rps, 1),
        baselineP99Ms: middle.baseline.p99Ms,
        baselineErrors: rounds.reduce((sum, r) => sum + r.baseline.non2xx, 0),
        ratio: round(middle.ratio),
        roundRatios: rounds.map((r) => round(r.ratio)),
        subjectAccessReviewsPerCall: perCall("POST authorization.k8s.io subjectaccessreviews"),
        tokenReviewsPerCall: perCall("POST authentication.k8s.io tokenreviews"),
        target: TARGETS[method],
        machine: machine(),
      });
    }
  } finally {
    bare.kill("SIGTERM");
    await op.stop();
    await stopRedis(redis);
    await ns.remove();
  }
}
