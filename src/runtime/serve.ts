// The life of an HTTP server inside a Runnable: listen, say where, serve until the run's signal
// aborts, then close. Shared by the REST/dashboard server and the /metrics server.
import type { Server } from "node:http";
import type { Logger } from "pino";

/** Resolves once `signal` aborts (at once if it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    signal.addEventListener(
      "abort",
      () => {
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Listens on `port` (0: any free port), logs `serving WHAT` with the port, serves until `signal`
 * aborts, then drops every open connection — long polls (zoneOperations.wait) and live streams must
 * not hold a shutdown up — and closes the server.
 */
export async function serveUntilAborted(
  server: Server,
  port: number,
  signal: AbortSignal,
  log: Logger,
  what: string,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => {
      resolve();
    });
  });
  const address = server.address();
  log.info({ port: typeof address === "object" && address ? address.port : port }, `serving ${what}`);
  await untilAborted(signal);
  server.closeAllConnections();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
}
