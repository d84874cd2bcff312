// What a failed call logs: the error itself, with its stack and cause, while the client gets only the
// Google error body.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StoreUnavailableError } from "../../../src/operations/store.js";
import { answerError } from "../../../src/rest/answer-error.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { captureLog, loggedError } from "../../support/log-capture.js";

async function answer(
  err: unknown,
): Promise<{ status: number; body: string; lines: ReturnType<typeof captureLog>["lines"] }> {
  const { log, lines } = captureLog();
  const server = createServer((_req, res) => {
    answerError(res, err, log);
  }).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: res.status, body: await res.text(), lines };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

test("an internal error is logged with its stack and cause, and the client sees only 'Internal error.'", async () => {
  const { status, body, lines } = await answer(
    new Error("handler bug", { cause: new TypeError("x is undefined") }),
  );
  expect(status).toBe(500);
  const err = loggedError(lines, "internal error");
  expect(err.stack).toContain("Error: handler bug\n    at ");
  expect(err.stack).toContain("caused by: TypeError: x is undefined\n    at ");
  expect(body).not.toMatch(/handler bug|x is undefined|\bat /);
});

test("a 5xx from a backend is logged with the error's stack and cause", async () => {
  const { status, body, lines } = await answer(new StoreUnavailableError(new Error("connect ECONNREFUSED")));
  expect(status).toBe(503);
  const err = loggedError(lines, "request failed");
  expect(err.type).toBe("StoreUnavailableError");
  expect(err.stack).toContain(
    "StoreUnavailableError: operations store unavailable: connect ECONNREFUSED\n    at ",
  );
  expect(err.stack).toContain("caused by: Error: connect ECONNREFUSED\n    at ");
  expect(body).not.toMatch(/ECONNREFUSED/);
});

test("a Kubernetes 5xx is logged with its stack and status", async () => {
  const { status, lines } = await answer(new ApiError(500, "InternalError", "etcd timeout"));
  expect(status).toBe(503);
  const err = loggedError(lines, "request failed");
  expect(err).toMatchObject({ type: "ApiError", status: 500, reason: "InternalError" });
  expect(err.stack).toContain("ApiError: etcd timeout\n    at ");
});

test("a client gone before the answer: nothing is sent and nothing is logged as a failure", async () => {
  const { log, lines } = captureLog();
  let settled: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (settled = resolve));
  const server = createServer((req, res) => {
    // The handler's wait outlives the client: answered only once the connection has closed.
    res.once("close", () => {
      answerError(res, Object.assign(new Error("aborted"), { name: "AbortError" }), log);
      settled();
    });
    req.socket.destroy();
  }).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    await expect(fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).rejects.toThrow();
    await done;
    expect(lines.filter((l) => Number(l.level) >= 30)).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual(["the client went away before the answer"]);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
