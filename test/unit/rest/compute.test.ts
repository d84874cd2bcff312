// The compute routes' edges on the app's Fastify instance, on an in-process server: what reaches a
// route (then the caller's credentials are refused, 401) and what is refused before it, always with
// Google's error body, never one of Fastify's own.
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { createApp } from "../../../src/rest/app.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import { UnauthenticatedError } from "../../../src/rest/errors.js";
import { ROUTES } from "../../../src/rest/routes.js";

const OP = "/compute/v1/projects/p/zones/z/operations/op-1";

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

let origin: { host: string; port: number };
let close: () => void;

beforeAll(async () => {
  const deps = {
    publicUrl: "http://localhost:8080",
    authenticator: { authenticate: () => Promise.reject(new UnauthenticatedError("no")) },
  } as unknown as RestDeps;
  const app = createApp({
    log: pino({ level: "silent" }),
    notReady: () => [],
    rest: { deps, routes: ROUTES, maxBodyBytes: 64, discovery: { endpoints: [] } },
  });
  const { server } = app;
  await app.fastify.ready();
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = { host: "127.0.0.1", port: (server.address() as AddressInfo).port };
  close = () => {
    server.closeAllConnections();
    server.close();
  };
});
afterAll(() => {
  close();
});

/** A raw request, so that the target is sent as written (absolute-form included). */
function send(method: string, path: string, body?: string, type = "application/json"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { ...origin, method, path, headers: body === undefined ? {} : { "content-type": type } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body: text });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const reason = (answer: Answer): unknown =>
  (JSON.parse(answer.body) as { error: { errors: { reason: string }[] } }).error.errors[0]?.reason;

test.each([
  ["a route", "GET", OP],
  ["a route, any case, one trailing slash", "GET", `${OP.toUpperCase().replace("OP-1", "op-1")}/`],
  ["an absolute-form target", "GET", `http://example.test${OP}`],
  ["HEAD, by the GET route", "HEAD", OP],
  ["a path value longer than the router's default limit", "GET", OP.replace("op-1", "o".repeat(200))],
])("%s reaches the route", async (_what, method, path) => {
  const answer = await send(method, path);
  expect(answer.status).toBe(401);
  expect(answer.type).toBe("application/json; charset=utf-8");
  if (method !== "HEAD") expect(reason(answer)).toBe("required");
});

test.each([
  ["an unknown method", "PATCH", OP, undefined, 404, "notFound"],
  ["an unknown path", "GET", "/compute/v1/projects/p", undefined, 404, "notFound"],
  ["a standard parameter given twice", "GET", `${OP}?alt=json&alt=json`, undefined, 400, "invalidParameter"],
  ["JSONP", "GET", `${OP}?callback=f`, undefined, 400, "invalidParameter"],
  ["a malformed escape", "GET", `${OP}%ff`, undefined, 400, "invalid"],
  ["a body that is not JSON", "POST", `${OP}/wait`, "{", 400, "parseError"],
  ["a body over the limit", "POST", `${OP}/wait`, `{"a":"${"x".repeat(100)}"}`, 413, "invalid"],
  ["a JSON body that is neither object nor array", "POST", `${OP}/wait`, "1", 400, "parseError"],
])("%s is refused before the route", async (_what, method, path, body, status, why) => {
  const answer = await send(method, path, body);
  expect(answer.status).toBe(status);
  expect(reason(answer)).toBe(why);
});

test("the 404 names the method and the path", async () => {
  const answer = await send("PATCH", `${OP}?x=1`);
  expect(JSON.parse(answer.body)).toMatchObject({
    error: { message: `The requested URL PATCH ${OP} was not found.` },
  });
});

test("other paths: the probes, and the Google 404 of an unknown path", async () => {
  expect((await send("GET", "/healthz")).body).toBe("ok");
  const unknown = await send("GET", "/nowhere");
  expect(unknown.status).toBe(404);
  expect(reason(unknown)).toBe("notFound");
});
