// The operator's list path in one process, at several sizes, to see what grows faster than the data:
// `tsx bench/list-path.ts [N...]` (default 50000 100000 250000; LIST_PATH_PAGED=1 makes the stand-in
// refuse streamed lists, so that the paged path is measured; `node --cpu-prof --import tsx` profiles).
// A stand-in API server, in a process of its own as the real one is, answers with N ResizeRequests shaped
// as bench/memory.ts leaves them (SUCCEEDED, 100 groups, managedFields of a create and a status patch),
// generated page by page (or event by event) so that the fixture never fills a heap: paged lists
// (continue = the next index) and streamed lists (ADDED events, then the bookmark ending them). For each
// N, in a fresh process, it times the bare list (bare-list.ts: GET + JSON.parse of every page), then the
// operator's ResizeRequest and group informers (setup.ts resizeInformers on a real Manager) from start
// to synced, the full collection the operator runs after its sync (heap.ts), and V8's GC time meanwhile.
import { spawn, spawnSync } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import { createInterface } from "node:readline";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { RESIZE_REQUESTS } from "../src/api/kinds.js";
import { resizeInformers } from "../src/cache/informers.js";
import { collectGarbage } from "../src/runtime/heap.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { Manager } from "../src/runtime/manager.js";
import { resourcePath } from "../src/runtime/resource-kind.js";
import { bareList } from "./bare-list.js";
import { round, succeededStatus } from "./lib.js";

const NS = "bench-mem";
const GROUPS = 100;
const requestsPath = resourcePath(RESIZE_REQUESTS, { namespace: NS });

/** One request as the API server lists it; the placeholders keep generation to a string replace. */
const TEMPLATE = JSON.stringify({
  apiVersion: "compute.resize-operator.dev/v1",
  kind: "ResizeRequest",
  metadata: {
    name: "@NAME@",
    namespace: NS,
    uid: "0b7c2a1e-8d55-4f3a-9c1b-@UID@",
    resourceVersion: "@RV@",
    generation: 1,
    creationTimestamp: "2026-11-27T01:00:00Z",
    managedFields: [
      {
        manager: "node",
        operation: "Update",
        apiVersion: "compute.resize-operator.dev/v1",
        time: "2026-11-27T01:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { ".": {}, "f:instanceGroupManager": {}, "f:resizeBy": {}, "f:cancel": {} } },
      },
      {
        manager: "node",
        operation: "Update",
        apiVersion: "compute.resize-operator.dev/v1",
        time: "2026-11-27T01:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:status": Object.fromEntries(
            Object.keys(succeededStatus(NS, "g", "n", 0)).map((k) => [`f:${k}`, {}]),
          ),
        },
        subresource: "status",
      },
    ],
  },
  spec: { instanceGroupManager: "@GROUP@", resizeBy: 1, cancel: false },
  status: succeededStatus(NS, "@GROUP@", "@NAME@", 0),
}).replaceAll(String(4_000_000_000_000), "@ID@");

function item(i: number): string {
  const name = `r${String(i).padStart(6, "0")}`;
  return TEMPLATE.replaceAll("@NAME@", name)
    .replaceAll("@GROUP@", `g${String(i % GROUPS).padStart(3, "0")}`)
    .replaceAll("@UID@", String(i).padStart(12, "0"))
    .replaceAll("@RV@", String(1000 + i))
    .replaceAll("@ID@", String(4_000_000_000_000 + i));
}

/** Writes a streamed list: every object as ADDED, then the bookmark ending them; the watch stays open. */
function streamList(res: ServerResponse, total: number): void {
  res.writeHead(200, { "Content-Type": "application/json" });
  let i = 0;
  const more = (): void => {
    while (i < total)
      if (!res.write(`{"type":"ADDED","object":${item(i++)}}\n`)) return void res.once("drain", more);
    const end = { resourceVersion: "999", annotations: { "k8s.io/initial-events-end": "true" } };
    res.write(`${JSON.stringify({ type: "BOOKMARK", object: { kind: "ResizeRequest", metadata: end } })}\n`);
  };
  more();
}

/** The stand-in API server (`serve N`): prints its port, serves until killed. */
function serve(count: number): void {
  const refuseStreaming = process.env.LIST_PATH_PAGED === "1";
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const q = url.searchParams;
    const total = url.pathname === requestsPath ? count : 0;
    if (q.get("watch") === "true") {
      if (q.get("sendInitialEvents") === "true" && refuseStreaming) {
        res.writeHead(422, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({
            kind: "Status",
            code: 422,
            reason: "Invalid",
            message: "sendInitialEvents is forbidden",
          }),
        );
      } else if (q.get("sendInitialEvents") === "true") streamList(res, total);
      else res.writeHead(200, { "Content-Type": "application/json" }).flushHeaders();
      return;
    }
    const from = Number(q.get("continue") ?? 0);
    const to = Math.min(total, from + (Number(q.get("limit")) || total));
    const items: string[] = [];
    for (let i = from; i < to; i++) items.push(item(i));
    const next = to < total ? `,"continue":"${to}"` : "";
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      `{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"999"${next}},"items":[${items.join(",")}]}`,
    );
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    process.stdout.write(`${address.port}\n`);
  });
}

const self = fileURLToPath(import.meta.url);

/** Starts the stand-in in a child process; resolves with its port and a function that stops it. */
async function startServer(count: number): Promise<{ port: number; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [...process.execArgv.filter((a) => !a.startsWith("--cpu-prof")), self, "serve", String(count)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const [line] = await createInterface({ input: child.stdout })
    [Symbol.asyncIterator]()
    .next()
    .then((r) => [r.value as string]);
  return { port: Number(line), stop: () => child.kill() };
}

function kubeConfigFor(port: number): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ["gc"] });

/** Seconds of CPU (every thread of this process) since `since`. */
const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

async function informersSeconds(
  kc: KubeConfig,
  count: number,
): Promise<{ synced: number; cpu: number; gc: number }> {
  const mgr = new Manager({ kubeConfig: kc });
  const { requests, groups } = resizeInformers(mgr, NS);
  const ctl = new AbortController();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const running = Promise.all([requests.run(ctl.signal), groups.run(ctl.signal)]);
  await Promise.all([requests.waitForSync(ctl.signal), groups.waitForSync(ctl.signal)]);
  const synced = performance.now();
  const syncCpu = cpuSeconds(cpu);
  collectGarbage();
  const collected = performance.now();
  if (requests.lister.list().length !== count)
    throw new Error(`cached ${requests.lister.list().length} of ${count}`);
  ctl.abort();
  await running;
  return { synced: (synced - started) / 1000, cpu: syncCpu, gc: (collected - synced) / 1000 };
}

/** Measures one size in this process: a fresh heap, as the operator's. */
async function measureOne(count: number): Promise<void> {
  const server = await startServer(count);
  const kc = kubeConfigFor(server.port);
  const bareCpu = process.cpuUsage();
  const bare = await bareList(new KubeHttp(kc), requestsPath);
  const bareCpuSeconds = cpuSeconds(bareCpu);
  if (bare.objects !== count) throw new Error(`bare list got ${bare.objects} of ${count}`);
  collectGarbage();
  gcMs = 0;
  const op = await informersSeconds(kc, count);
  server.stop();
  const us = (s: number): number => round((s * 1e6) / count, 1);
  process.stdout.write(
    `${JSON.stringify({
      objects: count,
      list: process.env.LIST_PATH_PAGED === "1" ? "paged" : "streamed when offered",
      bareListSeconds: round(bare.seconds, 2),
      syncedSeconds: round(op.synced, 2),
      fullGcAfterSyncSeconds: round(op.gc, 2),
      ratioToBareList: round((op.synced + op.gc) / bare.seconds, 2),
      bareUsPerObject: us(bare.seconds),
      syncedUsPerObject: us(op.synced),
      bareCpuUsPerObject: us(bareCpuSeconds),
      syncedCpuUsPerObject: us(op.cpu),
      v8GcSecondsDuringSync: round(gcMs / 1000, 2),
    })}\n`,
  );
  process.exit(0);
}

const [mode, arg] = process.argv.slice(2);
if (mode === "serve") serve(Number(arg));
else if (mode === "measure") await measureOne(Number(arg));
else {
  const counts = process.argv.slice(2).map(Number);
  for (const count of counts.length > 0 ? counts : [50_000, 100_000, 250_000]) {
    // Each size in its own process (same node flags, e.g. --cpu-prof): a fresh heap, as the operator's.
    const run = spawnSync(process.execPath, [...process.execArgv, self, "measure", String(count)], {
      stdio: "inherit",
    });
    if (run.status !== 0) throw new Error(`list-path ${count} failed`);
  }
}
