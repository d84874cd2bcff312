// Fault injection on a running testbed cluster: stop and restart one recorded component (for example
// kube-apiserver) with exactly the arguments it was started with, keeping cluster.json current.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isApiServerReady, readClusterState, type ClusterState } from "./cluster.js";
import { isOurs, startProcess, stopProcess, tail, type ManagedProcess } from "./processes.js";

export type ComponentName = "etcd" | "kube-apiserver" | "kube-controller-manager" | "kube-scheduler" | "kwok";

function stateOrThrow(dir: string): ClusterState {
  const state = readClusterState(dir);
  if (!state) throw new Error(`no cluster recorded in ${dir}`);
  return state;
}

function find(state: ClusterState, name: ComponentName): ManagedProcess {
  const proc = state.processes.find((p) => p.name === name);
  if (!proc) throw new Error(`component ${name} is not part of the cluster in ${state.dir}`);
  return proc;
}

/** Stops one component (SIGTERM, or SIGKILL when `kill` is set). */
export async function stopComponent(dir: string, name: ComponentName, kill = false): Promise<void> {
  const proc = find(stateOrThrow(dir), name);
  await stopProcess(proc, kill ? 0 : 10_000);
}

/** Components that talk to the API server and suffer while it is away. */
const DEPENDENTS: readonly ComponentName[] = ["kube-controller-manager", "kube-scheduler", "kwok"];

/**
 * Once a restarted API server is ready again, restarts its dependents, as a node's supervisor would
 * have to: while it starts, its authorizer answers 403 and its port refuses connections, so the
 * controller-manager may exit and client-go reflectors back off up to 30 s per failed watch — pods
 * then wait for a scheduler that only retries later. Tests of the operator's own recovery must not
 * depend on that backoff. kwok is restarted only if it exited: a new kwok process has a new identity
 * and must wait for its predecessor's node leases to expire (40 s) before it runs any pod.
 * Gives up quietly when the cluster is stopped meanwhile.
 */
async function restartDependentsWhenReady(dir: string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (!(await isApiServerReady(dir).catch(() => false))) {
    if (!readClusterState(dir) || Date.now() > deadline) return;
    await sleep(250);
  }
  await restartDependents(dir, { kwok: false });
}

/**
 * Restarts the controller-manager and the scheduler, and kwok when it exited or `kwok` is set (a kwok
 * that runs but no longer runs pods; its successor waits out the old node leases, about 40 s).
 */
export async function restartDependents(dir: string, options: { kwok: boolean }): Promise<void> {
  for (const name of DEPENDENTS) {
    const state = readClusterState(dir);
    if (!state) return;
    const proc = find(state, name);
    if (name === "kwok" && !options.kwok && isOurs(proc)) continue;
    await stopProcess(proc, 5_000);
    await startAndStayUp(dir, name);
  }
}

/**
 * Starts `name` and checks that it is still running a few seconds later, as a supervisor's restart
 * policy would: a component that exits at start (an API server still settling) is started again.
 */
async function startAndStayUp(dir: string, name: ComponentName): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    if (!readClusterState(dir)) return;
    const proc = startComponent(dir, name);
    await sleep(3_000);
    if (isOurs(proc)) return;
    process.stderr.write(
      `[testbed] ${name} exited after its restart (attempt ${attempt}):\n${tail(proc.log, 10)}\n`,
    );
  }
}

/** The restart of a restarted API server's dependents, in flight or done (see startComponent). */
let dependentsRestart: Promise<void> = Promise.resolve();
/** Whether this process restarted the API server (a jest test file has its own module state). */
let apiServerRestarts = 0;

/** True once this process (a test file) has restarted the API server. */
export function apiServerRestarted(): boolean {
  return apiServerRestarts > 0;
}

/**
 * Resolves once the controller-manager and the scheduler run again after the last API-server restart
 * this process made: a test that restarted the API server awaits it so the next test file gets a whole
 * cluster, not one whose controllers are still being restarted.
 */
export function dependentsRestarted(): Promise<void> {
  return dependentsRestart;
}

/**
 * What a test needs to know when the cluster does not recover: each dependent that is not running, with
 * the end of its log (CI keeps no cluster directory, so this is the only trace of why it died).
 */
export function dependentsReport(dir: string): string {
  const state = readClusterState(dir);
  if (!state) return `no cluster recorded in ${dir}`;
  return DEPENDENTS.map((name) => {
    const proc = find(state, name);
    return isOurs(proc)
      ? `${name}: running (pid ${proc.pid})`
      : `${name}: NOT running (pid ${proc.pid}); end of ${proc.log}:\n${tail(proc.log, 15)}`;
  }).join("\n");
}

/** Starts a stopped component again with its recorded arguments; returns the new process. */
export function startComponent(dir: string, name: ComponentName): ManagedProcess {
  const state = stateOrThrow(dir);
  const old = find(state, name);
  const proc = startProcess(old.name, old.binary, [...old.args], path.dirname(old.log));
  const processes = state.processes.map((p) => (p.name === name ? proc : p));
  const file = path.join(dir, "cluster.json");
  const current = JSON.parse(readFileSync(file, "utf8")) as ClusterState;
  writeFileSync(file, JSON.stringify({ ...current, processes }, null, 2));
  if (name === "kube-apiserver") {
    apiServerRestarts++;
    dependentsRestart = restartDependentsWhenReady(dir).catch((err: unknown) => {
      process.stderr.write(`[testbed] restarting the API server's dependents failed: ${String(err)}\n`);
    });
  }
  return proc;
}
