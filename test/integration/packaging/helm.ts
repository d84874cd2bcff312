// The pinned helm and kubectl against the test cluster, and a kubeconfig that authenticates with a
// bearer token instead of the admin's client certificate.
import { execFile, spawn } from "node:child_process";
import { closeSync, openSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { kubeConfig } from "../../support/kube.js";
import type { OperatorProcess } from "../../support/operator.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const CHART = path.join(repoRoot, "charts/resize-operator");
const run = promisify(execFile);

function env(name: "HELM" | "KUBECTL" | "KUBECONFIG"): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is set by the jest global setup`);
  return value;
}

async function tool(bin: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(bin, ["--kubeconfig", env("KUBECONFIG"), ...args], {
      cwd: repoRoot,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    throw new Error(`${path.basename(bin)} ${args.join(" ")} failed:\n${stderr}${stdout}`, { cause: err });
  }
}

export const helm = (...args: string[]): Promise<string> => tool(env("HELM"), args);
export const kubectl = (...args: string[]): Promise<string> => tool(env("KUBECTL"), args);

/** Writes a kubeconfig for the test cluster that authenticates with `token`; returns its path. */
export function tokenKubeconfig(file: string, token: string): string {
  const admin = kubeConfig();
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error("the admin kubeconfig has no current cluster");
  const ca = cluster.caData ?? (cluster.caFile ? undefined : "");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "test",
        cluster: {
          server: cluster.server,
          ...(ca !== undefined
            ? { "certificate-authority-data": ca }
            : { "certificate-authority": cluster.caFile }),
        },
      },
    ],
    users: [{ name: "token", user: { token } }],
    contexts: [{ name: "test", context: { cluster: "test", user: "token" } }],
    "current-context": "test",
  };
  writeFileSync(file, stringify(config), { mode: 0o600 });
  return file;
}

/**
 * `resize-operator run` with exactly `args` (test/support/operator.ts always scopes the process to one
 * namespace; the chart runs it across all of them). One node process, so stop() stops it all.
 */
export function spawnOperator(logDir: string, name: string, args: readonly string[]): OperatorProcess {
  const log = path.join(logDir, `operator-${name}.log`);
  const fd = openSync(log, "a");
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "run", ...args], {
    cwd: repoRoot,
    stdio: ["ignore", fd, fd],
    env: { ...process.env, POD_NAME: name },
  });
  closeSync(fd);
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      exitCode = code;
      resolve(code);
    });
  });
  return {
    name,
    child,
    log,
    exited: () => exitCode !== undefined,
    async stop() {
      if (exitCode === undefined) child.kill("SIGTERM");
      return exit;
    },
    async kill() {
      if (exitCode === undefined) child.kill("SIGKILL");
      await exit;
    },
  };
}
