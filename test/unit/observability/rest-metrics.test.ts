// The REST metrics hook on the app's real Fastify instance and an in-process server, wired as the
// operator wires it: a call is labelled by the route that served it (from the call's record, whatever
// the case of its path), a call no route serves is "other", and a client that leaves before its
// answer is a 499, a call with a body included (Fastify's onRequestAbort hook misses that one).
import { request, type ClientRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { DOMAIN_METRIC } from "../../../src/observability/metrics.js";
import { restMetrics } from "../../../src/observability/rest.js";
import { createApp, REST_BASE } from "../../../src/rest/app.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import { UnauthenticatedError } from "../../../src/rest/errors.js";
import { ROUTES } from "../../../src/rest/routes.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";

const OPERATION = `${REST_BASE}/projects/p/zones/z/operations/op-1`;
const RESIZE_REQUESTS = `${REST_BASE}/projects/p/zones/z/instanceGroupManagers/g/resizeRequests`;
/** How long authentication takes before it refuses the caller: a client can leave meanwhile. */
const AUTHENTICATION_MS = 300;

const metrics = new InMemoryMetrics();
let origin: { host: string; port: number };
let close: () => void;
/** Calls whose authentication has started, so that a client leaves only once its call is served. */
let authenticating = 0;

beforeAll(async () => {
  const deps = {
    publicUrl: "http://localhost:8080",
    authenticator: {
      authenticate: async () => {
        authenticating += 1;
        await new Promise((resolve) => setTimeout(resolve, AUTHENTICATION_MS));
        throw new UnauthenticatedError("no");
      },
    },
  } as unknown as RestDeps;
  const app = createApp({
    log: pino({ level: "silent" }),
    notReady: () => [],
    rest: { deps, routes: ROUTES, maxBodyBytes: 1024, discovery: { endpoints: [] } },
  });
  app.fastify.addHook("onRequest", restMetrics(metrics, ROUTES, REST_BASE));
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

/** Sends a call; resolves with its status, or with 0 once `leave` has made the client go away. */
function send(
  method: string,
  path: string,
  body?: string,
  leave?: (req: ClientRequest) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { ...origin, method, path, headers: body === undefined ? {} : { "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => {
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on("error", (err) => {
      if (leave) resolve(0);
      else reject(err);
    });
    req.end(body);
    leave?.(req);
  });
}

/** Whether `done` holds within five seconds (a loaded machine answers late). */
const within = async (done: () => boolean): Promise<boolean> => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return done();
};

const counted = (method: string, code: string): unknown =>
  metrics.get(DOMAIN_METRIC.restRequests, { method, code });

test("a call is counted by the route that served it, whatever the case of its path below the base", async () => {
  expect(await send("GET", OPERATION)).toBe(401);
  // The router ignores case; matching the path again would not, so only the call's record names it.
  expect(await send("GET", OPERATION.replace("projects/p/zones", "PROJECTS/p/ZONES"))).toBe(401);
  // The server records on its response's 'finish', which may follow the client's reading the answer.
  expect(await within(() => counted("compute.zoneOperations.get", "401") === 2)).toBe(true);
  expect(metrics.get(DOMAIN_METRIC.restDuration, { method: "compute.zoneOperations.get" })).toMatchObject({
    count: 2,
  });
});

test("a call no route serves is counted as other, and a probe not at all", async () => {
  expect(await send("GET", `${REST_BASE}/projects/p/nothing`)).toBe(404);
  expect(await send("GET", "/healthz")).toBe(200);
  expect(await within(() => counted("other", "404") === 1)).toBe(true);
  expect(metrics.snapshot().filter((s) => JSON.stringify(s.labels).includes("healthz"))).toEqual([]);
});

test.each([
  ["GET, no body", "GET", OPERATION, undefined, "compute.zoneOperations.get"],
  ["POST with a body", "POST", RESIZE_REQUESTS, "{}", "compute.instanceGroupManagerResizeRequests.insert"],
])("a client that leaves before its answer is a 499 (%s)", async (_what, method, path, body, id) => {
  const started = authenticating;
  const leave = (req: ClientRequest): void => {
    void within(() => authenticating > started).then(() => req.destroy());
  };
  const answered = (): unknown[] =>
    metrics
      .snapshot()
      .filter(
        (s) => s.name === DOMAIN_METRIC.restRequests && s.labels.method === id && s.labels.code !== "499",
      );
  const before = answered();
  expect(await send(method, path, body, leave)).toBe(0);
  expect(await within(() => counted(id, "499") === 1)).toBe(true);
  // The refusal that follows once the client is gone is not counted again.
  await new Promise((resolve) => setTimeout(resolve, AUTHENTICATION_MS + 100));
  expect(counted(id, "499")).toBe(1);
  expect(answered()).toEqual(before);
});
