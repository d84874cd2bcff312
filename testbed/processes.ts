// Background processes owned by the testbed. Each is recorded with its pid and binary so that stopping
// only ever signals a process we started (a pid reused by another program is left alone).
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly binary: string;
  readonly args: readonly string[];
  readonly log: string;
}

/**
 * Starts `binary` detached, its output appended to `<logDir>/<name>.log`. `env` is added to this
 * process's environment, for settings a program reads only from there (Karpenter's kubeconfig).
 */
export function startProcess(
  name: string,
  binary: string,
  args: string[],
  logDir: string,
  env: Readonly<Record<string, string>> = {},
): ManagedProcess {
  const log = path.join(logDir, `${name}.log`);
  const fd = openSync(log, "a");
  try {
    // detached: the process outlives `cluster:up` and gets its own process group.
    const child = spawn(binary, args, {
      detached: true,
      stdio: ["ignore", fd, fd],
      env: { ...process.env, ...env },
    });
    if (child.pid === undefined) throw new Error(`could not start ${name} (${binary})`);
    child.unref();
    return { name, pid: child.pid, binary, args, log };
  } finally {
    closeSync(fd);
  }
}

/** True when `pid` is alive and is still the program we started (not a recycled pid). */
export function isOurs(proc: ManagedProcess): boolean {
  if (!isRunning(proc.pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").split("\0");
    // Some servers (redis-server) rewrite their title to "binary args…" in argv[0].
    const first = cmdline[0] ?? "";
    return first === proc.binary || first.startsWith(`${proc.binary} `);
  } catch {
    return false;
  }
}

export function signal(proc: ManagedProcess, sig: NodeJS.Signals): boolean {
  if (!isOurs(proc)) return false;
  try {
    process.kill(proc.pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopProcess(proc: ManagedProcess, graceMs = 10_000): Promise<void> {
  if (!signal(proc, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (isOurs(proc)) {
    if (Date.now() > deadline) {
      signal(proc, "SIGKILL");
      await sleep(100);
      return;
    }
    await sleep(50);
  }
}

/** Alive and not a zombie: an exited child whose parent (often gone) has not reaped it is not running. */
export function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

/** Polls `check` until it returns true; on timeout the error names what was awaited. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  onFail?: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs / 1000}s waiting for ${what}${onFail ? `\n${onFail()}` : ""}`,
      );
    }
    await sleep(200);
  }
}

/** Whether a local server answers `GET http://127.0.0.1:<port>/readyz` with a 2xx within 2 s. */
export async function answersReadyz(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
  return res.ok;
}

export interface StartupCheck {
  /** Names what is awaited in the error. */
  readonly what: string;
  readonly check: () => Promise<boolean>;
  readonly timeoutMs: number;
}

/**
 * Waits for each check in turn while the just-started `proc` runs. Fails as soon as the process has
 * exited, or when a check times out, with the end of its log; `label` names the program.
 */
export async function untilStarted(
  proc: ManagedProcess,
  label: string,
  checks: readonly StartupCheck[],
): Promise<void> {
  const failure = (): string =>
    `${isRunning(proc.pid) ? "" : `${label} exited. `}End of ${proc.log}:\n${tail(proc.log)}`;
  for (const { what, check, timeoutMs } of checks)
    await waitFor(what, async () => !isRunning(proc.pid) || (await check()), timeoutMs, failure);
  if (!isRunning(proc.pid)) throw new Error(`${label} exited during start-up. ${failure()}`);
}
