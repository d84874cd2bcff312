// SIGTERM/SIGINT handling: the first signal starts a graceful shutdown (the returned signal aborts); a
// second one means the operator wants out now, so the process exits immediately with status 1.

export interface ShutdownSignal {
  signal: AbortSignal;
  /** Removes the process handlers (tests, or a caller that takes over signal handling). */
  dispose(): void;
}

export function shutdownOnSignals(
  signals: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"],
  exit: (code: number) => void = (code) => process.exit(code),
): ShutdownSignal {
  const ctl = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    if (ctl.signal.aborted) {
      exit(1);
      return;
    }
    ctl.abort(new Error(`received ${sig}`));
  };
  for (const s of signals) process.on(s, handler);
  return {
    signal: ctl.signal,
    dispose: () => {
      for (const s of signals) process.off(s, handler);
    },
  };
}
