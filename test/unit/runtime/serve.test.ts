// The life of an HTTP server in a Runnable: it serves once listening, says where, and on abort drops
// open connections (a long poll must not hold a shutdown up) and closes.
import { createServer } from "node:http";
import pino from "pino";
import { serveUntilAborted, untilAborted } from "../../../src/runtime/serve.js";

test("untilAborted resolves at once for an aborted signal, and on abort otherwise", async () => {
  await untilAborted(AbortSignal.abort());
  const ctl = new AbortController();
  let done = false;
  const waiting = untilAborted(ctl.signal).then(() => (done = true));
  await Promise.resolve();
  expect(done).toBe(false);
  ctl.abort();
  await waiting;
  expect(done).toBe(true);
});

test("serves on a free port, logs it, and an abort ends a long poll and closes the server", async () => {
  const lines: { port?: number; msg?: string }[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as never) });
  // A long poll: answers never, as zoneOperations.wait may for two minutes.
  let arrived: () => void = () => undefined;
  const polled = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer(() => {
    arrived();
  });
  const ctl = new AbortController();
  const served = serveUntilAborted(server, 0, ctl.signal, log, "HTTP");
  await new Promise((resolve) => server.once("listening", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const poll = fetch(`http://127.0.0.1:${port}/wait`).then(
    () => "answered",
    () => "dropped",
  );
  await polled;
  ctl.abort();
  await served;
  expect(await poll).toBe("dropped");
  expect(server.listening).toBe(false);
  expect(lines).toContainEqual(expect.objectContaining({ port, msg: "serving HTTP" }));
});

test("a port in use fails the run instead of serving nothing", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  const address = taken.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const log = pino({ level: "silent" });
  await expect(
    serveUntilAborted(createServer(), port, new AbortController().signal, log, "HTTP"),
  ).rejects.toThrow(/EADDRINUSE/);
  await new Promise((resolve) => taken.close(resolve));
});
