// What a failed call logs: the error itself, with its stack and cause, while the client gets only the
// Google error body.
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { StoreUnavailableError } from "../../../src/operations/store.js";
import { googleErrors } from "../../../src/rest/answer-error.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { captureLog, loggedError } from "../../support/log-capture.js";

/** An app whose one route runs `route`, with the REST error handler answering on `log`. */
async function serve(
  log: ReturnType<typeof captureLog>["log"],
  route: (req: FastifyRequest) => Promise<unknown>,
): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  app.decorateRequest("call", null);
  app.decorateRequest("output", null);
  app.setErrorHandler(googleErrors(log));
  app.get("/", route);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/` };
}

async function answer(
  err: unknown,
): Promise<{ status: number; body: string; lines: ReturnType<typeof captureLog>["lines"] }> {
  const { log, lines } = captureLog();
  const { app, url } = await serve(log, () => {
    throw err;
  });
  try {
    const res = await fetch(url);
    return { status: res.status, body: await res.text(), lines };
  } finally {
    await app.close();
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
  const { app, url } = await serve(
    log,
    // The handler's wait outlives the client: it fails only once the connection has closed.
    (req) =>
      new Promise((_resolve, reject) => {
        const { socket } = req.raw;
        socket.once("close", () => {
          reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
          setImmediate(settled);
        });
        socket.destroy();
      }),
  );
  try {
    await expect(fetch(url)).rejects.toThrow();
    await done;
    expect(lines.filter((l) => Number(l.level) >= 30)).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual(["the client went away before the answer"]);
  } finally {
    await app.close();
  }
});
