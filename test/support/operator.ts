// Runs `resize-operator run` as a real process against the test cluster, scoped to one namespace so
// test files cannot disturb each other. Logs go to the testbed folder (kept with TESTBED_KEEP=1).
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface OperatorProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly log: string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash at whatever point the process is. */
  kill(): Promise<void>;
  exited(): boolean;
}

export interface OperatorOptions {
  readonly namespace: string;
  /** Distinguishes processes in logs and as POD_NAME (the lease identity and events' reportingInstance). */
  readonly name: string;
  readonly leaderElect?: boolean;
  /** Watch every namespace (a test of what crosses namespaces); the Lease stays in `namespace`. */
  readonly allNamespaces?: boolean;
  readonly args?: readonly string[];
  /** Extra environment variables (e.g. the dashboard's AUTH_*). */
  readonly env?: Readonly<Record<string, string>>;
}

export function startOperator(options: OperatorOptions): OperatorProcess {
  const dir = process.env.TESTBED_DIR ?? repoRoot;
  const log = path.join(dir, `operator-${options.namespace}-${options.name}.log`);
  const fd = openSync(log, "a");
  // One process (node with tsx's loader), not the tsx CLI: that forks a child which a SIGKILL of the
  // parent would leave running, and a "crashed" operator that keeps running proves nothing.
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli.ts",
      "run",
      ...(options.allNamespaces ? [] : [`--namespace=${options.namespace}`]),
      `--leader-election-namespace=${options.namespace}`,
      `--leader-elect=${String(options.leaderElect ?? false)}`,
      "--http-port=0",
      // Test files run in parallel: no fixed /metrics port (pass --metrics-port in args to scrape it).
      "--metrics-port=0",
      "--attempt-backoff=1s",
      "--poll-interval=250ms",
      "--admission-grace=3s",
      "--log-level=debug",
      ...(options.args ?? []),
    ],
    {
      cwd: repoRoot,
      stdio: ["ignore", fd, fd],
      env: { ...process.env, ...options.env, POD_NAME: options.name },
    },
  );
  closeSync(fd);
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      exitCode = code;
      resolve(code);
    });
  });
  return {
    name: options.name,
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

/** Stops every process given, whatever state they are in (for afterAll/finally). */
export async function stopAll(processes: readonly OperatorProcess[]): Promise<void> {
  await Promise.all(
    processes.map(async (p) => {
      // SIGKILL after 35 s; the timer is cancelled once the process has stopped, so it does not keep
      // jest alive after the run.
      const patience = new AbortController();
      const killLater = sleep(35_000, undefined, { signal: patience.signal }).then(
        () => p.kill(),
        () => undefined,
      );
      await Promise.race([p.stop(), killLater]);
      patience.abort();
    }),
  );
}
