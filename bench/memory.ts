// Memory and start-up with 100,000 ResizeRequests with full statuses (as the operator leaves a
// SUCCEEDED request) in the watched namespace, each against a baseline
// measured in the same run: the same operator on an empty namespace. The operator runs as a standby
// (the bench holds its Lease), so it lists, watches and caches everything — what every replica does —
// without reconciling: the figures are the caches' cost, not a reconcile storm's.
import { setTimeout as sleep } from "node:timers/promises";
import { KubeHttp } from "../src/runtime/kube-http.js";
import {
  createSucceededRequest,
  installCrds,
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

const OBJECTS = 100_000;
const GROUPS = 100;
const MiB = 2 ** 20;

/** A Lease held by someone else for an hour: the operator stays a standby. */
async function holdLease(http: KubeHttp, ns: string): Promise<void> {
  await http.request("POST", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
    body: {
      metadata: { name: "resize-operator-leader" },
      spec: {
        holderIdentity: "bench-holder",
        leaseDurationSeconds: 3600,
        acquireTime: new Date().toISOString().replace("Z", "000Z"),
        renewTime: new Date().toISOString().replace("Z", "000Z"),
      },
    },
  });
}

interface Sample {
  readyMs: number;
  rss: number;
  cached: number;
}

/** Starts a standby operator on `ns`; time to /readyz, then RSS after the heap settles. */
async function measure(cli: string, ns: string, name: string): Promise<Sample> {
  const op = await startOperator(cli, {
    name,
    namespace: ns,
    args: ["--leader-elect=true", `--leader-election-namespace=${ns}`],
  });
  const readyAt = await untilReady(op);
  // Ready means synced; RSS keeps moving while the decoded objects' garbage is collected.
  await sleep(5000);
  const rss = rssBytes(op.pid);
  const metrics = await fetch(`http://127.0.0.1:${op.metricsPort}/metrics`).then((r) => r.text());
  const cached = [...metrics.matchAll(/^resize_requests\{[^}]*\} (\d+)/gm)].reduce(
    (a, m) => a + Number(m[1]),
    0,
  );
  await op.stop();
  return { readyMs: readyAt - op.startedAt, rss, cached };
}

export async function memoryAndStartup(cli: string): Promise<void> {
  const kc = kubeConfig();
  const http = new KubeHttp(kc);
  await installCrds(http);

  const empty = await namespace(http, "bench-mem-empty");
  await holdLease(http, empty.name);
  log("memory: baseline (empty namespace)");
  const base = await measure(cli, empty.name, "memory-empty");

  const full = await namespace(http, "bench-mem");
  await holdLease(http, full.name);
  log(`memory: creating ${OBJECTS} SUCCEEDED ResizeRequests over ${GROUPS} groups`);
  const created = Date.now();
  await pool(
    Array.from({ length: OBJECTS }, (_, i) => i),
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
  log(`memory: created in ${Math.round((Date.now() - created) / 1000)} s`);
  const sample = (await http.request("GET", rrPath(full.name), { query: { limit: 1 } })) as {
    items: unknown[];
  };
  const objectJsonBytes = Buffer.byteLength(JSON.stringify(sample.items[0]));
  const loaded = await measure(cli, full.name, "memory-full");
  await Promise.all([empty.remove(), full.remove()]);
  if (loaded.cached !== OBJECTS)
    throw new Error(`expected ${OBJECTS} cached requests, /metrics says ${loaded.cached}`);

  report({
    bench: "memory",
    objects: OBJECTS,
    rssMiB: round(loaded.rss / MiB, 1),
    baselineRssMiB: round(base.rss / MiB, 1),
    ratio: round(loaded.rss / base.rss, 2),
    target: "rssMiB <= 450",
    met: loaded.rss / MiB <= 450 && (loaded.rss - base.rss) / OBJECTS <= 2500,
    bytesPerObject: Math.round((loaded.rss - base.rss) / OBJECTS),
    bytesPerObjectTarget: "<= 2500",
    objectJsonBytes,
    machine: machine(),
  });
  report({
    bench: "startup",
    objects: OBJECTS,
    readySeconds: round(loaded.readyMs / 1000, 2),
    baselineReadySeconds: round(base.readyMs / 1000, 2),
    ratio: round(loaded.readyMs / base.readyMs, 2),
    machine: machine(),
  });
}
