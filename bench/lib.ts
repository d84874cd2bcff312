// Shared pieces of the benchmarks: the local cluster (`npm run cluster:up`), a built operator run as a
// real process, the API server's own request counters, namespaces, and the one-JSON-line result.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  closeSync,
  writeFileSync,
} from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { parse, parseAllDocuments } from "yaml";
import { ResizeRequest } from "../src/api/resize-request.js";
import { DEFAULT_TOKEN_AUDIENCE } from "../src/rest/auth.js";
import { ApiError, isNotFound } from "../src/runtime/api-errors.js";
import { Informer } from "../src/runtime/informer.js";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { httpListWatch } from "../src/runtime/list-watch.js";
import { freePort } from "../testbed/processes.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Scratch space (logs, profiles, Redis data, the build) under the git-, lint- and prettier-ignored .local/.
export const workDir = path.join(repoRoot, ".local", "bench", "work");
const buildDir = path.join(repoRoot, ".local", "bench", "build");
const resultsDir = path.join(repoRoot, "bench", "results");

export function kubeconfigFile(): string {
  const file = process.env.KUBECONFIG ?? path.join(repoRoot, ".local", "kubeconfig");
  if (!existsSync(file)) throw new Error(`no cluster: ${file} is missing; run \`npm run cluster:up\` first`);
  return file;
}

export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigFile());
  return kc;
}

export const log = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`);
};

/** Prints the result as one JSON line and writes it to bench/results/<bench>.json. */
export function report(result: { bench: string } & Record<string, unknown>): void {
  const line = JSON.stringify(result);
  process.stdout.write(`${line}\n`);
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, `${result.bench}.json`), `${line}\n`);
}

export const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

/** Runs `work` over `items` with at most `concurrency` in flight; resolves with the results in order. */
export async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (;;) {
        const i = next++;
        if (i >= items.length) return;
        results[i] = await work(items[i] as T, i);
      }
    }),
  );
  return results;
}

/** Retries transient API failures (429, 5xx, resets) a few times: a benchmark should measure, not flake. */
export async function retrying<T>(what: string, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const transient = !(err instanceof ApiError) || err.status === 429 || err.status >= 500;
      if (!transient || attempt >= 5) throw new Error(`${what}: ${String(err)}`, { cause: err });
      await sleep(200 * attempt);
    }
  }
}

/**
 * A create, retried like `retrying`: a create whose answer was lost (a reset, a 504) may have happened,
 * so its 409 AlreadyExists on a retry means done.
 */
export async function creating(what: string, call: () => Promise<unknown>): Promise<void> {
  let tried = false;
  await retrying(what, async () => {
    try {
      await call();
    } catch (err) {
      if (tried && err instanceof ApiError && err.status === 409) return;
      throw err;
    } finally {
      tried = true;
    }
  });
}

export const BENCH_GROUP = "bench.resize-operator.dev";
export const WORKLOAD_API = `${BENCH_GROUP}/v1`;

/** Installs the operator's CRDs and a scalable bench kind with no controller (server-side apply). */
export async function installCrds(http: KubeHttp): Promise<void> {
  const crdDir = path.join(repoRoot, "manifests", "crds");
  const docs = [
    "compute.resize-operator.dev_instancegroupmanagers.yaml",
    "compute.resize-operator.dev_resizerequests.yaml",
    "compute.resize-operator.dev_futurereservations.yaml",
  ].map((f) => parse(readFileSync(path.join(crdDir, f), "utf8")) as { metadata: { name: string } });
  // A workload kind whose only behaviour is its /scale subresource: groups read readiness from
  // spec.replicas, so an instance is "ready" the moment it is asked for and the benchmark measures the
  // operator and the API server, not a scheduler.
  docs.push({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `workloads.${BENCH_GROUP}` },
    spec: {
      group: BENCH_GROUP,
      scope: "Namespaced",
      names: { plural: "workloads", singular: "workload", kind: "Workload" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          subresources: {
            status: {},
            scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
          },
        },
      ],
    },
  } as { metadata: { name: string } });
  for (const doc of docs) {
    await http.request(
      "PATCH",
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${doc.metadata.name}`,
      {
        query: { fieldManager: "resize-operator-bench", force: true },
        body: doc,
        contentType: "application/apply-patch+yaml",
      },
    );
  }
  for (const doc of docs) {
    for (;;) {
      const crd = (await http.request(
        "GET",
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${doc.metadata.name}`,
      )) as { status?: { conditions?: { type: string; status: string }[] } };
      if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      await sleep(200);
    }
  }
  // The admission policies the operator scales no target without (controller/admission-guard.ts).
  const admissionDir = path.join(repoRoot, "manifests", "admission");
  for (const file of readdirSync(admissionDir).sort()) {
    for (const doc of parseAllDocuments(readFileSync(path.join(admissionDir, file), "utf8"))) {
      const obj = doc.toJSON() as { kind: string; metadata: { name: string } };
      const plural =
        obj.kind === "ValidatingAdmissionPolicy"
          ? "validatingadmissionpolicies"
          : "validatingadmissionpolicybindings";
      await http.request("PATCH", `/apis/admissionregistration.k8s.io/v1/${plural}/${obj.metadata.name}`, {
        query: { fieldManager: "resize-operator-bench", force: true },
        body: obj,
        contentType: "application/apply-patch+yaml",
      });
    }
  }
}

/** A fresh namespace named `<prefix>-<random>`; `remove` deletes it (in the background). */
export async function namespace(
  http: KubeHttp,
  prefix: string,
): Promise<{ name: string; remove: (timeoutMs?: number) => Promise<void> }> {
  const ns = (await http.request("POST", "/api/v1/namespaces", {
    body: { metadata: { generateName: `${prefix}-` } },
  })) as { metadata: { name: string } };
  const name = ns.metadata.name;
  return {
    name,
    // Waits until the namespace is gone: the namespace controller deleting thousands of objects loads
    // the API server for a minute or more, and the next case must not run against that (a 50-request
    // case right after the 10,000-request one drained at a third of its rate).
    remove: async (timeoutMs = 600_000) => {
      await http.request("DELETE", `/api/v1/namespaces/${name}`).catch(() => undefined);
      const started = Date.now();
      for (;;) {
        const gone = await http
          .request("GET", `/api/v1/namespaces/${name}`)
          .then(() => false)
          .catch((err: unknown) => isNotFound(err));
        if (gone) break;
        if (Date.now() - started > timeoutMs)
          throw new Error(`namespace ${name} still there after ${Math.round(timeoutMs / 60_000)} min`);
        await sleep(500);
      }
      const tookS = Math.round((Date.now() - started) / 1000);
      if (tookS >= 5) log(`namespace ${name} deleted in ${tookS} s`);
    },
  };
}

export const rrPath = (ns: string): string =>
  `/apis/compute.resize-operator.dev/v1/namespaces/${ns}/resizerequests`;
export const igmPath = (ns: string): string =>
  `/apis/compute.resize-operator.dev/v1/namespaces/${ns}/instancegroupmanagers`;
export const workloadPath = (ns: string): string => `/apis/${WORKLOAD_API}/namespaces/${ns}/workloads`;

/** Creates a Workload at 0 replicas and a group that owns it (ready = spec.replicas). */
export async function createGroupWithTarget(
  http: KubeHttp,
  ns: string,
  name: string,
  spec: Record<string, unknown> = {},
): Promise<void> {
  await creating(`workload ${name}`, () =>
    http.request("POST", workloadPath(ns), {
      body: { apiVersion: WORKLOAD_API, kind: "Workload", metadata: { name }, spec: { replicas: 0 } },
    }),
  );
  await creating(`group ${name}`, () =>
    http.request("POST", igmPath(ns), {
      body: {
        apiVersion: "compute.resize-operator.dev/v1",
        kind: "InstanceGroupManager",
        metadata: { name },
        spec: {
          zone: "local-a",
          targetRef: { apiVersion: WORKLOAD_API, kind: "Workload", name },
          maxSize: 100_000,
          readyReplicasField: "spec.replicas",
          ...spec,
        },
      },
    }),
  );
}

export async function createRequest(http: KubeHttp, ns: string, name: string, group: string): Promise<void> {
  await creating(`request ${name}`, () =>
    http.request("POST", rrPath(ns), {
      body: {
        apiVersion: "compute.resize-operator.dev/v1",
        kind: "ResizeRequest",
        metadata: { name },
        spec: { instanceGroupManager: group, resizeBy: 1 },
      },
    }),
  );
}

/**
 * Starts watching the namespace's requests and resolves once the watch has listed them all; the
 * function it resolves with waits for the time the watch saw the last of `total` requests SUCCEEDED.
 * Start it before the operator: its initial list (10,000 objects decoded in the driver) must not
 * compete for the CPU with the drain being timed.
 */
export async function watchAllSucceeded(
  http: KubeHttp,
  ns: string,
  total: number,
): Promise<(timeoutMs: number) => Promise<number>> {
  const informer = new Informer<ResizeRequest>({
    name: "bench",
    listWatch: httpListWatch(http, rrPath(ns)),
    decode: (raw) => ResizeRequest.parse(raw),
  });
  const ctl = new AbortController();
  let doneAt: number | undefined;
  const succeeded = new Set<string>();
  const check = (rr: ResizeRequest): void => {
    if (rr.status?.state === "SUCCEEDED") succeeded.add(rr.metadata.name ?? "");
    if (succeeded.size === total && doneAt === undefined) doneAt = Date.now();
  };
  informer.addEventHandler({
    onAdd: check,
    onUpdate: (_, rr) => {
      check(rr);
    },
    onDelete: () => undefined,
  });
  const running = informer.run(ctl.signal);
  await informer.waitForSync(ctl.signal);
  return async (timeoutMs) => {
    const deadline = Date.now() + timeoutMs;
    while (doneAt === undefined && Date.now() < deadline) await sleep(50);
    ctl.abort();
    await running;
    if (doneAt === undefined)
      throw new Error(`only ${succeeded.size}/${total} requests SUCCEEDED in ${timeoutMs} ms`);
    return doneAt;
  };
}

/**
 * A request as the operator leaves it once it SUCCEEDED through the REST API: every status field an
 * attempt writes (ids, links, times, conditions), so that cached objects have their real size.
 */
export function succeededStatus(
  ns: string,
  group: string,
  name: string,
  index: number,
): Record<string, unknown> {
  const time = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const base = `http://127.0.0.1/compute/v1/projects/${ns}/zones/local-a/instanceGroupManagers/${group}/resizeRequests`;
  const id = String(4_000_000_000_000 + index);
  const condition = (type: string, reason: string, message: string) => ({
    type,
    status: "True",
    reason,
    message,
    lastTransitionTime: time,
    observedGeneration: 1,
  });
  return {
    kind: "compute#instanceGroupManagerResizeRequest",
    id,
    creationTimestamp: time,
    zone: "local-a",
    state: "SUCCEEDED",
    selfLink: `${base}/${name}`,
    selfLinkWithId: `${base}/${id}`,
    attempts: 1,
    provisioningStartedTime: time,
    succeededTime: time,
    operations: [
      { name: `operation-${id}-insert`, operationType: "compute.instanceGroupManagerResizeRequests.insert" },
    ],
    conditions: [
      condition("Accepted", "Accepted", "The request is valid and queued."),
      condition("Succeeded", "Provisioned", "All 1 instances are ready."),
    ],
    observedGeneration: 1,
  };
}

/** Creates a request and writes a final SUCCEEDED status to it (the status subresource), two calls. */
export async function createSucceededRequest(
  http: KubeHttp,
  ns: string,
  name: string,
  group: string,
  index: number,
): Promise<void> {
  await createRequest(http, ns, name, group);
  await retrying(`status of ${name}`, () =>
    http.request("PATCH", `${rrPath(ns)}/${name}/status`, {
      body: { status: succeededStatus(ns, group, name, index) },
      contentType: "application/merge-patch+json",
    }),
  );
}

/** Builds the operator once per run into .local/bench/build (a production-like `node dist/cli.js`). */
export function buildOperator(): string {
  const cli = path.join(buildDir, "cli.js");
  log("building the operator (tsc)");
  const res = spawnSync(
    process.execPath,
    [
      path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      "tsconfig.build.json",
      "--outDir",
      buildDir,
      // Type errors are `npm run typecheck`'s business; the benchmark needs the JavaScript.
      "--noCheck",
    ],
    { cwd: repoRoot, stdio: "inherit" },
  );
  if (res.status !== 0) throw new Error("tsc failed");
  return cli;
}

export interface OperatorRun {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly httpPort: number;
  readonly metricsPort: number;
  readonly log: string;
  readonly startedAt: number;
  /** SIGTERM, then SIGKILL after 35 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `node <cli> run` against the cluster, watching one namespace; logs go to .local/bench/work. */
export async function startOperator(
  cli: string,
  options: { name: string; namespace: string; args?: readonly string[]; nodeArgs?: readonly string[] },
): Promise<OperatorRun> {
  mkdirSync(workDir, { recursive: true });
  const [httpPort, metricsPort] = [await freePort(), await freePort()];
  const logFile = path.join(workDir, `operator-${options.name}.log`);
  const fd = openSync(logFile, "w");
  const startedAt = Date.now();
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      cli,
      "run",
      `--kubeconfig=${kubeconfigFile()}`,
      `--namespace=${options.namespace}`,
      "--leader-elect=false",
      `--http-port=${httpPort}`,
      `--metrics-port=${metricsPort}`,
      "--log-level=info",
      ...(options.args ?? []),
    ],
    { cwd: repoRoot, stdio: ["ignore", fd, fd], env: { ...process.env, POD_NAME: `bench-${options.name}` } },
  );
  closeSync(fd);
  const pid = child.pid;
  if (pid === undefined) throw new Error("operator did not start");
  const exit = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return {
    child,
    pid,
    httpPort,
    metricsPort,
    log: logFile,
    startedAt,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 35_000);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Polls /readyz every 20 ms; resolves with the time it first answered 200. */
export async function untilReady(op: OperatorRun, timeoutMs = 300_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${op.httpPort}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return Date.now();
    if (op.child.exitCode !== null) throw new Error(`operator exited; see ${op.log}`);
    if (Date.now() > deadline) throw new Error(`operator not ready after ${timeoutMs} ms; see ${op.log}`);
    await sleep(20);
  }
}

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** A ServiceAccount `name` in `ns` bound to a Role with `rules`, and a token for it. */
export async function serviceAccountToken(
  http: KubeHttp,
  ns: string,
  name: string,
  rules: readonly PolicyRule[],
): Promise<string> {
  await http.request("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name } } });
  await http.request("POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    body: { metadata: { name }, rules },
  });
  await http.request("POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
    },
  });
  const reply = (await http.request("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      // A REST token is made for the operator's audience (--token-audiences), as docs/rest.md says.
      spec: { audiences: [DEFAULT_TOKEN_AUDIENCE], expirationSeconds: 3600 },
    },
  })) as { status: { token: string } };
  return reply.status.token;
}

/** A size from /proc/<pid>/status in bytes: VmRSS (resident now) or VmHWM (the peak resident). */
export function rssBytes(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} for ${pid}`);
  return Number(kb) * 1024;
}

/** The time (ms since the epoch) of the first operator log line with `msg`. */
export function logTime(file: string, msg: string): number | undefined {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes(msg)) continue;
    try {
      const entry = JSON.parse(line) as { time?: number; msg?: string };
      if (entry.msg === msg && typeof entry.time === "number") return entry.time;
    } catch {
      // not a log line (e.g. a stack trace)
    }
  }
  return undefined;
}

export interface ApiServerCounters {
  /** apiserver_request_total by "verb group resource subresource". */
  readonly requests: Map<string, number>;
  /** The API server's own CPU time so far (process_cpu_seconds_total). */
  readonly cpuSeconds: number;
  /** Every sample of the COST_FAMILIES, by its whole line up to the value (metric and labels). */
  readonly costs: Map<string, number>;
}

/**
 * What a request costs the API server beyond its call count, as the API server counts it: the bytes
 * written to it and sent to watchers, its CEL and admission time, and the time it spends on each call
 * and in etcd. Read to say what bounds a CPU ratio that the call counts alone do not explain.
 */
const COST_FAMILIES = [
  "apiserver_request_body_size_bytes_sum",
  "apiserver_response_sizes_sum",
  "apiserver_watch_events_total",
  "apiserver_watch_events_sizes_sum",
  "apiserver_cel_evaluation_duration_seconds_sum",
  "apiserver_admission_step_admission_duration_seconds_sum",
  "apiserver_request_duration_seconds_sum",
  "etcd_request_duration_seconds_sum",
] as const;
export type CostFamily = (typeof COST_FAMILIES)[number];

const labelsOf = (line: string): Record<string, string> =>
  Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? "", m[2] ?? ""]));

/**
 * The growth of one COST_FAMILIES metric between two readings, summed by the values of `by` (labels,
 * joined with a space; "" sums everything), largest first.
 */
export function costBetween(
  before: ApiServerCounters,
  after: ApiServerCounters,
  family: CostFamily,
  by: readonly string[],
): Record<string, number> {
  const out = new Map<string, number>();
  for (const [line, value] of after.costs) {
    if (!line.startsWith(`${family}{`) && line !== family) continue;
    const labels = labelsOf(line);
    const key =
      by
        .map((l) => labels[l] ?? "")
        .join(" ")
        .trim() || "all";
    out.set(key, (out.get(key) ?? 0) + value - (before.costs.get(line) ?? 0));
  }
  return Object.fromEntries([...out].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]));
}

/** The kube-apiserver's request counters and CPU time, from its /metrics. */
export async function apiServerCounters(kc: KubeConfig): Promise<ApiServerCounters> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error("no cluster in kubeconfig");
  const opts: https.RequestOptions = { method: "GET" };
  await kc.applyToHTTPSOptions(opts);
  const text = await new Promise<string>((resolve, reject) => {
    const req = https.request(new URL("/metrics", server), opts, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (data += c));
      res.on("end", () => {
        resolve(data);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
  const requests = new Map<string, number>();
  const costs = new Map<string, number>();
  let cpuSeconds = Number.NaN;
  for (const line of text.split("\n")) {
    const at = line.lastIndexOf(" ");
    const value = Number(line.slice(at + 1));
    if (line.startsWith("process_cpu_seconds_total ")) cpuSeconds = value;
    if (COST_FAMILIES.some((f) => line.startsWith(`${f}{`) || line.startsWith(`${f} `)))
      costs.set(line.slice(0, at), value);
    if (!line.startsWith("apiserver_request_total{")) continue;
    const labels = labelsOf(line);
    const key = [labels.verb, labels.group, labels.resource, labels.subresource].join(" ");
    requests.set(key, (requests.get(key) ?? 0) + value);
  }
  return { requests, cpuSeconds, costs };
}

/** The API calls whose verb matches `verbs` made between two readings, by "verb group resource subresource". */
export function callsBetween(
  before: ApiServerCounters,
  after: ApiServerCounters,
  verbs: RegExp,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of after.requests) {
    if (!verbs.test(key.slice(0, key.indexOf(" ")))) continue;
    const delta = value - (before.requests.get(key) ?? 0);
    if (delta > 0) out[key.trim()] = delta;
  }
  return out;
}

export const WRITE_VERBS = /^(POST|PUT|PATCH|DELETE)$/;

export function machine(): Record<string, unknown> {
  return {
    cpus: os.cpus().length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    load1: round(os.loadavg()[0] ?? 0, 2),
  };
}
