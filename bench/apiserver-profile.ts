// The API server's own CPU profile over a benchmark's window (BENCH_APISERVER_PROF=1): kube-apiserver
// serves Go's pprof at /debug/pprof/profile (on by default, `--profiling`), fetched with the pinned
// kubectl as the cluster's admin. A CPU profile samples only busy time, so a window longer than the
// side it covers adds nothing as long as the benchmark waits for it before doing anything else.
// Read one with `go tool pprof -top FILE` (Go profiles carry their function names).
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { ensureTools } from "../testbed/tools.js";
import { kubeconfigFile, log, workDir } from "./lib.js";

/** Whether this run profiles the API server (BENCH_APISERVER_PROF=1). */
export const profilingApiServer = process.env.BENCH_APISERVER_PROF === "1";

/** Starts a `seconds`-long CPU profile of the API server into .local/bench/work/apiserver/NAME.pb.gz. */
export async function apiServerProfile(name: string, seconds: number): Promise<() => Promise<string>> {
  const tools = await ensureTools();
  const dir = path.join(workDir, "apiserver");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.pb.gz`);
  const out = openSync(file, "w");
  const child = spawn(
    tools.paths.kubectl,
    [`--kubeconfig=${kubeconfigFile()}`, "get", "--raw", `/debug/pprof/profile?seconds=${seconds}`],
    { stdio: ["ignore", out, "inherit"] },
  );
  const done = new Promise<string>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      closeSync(out);
      if (code === 0) resolve(file);
      else reject(new Error(`profiling the API server failed (kubectl exit ${code})`));
    });
  });
  done.catch(() => undefined);
  return async () => {
    const written = await done;
    log(`API server profile: ${written}`);
    return written;
  };
}
