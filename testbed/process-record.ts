// Test infrastructure: the record of a testbed cluster's processes (`<dir>/cluster.json`, written by
// cluster.ts) for components started beside the cluster (Kueue, Karpenter, the node-pool controller),
// so that stopCluster and `npm run cluster:down` stop them too.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readClusterState, type ClusterState } from "./cluster.js";
import { isOurs, type ManagedProcess } from "./processes.js";

const stateFile = (dir: string): string => path.join(dir, "cluster.json");

/**
 * Rewrites the cluster's process record through `change`, written whole and renamed into place so a
 * reader (stopCluster, components.ts) never sees half a file. Nothing happens without a record.
 */
export function updateRecord(
  dir: string,
  change: (processes: readonly ManagedProcess[]) => ManagedProcess[],
): void {
  const state = readClusterState(dir);
  if (!state) return;
  const next: ClusterState = { ...state, processes: change(state.processes) };
  const tmp = `${stateFile(dir)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(next, null, 2));
  renameSync(tmp, stateFile(dir));
}

/** Records `proc` as the one process called `name` (replacing any earlier one), or removes it. */
export function recordProcess(dir: string, name: string, proc: ManagedProcess | undefined): void {
  updateRecord(dir, (ps) => [...ps.filter((p) => p.name !== name), ...(proc ? [proc] : [])]);
}

/** The process recorded under `name`, if any (it may have exited since). */
export function recordedProcess(dir: string, name: string): ManagedProcess | undefined {
  return readClusterState(dir)?.processes.find((p) => p.name === name);
}

/**
 * The component recorded under `name`, if it still runs, with the ports it saved to `portsFile` when it
 * started: a second start returns it rather than starting another.
 */
export function stillRunning(
  dir: string,
  name: string,
  portsFile: string,
): { readonly process: ManagedProcess; readonly ports: unknown } | undefined {
  const proc = recordedProcess(dir, name);
  if (!proc || !isOurs(proc) || !existsSync(portsFile)) return undefined;
  return { process: proc, ports: JSON.parse(readFileSync(portsFile, "utf8")) };
}
