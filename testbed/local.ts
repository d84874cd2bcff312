// The developer's local cluster under `.local/` (cluster:up, cluster:down, kubectl, helm, dev).
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  isClusterRunning,
  readClusterState,
  startCluster,
  stopCluster,
  type ClusterState,
} from "./cluster.js";
import { ensureSystemPackages } from "./system.js";
import { ensureTools } from "./tools.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** `.local/` in the checkout; RESIZE_OPERATOR_LOCAL_DIR moves it (tests of these scripts use a temp dir). */
export const localDir = process.env.RESIZE_OPERATOR_LOCAL_DIR ?? path.join(repoRoot, ".local");
export const localKubeconfig = path.join(localDir, "kubeconfig");
/** The local cluster's folder (cluster.ts's `dir`): its state, PKI and logs, and Kueue's files when started. */
export const localClusterDir = path.join(localDir, "cluster");

const log = (message: string): void => {
  process.stderr.write(`[cluster] ${message}\n`);
};

/** Idempotent: reuses a running local cluster, otherwise replaces any stale one with a new one. */
export async function localClusterUp(): Promise<ClusterState> {
  ensureSystemPackages();
  const tools = await ensureTools();
  const existing = readClusterState(localClusterDir);
  if (existing && (await isClusterRunning(localClusterDir))) {
    log(`already running at ${existing.server}`);
    return existing;
  }
  await stopCluster(localClusterDir, true);
  mkdirSync(localClusterDir, { recursive: true });
  const state = await startCluster({ dir: localClusterDir, tools, log });
  copyFileSync(state.kubeconfig, localKubeconfig);
  return state;
}

export async function localClusterDown(): Promise<void> {
  await stopCluster(localClusterDir, true);
  rmSync(localKubeconfig, { force: true });
  log("stopped");
}
