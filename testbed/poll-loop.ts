// TEST INFRASTRUCTURE: the loop the testbed's stand-in controllers run (node-pool-controller.ts for node
// pools, kwok-machines.ts for Cluster API's providers). They poll rather than watch: a poll has no
// watch to re-establish after an API-server restart, which the reliability tests cause and which
// client-go's reflectors answered with backoffs of up to 30 s (docs/testbed.md).
import { setTimeout as sleep } from "node:timers/promises";
import * as k8s from "@kubernetes/client-node";

/** A pass that takes longer (an API server that accepted a connection and went away) is given up. */
const PASS_TIMEOUT_MS = 15_000;

/** One timestamped line on stdout, which the testbed sends to the process's log. */
export const say = (line: string): void => {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
};

export const messageOf = (err: unknown): string =>
  err instanceof k8s.ApiException
    ? `${err.code} ${(err.body as { message?: string } | undefined)?.message ?? String(err.body)}`
    : err instanceof Error
      ? err.message
      : String(err);

/** The API server's answer `code` (404 of a delete, 409 of a create) means the work is already done. */
export const unless =
  (code: number) =>
  (err: unknown): false => {
    if (err instanceof k8s.ApiException && err.code === code) return false;
    throw err;
  };

/** Logs a problem when it first appears, not once a pass for as long as it lasts. */
export type Report = (line: string) => void;

/**
 * Runs `pass` every `intervalMs` for ever, printing `readyLine` after the first pass that succeeds
 * (what the testbed waits for) and exiting on SIGTERM or SIGINT.
 */
export async function pollForever(
  intervalMs: number,
  readyLine: string,
  pass: (report: Report) => Promise<void>,
): Promise<never> {
  // `current` collects this pass's problems, `previous` holds the last pass's.
  let previous = new Set<string>();
  let current = new Set<string>();
  const report: Report = (line) => {
    current.add(line);
    if (!previous.has(line)) say(line);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      say(`stopping (${signal})`);
      process.exit(0);
    });
  }
  say(`started (pid ${process.pid}, every ${intervalMs} ms)`);
  let ready = false;
  for (;;) {
    const started = Date.now();
    current = new Set();
    const timer = new AbortController();
    try {
      await Promise.race([
        pass(report),
        sleep(PASS_TIMEOUT_MS, undefined, { signal: timer.signal }).then(() => {
          throw new Error(`a pass took over ${PASS_TIMEOUT_MS / 1000}s`);
        }),
      ]);
      if (!ready) say(readyLine);
      ready = true;
    } catch (err) {
      report(`pass failed: ${messageOf(err)}`);
    } finally {
      timer.abort();
    }
    previous = current;
    await sleep(Math.max(0, intervalMs - (Date.now() - started)));
  }
}
