// Test infrastructure standing in for a cloud's Karpenter deployment: the real Karpenter (the pinned
// sigs.k8s.io/karpenter, its kwok provider, built into the tools cache by tools.ts) as a local process
// beside the testbed's control plane (cluster.ts). Its "cloud" is kwok: for each NodeClaim it writes a
// Node annotated `kwok.x-k8s.io/node: fake`, which the cluster's kwok makes Ready. Groups target its
// static NodePools (karpenter.sh/v1, `spec.replicas`, /scale) as they would on a cloud.
//
// What `startKarpenter` does, and why:
// - installs Karpenter's CRDs (NodePool, NodeClaim, NodeOverlay, CapacityBuffer, KWOKNodeClass) with
//   server-side apply and waits until they are Established;
// - applies one KWOKNodeClass (`testbed`) and writes the instance types its cloud offers
//   (`<dir>/karpenter/instance-types.json`: the GPU shape `gpu-8x` of the fixed nodes, and `cpu-32x`);
// - starts Karpenter with the settings of karpenter-manifests.ts (feature gate StaticCapacity, leader
//   election off, metrics and health on free ports), as the cluster admin: the testbed checks its
//   behaviour, not its RBAC. No webhooks and no certificates are needed;
// - records the process in `<dir>/cluster.json` like the control plane's, so `stopCluster` (and
//   `npm run cluster:down`) stop it too; logs go to `<dir>/logs/karpenter.log`.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readClusterState } from "./cluster.js";
import {
  instanceTypesFile,
  KARPENTER,
  karpenterEnvironment,
  kwokNodeClass,
  NODEPOOL_LABEL,
  type KarpenterPorts,
} from "./karpenter-manifests.js";
import { apply, installCrds, kubectl } from "./kubectl.js";
import { recordedProcess, recordProcess, stillRunning } from "./process-record.js";
import {
  answersReadyz,
  freePort,
  isOurs,
  startProcess,
  stopProcess,
  untilStarted,
  waitFor,
  type ManagedProcess,
} from "./processes.js";
import type { Toolchain } from "./tools.js";

export interface KarpenterOptions {
  /** The cluster's folder (cluster.ts): `cluster.json`, `logs/`. Karpenter's files go to `karpenter/`. */
  readonly dir: string;
  /** An admin kubeconfig of that cluster. */
  readonly kubeconfig: string;
  readonly tools: Toolchain;
  readonly log?: (message: string) => void;
}

export interface Karpenter {
  readonly process: ManagedProcess;
  readonly ports: KarpenterPorts;
  /** Deletes every NodePool (Karpenter then removes its Nodes), stops Karpenter and removes its record. */
  stop(): Promise<void>;
}

const PROCESS_NAME = "karpenter";

function handle(
  dir: string,
  kubeconfig: string,
  tools: Toolchain,
  proc: ManagedProcess,
  ports: KarpenterPorts,
): Karpenter {
  return { process: proc, ports, stop: () => stopKarpenter(dir, kubeconfig, tools) };
}

/**
 * Starts Karpenter against the cluster in `dir` and resolves once it answers `/readyz`. Idempotent: a
 * Karpenter already running for that cluster is returned as it is.
 */
export async function startKarpenter(options: KarpenterOptions): Promise<Karpenter> {
  const { dir, kubeconfig, tools } = options;
  const log = options.log ?? (() => undefined);
  const karpenterDir = path.join(dir, "karpenter");
  const portsFile = path.join(karpenterDir, "ports.json");
  const running = stillRunning(dir, PROCESS_NAME, portsFile);
  if (running) {
    log(`Karpenter already running (pid ${running.process.pid})`);
    return handle(dir, kubeconfig, tools, running.process, running.ports as KarpenterPorts);
  }
  const binary = tools.paths.karpenter;
  if (!existsSync(binary))
    throw new Error(`the Karpenter binary is missing (${binary}): run \`npm run tools\` to build it`);
  if (!readClusterState(dir)) throw new Error(`no cluster recorded in ${dir}`);
  const stale = recordedProcess(dir, PROCESS_NAME);
  if (stale) await stopProcess(stale);

  log("installing Karpenter's CRDs and the KWOKNodeClass");
  await installCrds(tools, kubeconfig, tools.assets["karpenter-crds.yaml"]);
  await apply(tools, kubeconfig, "-", JSON.stringify(kwokNodeClass()));

  mkdirSync(karpenterDir, { recursive: true });
  const typesFile = path.join(karpenterDir, "instance-types.json");
  writeFileSync(typesFile, instanceTypesFile());
  const [metrics, health] = await Promise.all([freePort(), freePort()]);
  const ports: KarpenterPorts = { metrics, health };
  writeFileSync(portsFile, JSON.stringify(ports));

  log(`starting Karpenter (health on ${ports.health}, metrics on ${ports.metrics})`);
  const logDir = path.join(dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const proc = startProcess(
    PROCESS_NAME,
    binary,
    [],
    logDir,
    karpenterEnvironment(kubeconfig, ports, typesFile),
  );
  recordProcess(dir, PROCESS_NAME, proc);
  try {
    await untilStarted(proc, "Karpenter", [
      { what: "Karpenter /readyz", check: () => answersReadyz(ports.health), timeoutMs: 120_000 },
    ]);
  } catch (err) {
    // Only the process: the NodePools a running Karpenter would be asked to empty are left alone.
    await stopProcess(proc);
    recordProcess(dir, PROCESS_NAME, undefined);
    throw err;
  }
  log(`Karpenter ready (pid ${proc.pid})`);
  return handle(dir, kubeconfig, tools, proc, ports);
}

/** The names (`kind/name`) of Karpenter's objects of `kind` still in the cluster. */
async function remaining(tools: Toolchain, kubeconfig: string, kind: string, selector?: string) {
  const args = ["get", kind, "-o", "name", "--ignore-not-found", ...(selector ? ["-l", selector] : [])];
  const out = await kubectl(tools, kubeconfig, args).catch(() => "");
  return out.split("\n").filter(Boolean);
}

/**
 * Stops the Karpenter recorded for `dir` (if any) and removes its record. Its NodePools are deleted
 * first and a running Karpenter is given a minute to remove their NodeClaims and Nodes: each carries
 * Karpenter's finalizer (`karpenter.sh/termination`), which nothing else removes, so a Node left behind
 * would stay Terminating for good. What is still there after that (Karpenter gone or stuck) has its
 * finalizers removed and is deleted. The CRDs and the KWOKNodeClass stay.
 */
export async function stopKarpenter(dir: string, kubeconfig: string, tools: Toolchain): Promise<void> {
  const proc = recordedProcess(dir, PROCESS_NAME);
  const nodeClaims = `nodeclaims.${KARPENTER.group}`;
  const del = ["delete", `nodepools.${KARPENTER.group}`, "--all", "--wait=false", "--ignore-not-found"];
  await kubectl(tools, kubeconfig, del).catch(() => undefined);
  if (proc && isOurs(proc)) {
    await waitFor(
      "Karpenter to remove its NodeClaims",
      async () => (await remaining(tools, kubeconfig, nodeClaims)).length === 0,
      60_000,
    ).catch(() => undefined);
  }
  if (proc) await stopProcess(proc);
  recordProcess(dir, PROCESS_NAME, undefined);
  const leftovers = [
    ...(await remaining(tools, kubeconfig, nodeClaims)),
    ...(await remaining(tools, kubeconfig, "nodes", NODEPOOL_LABEL)),
  ];
  const unfinalize = JSON.stringify({ metadata: { finalizers: null } });
  for (const object of leftovers) {
    await kubectl(tools, kubeconfig, ["patch", object, "--type=merge", "-p", unfinalize]).catch(
      () => undefined,
    );
    await kubectl(tools, kubeconfig, ["delete", object, "--ignore-not-found", "--wait=false"]).catch(
      () => undefined,
    );
  }
}

/**
 * Deletes Karpenter's CRDs (after `stopKarpenter`), so a test file leaves the cluster as it found it:
 * its `nodepools` would otherwise share kubectl's short name `nodepool` with the testbed's NodePool.
 */
export async function removeKarpenterCrds(kubeconfig: string, tools: Toolchain): Promise<void> {
  const file = tools.assets["karpenter-crds.yaml"];
  await kubectl(tools, kubeconfig, ["delete", "-f", file, "--ignore-not-found", "--wait", "--timeout=120s"]);
}
