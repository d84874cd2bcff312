// Test infrastructure standing in for a management cluster's Cluster API: the real core controller
// manager (the pinned sigs.k8s.io/cluster-api, built into the tools cache by tools.ts) as a local process
// beside the testbed's control plane (cluster.ts), with the testbed's kwok-backed providers
// (kwok-machines.ts) as its "cloud". The testbed's control plane is both the management cluster and
// every workload cluster: a MachineDeployment scaled to N gets N Machines, each backed by a kwok Node
// that Cluster API itself finds by providerID, so Machines become Ready, and a scale-down deletes the
// Machines Cluster API's own deletion order picks, as on a cloud.
//
// What `startClusterApi` does, and why:
// - installs Cluster API's CRDs (server-side apply, conversion webhooks removed: the testbed uses
//   v1beta2 only) and the providers' CRDs, and waits until they are Established;
// - applies Cluster API's webhook configurations for the cluster.x-k8s.io objects, calling the local
//   process with the cluster CA (cluster-api-manifests.ts). The webhook server presents the API
//   server's own serving certificate (`<dir>/pki/apiserver.{crt,key}`: 127.0.0.1, signed by that CA),
//   so no certificate is issued; its port is a free one, though the manager binds it on every
//   interface (it has no host flag);
// - starts the manager as the cluster admin (the testbed checks its behaviour, not its RBAC) with the
//   flags of cluster-api-manifests.ts, waits for /readyz and for its defaulting webhook to answer;
// - starts the providers' process; both are recorded in `<dir>/cluster.json`, so `stopCluster` (and
//   `npm run cluster:down`) stop them too; logs go to `<dir>/logs/{cluster-api,kwok-machines}.log`.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "yaml";
import { readClusterState } from "./cluster.js";
import {
  CAPI,
  CLUSTER_NAME_LABEL,
  clusterApiArgs,
  INFRA,
  machineDeployment,
  PROVIDER_NODE_LABEL,
  PROVIDER_READY,
  providerCrds,
  scopedWebhooks,
  WEBHOOK_CONFIGURATIONS,
  workloadCluster,
  type ClusterApiPorts,
} from "./cluster-api-manifests.js";
import { apply, installCrds, kubectl, deleteWebhookConfigurations } from "./kubectl.js";
import { recordedProcess, recordProcess, stillRunning } from "./process-record.js";
import {
  answersReadyz,
  freePort,
  isOurs,
  startProcess,
  stopProcess,
  tail,
  untilStarted,
  waitFor,
  type ManagedProcess,
} from "./processes.js";
import type { Toolchain } from "./tools.js";

export interface ClusterApiOptions {
  /** The cluster's folder (cluster.ts): `cluster.json`, `pki/`, `logs/`. Cluster API's files go to `cluster-api/`. */
  readonly dir: string;
  /** An admin kubeconfig of that cluster. */
  readonly kubeconfig: string;
  readonly tools: Toolchain;
  readonly log?: (message: string) => void;
}

export interface ClusterApi {
  readonly process: ManagedProcess;
  readonly provider: ManagedProcess;
  readonly ports: ClusterApiPorts;
  /** Deletes every Cluster (and so its Machines and Nodes), stops both processes, removes the webhooks. */
  stop(): Promise<void>;
}

const MANAGER = "cluster-api";
const PROVIDER = "kwok-machines";

const providerCrdsFile = (dir: string): string => path.join(dir, "cluster-api", "provider-crds.yaml");

/** Cluster API's CRDs and the providers', installed and Established. */
async function installAllCrds(dir: string, kubeconfig: string, tools: Toolchain): Promise<void> {
  await installCrds(tools, kubeconfig, tools.assets["cluster-api-crds.yaml"]);
  writeFileSync(
    providerCrdsFile(dir),
    providerCrds()
      .map((c) => JSON.stringify(c))
      .join("\n---\n"),
  );
  await installCrds(tools, kubeconfig, providerCrdsFile(dir));
}

/** The defaulting webhook answers through the API server: a dry-run MachineDeployment gets its selector. */
async function webhooksAnswer(tools: Toolchain, kubeconfig: string): Promise<boolean> {
  const md = machineDeployment("default", "capi-webhook-probe", "probe", 0) as {
    spec: { selector: { matchLabels: Record<string, string> } };
  };
  md.spec.selector.matchLabels = {};
  const dryRun = ["create", "--dry-run=server", "-o", "json", "-f", "-"];
  const created = JSON.parse(await kubectl(tools, kubeconfig, dryRun, JSON.stringify(md))) as {
    spec?: { selector?: { matchLabels?: Record<string, string> } };
  };
  return created.spec?.selector?.matchLabels?.[CLUSTER_NAME_LABEL] === "probe";
}

/** Starts the providers' process (once: a recorded one that still runs is reused); resolves once it served a pass. */
async function startProvider(
  dir: string,
  kubeconfig: string,
  log: (m: string) => void,
): Promise<ManagedProcess> {
  const running = recordedProcess(dir, PROVIDER);
  if (running && isOurs(running)) return running;
  const logDir = path.join(dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${PROVIDER}.log`);
  // The log is appended to: only what this process writes counts as its readiness.
  const from = existsSync(logFile) ? statSync(logFile).size : 0;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const script = fileURLToPath(new URL("./kwok-machines.ts", import.meta.url));
  const proc = startProcess(
    PROVIDER,
    process.execPath,
    ["--import", tsx, script, `--kubeconfig=${kubeconfig}`],
    logDir,
  );
  recordProcess(dir, PROVIDER, proc);
  log(`starting the kwok providers (pid ${proc.pid}, log ${proc.log})`);
  const deadline = Date.now() + 60_000;
  while (!readFileSync(logFile).subarray(from).toString("utf8").includes(PROVIDER_READY)) {
    if (!isOurs(proc) || Date.now() > deadline) {
      await stopProcess(proc);
      recordProcess(dir, PROVIDER, undefined);
      throw new Error(
        `the kwok providers ${isOurs(proc) ? "were not ready after 60s" : "exited"}:\n${tail(logFile)}`,
      );
    }
    await sleep(100);
  }
  return proc;
}

function handle(
  options: ClusterApiOptions,
  proc: ManagedProcess,
  provider: ManagedProcess,
  ports: ClusterApiPorts,
): ClusterApi {
  const { dir, kubeconfig, tools } = options;
  return { process: proc, provider, ports, stop: () => stopClusterApi(dir, kubeconfig, tools) };
}

/**
 * Starts Cluster API and the kwok providers against the cluster in `dir`; resolves once the manager is
 * ready, its webhooks answer and the providers served a pass. Idempotent: what already runs for that
 * cluster is returned as it is.
 */
export async function startClusterApi(options: ClusterApiOptions): Promise<ClusterApi> {
  const { dir, kubeconfig, tools } = options;
  const log = options.log ?? (() => undefined);
  const capiDir = path.join(dir, "cluster-api");
  const portsFile = path.join(capiDir, "ports.json");
  const running = stillRunning(dir, MANAGER, portsFile);
  if (running) {
    log(`Cluster API already running (pid ${running.process.pid})`);
    const provider = await startProvider(dir, kubeconfig, log);
    return handle(options, running.process, provider, running.ports as ClusterApiPorts);
  }
  const binary = tools.paths["cluster-api"];
  if (!existsSync(binary))
    throw new Error(`the Cluster API binary is missing (${binary}): run \`npm run tools\` to build it`);
  if (!readClusterState(dir)) throw new Error(`no cluster recorded in ${dir}`);
  const stale = recordedProcess(dir, MANAGER);
  if (stale) await stopProcess(stale);

  mkdirSync(capiDir, { recursive: true });
  log("installing Cluster API's CRDs and the kwok providers' CRDs");
  await installAllCrds(dir, kubeconfig, tools);

  const [webhook, health, diagnostics] = await Promise.all([freePort(), freePort(), freePort()]);
  const ports: ClusterApiPorts = { webhook, health, diagnostics };
  writeFileSync(portsFile, JSON.stringify(ports));
  log(`applying Cluster API's webhook configurations (https://127.0.0.1:${ports.webhook})`);
  const pki = path.join(dir, "pki");
  const caBundle = readFileSync(path.join(pki, "ca.crt")).toString("base64");
  const manifests = readFileSync(tools.assets["cluster-api-webhooks.yaml"], "utf8");
  await apply(tools, kubeconfig, "-", scopedWebhooks(manifests, ports.webhook, caBundle));

  log("starting Cluster API");
  const logDir = path.join(dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const cert = { dir: pki, certName: "apiserver.crt", keyName: "apiserver.key" };
  const proc = startProcess(MANAGER, binary, clusterApiArgs(kubeconfig, ports, cert), logDir);
  recordProcess(dir, MANAGER, proc);
  let provider: ManagedProcess;
  try {
    await untilStarted(proc, "Cluster API", [
      { what: "Cluster API /readyz", check: () => answersReadyz(ports.health), timeoutMs: 120_000 },
      {
        what: "Cluster API's webhooks (a dry-run MachineDeployment gets its selector)",
        check: () => webhooksAnswer(tools, kubeconfig),
        timeoutMs: 60_000,
      },
    ]);
    provider = await startProvider(dir, kubeconfig, log);
  } catch (err) {
    await stopClusterApi(dir, kubeconfig, tools);
    throw err;
  }
  log(`Cluster API ready (pid ${proc.pid})`);
  return handle(options, proc, provider, ports);
}

/** The names (`kind/name`, with `-n namespace` where namespaced) of objects of `kind` still there. */
async function remaining(
  tools: Toolchain,
  kubeconfig: string,
  kind: string,
  selector?: string,
): Promise<string[][]> {
  const args = [
    "get",
    kind,
    "-A",
    "--ignore-not-found",
    "-o",
    'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}',
  ];
  const out = await kubectl(tools, kubeconfig, [...args, ...(selector ? ["-l", selector] : [])]).catch(
    () => "",
  );
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [namespace = "", name = ""] = line.split("/");
      return namespace ? ["-n", namespace, `${kind}/${name}`] : [`${kind}/${name}`];
    });
}

const CAPI_KINDS = ["clusters", "machinedeployments", "machinesets", "machines"].map(
  (k) => `${k}.${CAPI.group}`,
);
const PROVIDER_KINDS = ["kwokmachines", "kwokclusters"].map((k) => `${k}.${INFRA.group}`);

/**
 * Stops the Cluster API recorded for `dir` (if any) and removes its records and webhooks. Every Cluster
 * is deleted first and a running Cluster API (with its providers) is given 90 s to remove it and its
 * Machines, whose finalizers nothing else removes; the providers delete the Nodes. What is still there
 * then (either process gone or stuck) has its finalizers removed and is deleted, and the providers'
 * Nodes go. The CRDs stay (removeClusterApiCrds).
 */
export async function stopClusterApi(dir: string, kubeconfig: string, tools: Toolchain): Promise<void> {
  const manager = recordedProcess(dir, MANAGER);
  const provider = recordedProcess(dir, PROVIDER);
  const clusters = `clusters.${CAPI.group}`;
  await kubectl(tools, kubeconfig, [
    "delete",
    clusters,
    "--all",
    "-A",
    "--wait=false",
    "--ignore-not-found",
  ]).catch(() => undefined);
  if (manager && isOurs(manager) && provider && isOurs(provider)) {
    await waitFor(
      "Cluster API to delete its Clusters",
      async () => (await remaining(tools, kubeconfig, clusters)).length === 0,
      90_000,
    ).catch(() => undefined);
  }
  // The records go first, as stopCluster does: a recorded process that is gone would make
  // isClusterRunning (npm run cluster:up) take the whole cluster for dead.
  recordProcess(dir, MANAGER, undefined);
  recordProcess(dir, PROVIDER, undefined);
  for (const proc of [manager, provider]) if (proc) await stopProcess(proc);
  await deleteWebhookConfigurations(tools, kubeconfig, WEBHOOK_CONFIGURATIONS);
  const unfinalize = JSON.stringify({ metadata: { finalizers: null } });
  for (const kind of [...CAPI_KINDS, ...PROVIDER_KINDS]) {
    for (const object of await remaining(tools, kubeconfig, kind)) {
      await kubectl(tools, kubeconfig, ["patch", ...object, "--type=merge", "-p", unfinalize]).catch(
        () => undefined,
      );
      await kubectl(tools, kubeconfig, ["delete", ...object, "--ignore-not-found", "--wait=false"]).catch(
        () => undefined,
      );
    }
  }
  await kubectl(tools, kubeconfig, [
    "delete",
    "nodes",
    "-l",
    `${PROVIDER_NODE_LABEL}=true`,
    "--ignore-not-found",
    "--wait=false",
  ]).catch(() => undefined);
}

/** Deletes Cluster API's CRDs and the providers' (after stopClusterApi), so a test file leaves the cluster as it found it. */
export async function removeClusterApiCrds(dir: string, kubeconfig: string, tools: Toolchain): Promise<void> {
  for (const file of [tools.assets["cluster-api-crds.yaml"], providerCrdsFile(dir)])
    if (existsSync(file))
      await kubectl(tools, kubeconfig, [
        "delete",
        "-f",
        file,
        "--ignore-not-found",
        "--wait",
        "--timeout=120s",
      ]);
}

/**
 * Creates the workload cluster `name` in `namespace` (cluster-api-manifests.ts: workloadCluster) over
 * the testbed's own API server, and resolves once Cluster API has initialised it and probed its API
 * server: from then on a MachineDeployment's Machines become Ready as soon as their Nodes are.
 */
export async function createWorkloadCluster(
  tools: Toolchain,
  kubeconfig: string,
  namespace: string,
  name: string,
): Promise<void> {
  const text = readFileSync(kubeconfig, "utf8");
  const server = (parse(text) as { clusters?: { cluster?: { server?: string } }[] }).clusters?.[0]?.cluster
    ?.server;
  if (!server) throw new Error(`${kubeconfig} names no API server`);
  const docs = workloadCluster(namespace, name, text, new URL(server));
  await apply(tools, kubeconfig, "-", docs.map((d) => JSON.stringify(d)).join("\n---\n"));
  for (const condition of ["ControlPlaneInitialized", "RemoteConnectionProbe"])
    await kubectl(tools, kubeconfig, [
      "wait",
      "-n",
      namespace,
      `--for=condition=${condition}`,
      "--timeout=90s",
      `clusters.${CAPI.group}/${name}`,
    ]);
}
