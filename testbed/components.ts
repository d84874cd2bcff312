// Fault injection on a running testbed cluster: stop and restart one recorded component (for example
// kube-apiserver) with exactly the arguments it was started with, keeping cluster.json current.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readClusterState, type ClusterState } from "./cluster.js";
import { isOurs, startProcess, stopProcess, type ManagedProcess } from "./processes.js";

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

/** Components that talk to the API server and may exit while it is away (e.g. the controller-manager
 * exits when a restart catches it building clients); a real node's supervisor would restart them. */
const DEPENDENTS: readonly ComponentName[] = ["kube-controller-manager", "kube-scheduler", "kwok"];

/** For `forMs`, restarts any dependent component that is not running (checked every second). */
function superviseDependents(dir: string, forMs: number): void {
  const until = Date.now() + forMs;
  const timer = setInterval(() => {
    const state = readClusterState(dir);
    if (!state || Date.now() > until) {
      clearInterval(timer);
      return;
    }
    for (const p of state.processes) {
      if ((DEPENDENTS as readonly string[]).includes(p.name) && !isOurs(p)) {
        startComponent(dir, p.name as ComponentName);
      }
    }
  }, 1000);
  timer.unref();
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
  if (name === "kube-apiserver") superviseDependents(dir, 180_000);
  return proc;
}
