// Once a command has finished (the operator stopped), nothing may keep the process, and so a pod's
// termination, waiting. A client library can leave a timer armed after it was closed — ioredis's
// Cluster client arms its slot-refresh timer again when a refresh in flight at disconnect ends — and
// then the event loop never drains: the operator logged "stopped" and ran on until SIGKILL. The timer
// set here is unref'd, so a process whose loop drains exits at once without it; one that does not is
// told what still runs and exits with the code already set.

export function exitWhenDone(
  graceMs: number,
  exit: () => void = () => process.exit(),
  report: (line: string) => void = (line) => process.stderr.write(line),
): void {
  setTimeout(() => {
    const running = process.getActiveResourcesInfo().join(", ");
    report(`resize-operator: still running ${graceMs} ms after it was done (${running}); exiting\n`);
    exit();
  }, graceMs).unref();
}
