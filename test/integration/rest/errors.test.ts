// Every error path of the REST API against the real API server and Redis: authentication, RBAC,
// the `use` check, namespaces, requestId idempotency, body and parameter validation, unknown routes,
// and a Redis outage (503, reconciliation going on, recovery without restart).
import { randomUUID } from "node:crypto";
import path from "node:path";
import { installApi, kubectl } from "../api/install.js";
import { startRedis, stopRedis, type RedisServer } from "../../../testbed/redis.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createRequest, createWorkers, untilState } from "../../support/resize.js";
import {
  call,
  fullAccess,
  googleError,
  serviceAccountToken,
  startRestOperator,
  type RestOperator,
} from "../../support/rest.js";

const ZONE = "local-a";
let ns: { name: string; remove: () => Promise<void> };
let other: { name: string; remove: () => Promise<void> };
let operator: RestOperator;
const processes: OperatorProcess[] = [];
const tokens: Record<string, string> = {};

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("rest-errors");
  other = await createTestNamespace("rest-other");
  await createWorkers(ns.name, "workers");
  await createGroup(ns.name, "workers", { maxSize: 10 });
  await createWorkers(other.name, "workers");
  await createGroup(other.name, "workers", {});
  tokens.full = await serviceAccountToken(ns.name, "full", fullAccess());
  tokens.none = await serviceAccountToken(ns.name, "none", []);
  tokens.noUse = await serviceAccountToken(ns.name, "no-use", [
    {
      apiGroups: ["compute.resize-operator.dev"],
      resources: ["resizerequests"],
      verbs: ["get", "list", "create", "update", "delete"],
    },
  ]);
  operator = await startRestOperator(ns.name, process.env.REDIS_URL ?? "");
  processes.push(operator.process);
});

afterAll(async () => {
  await stopAll(processes);
  await ns.remove();
  await other.remove();
});

const requests = (project = ns.name, zone = ZONE) =>
  `${operator.baseUrl}/compute/v1/projects/${project}/zones/${zone}/instanceGroupManagers/workers/resizeRequests`;

function expectError(reply: { status: number; body: unknown }, status: number, reason: string) {
  expect(reply.status).toBe(status);
  const error = googleError(reply);
  expect(error.code).toBe(status);
  expect(typeof error.message).toBe("string");
  expect(error.errors[0]).toMatchObject({ domain: "global", reason });
  return error;
}

test("no token is 401, an invalid token is 401", async () => {
  const error = expectError(await call("GET", requests()), 401, "required");
  expect(error.errors[0]).toMatchObject({ location: "Authorization", locationType: "header" });
  expectError(await call("GET", requests(), { token: "not-a-token" }), 401, "required");
});

test("a token without RBAC is 403", async () => {
  expectError(await call("GET", requests(), { token: tokens.none }), 403, "forbidden");
  expectError(
    await call("POST", requests(), { token: tokens.none, body: { name: "nope", resizeBy: 1 } }),
    403,
    "forbidden",
  );
});

test("create without use on the group is 403 and creates nothing", async () => {
  const reply = await call("POST", requests(), {
    token: tokens.noUse,
    body: { name: "no-use", resizeBy: 1 },
  });
  const error = expectError(reply, 403, "forbidden");
  expect(error.message).toContain("instancegroupmanagers/workers");
  await expect(kubectl("get", "rr", "no-use", "-n", ns.name)).rejects.toThrow(/NotFound/);
});

test("another namespace is 403; a wrong zone or unknown group is 404", async () => {
  expectError(await call("GET", requests(other.name), { token: tokens.full }), 403, "forbidden");
  expectError(await call("GET", requests(ns.name, "other-zone"), { token: tokens.full }), 404, "notFound");
  expectError(
    await call("GET", requests().replace("/workers/", "/missing/"), { token: tokens.full }),
    404,
    "notFound",
  );
  expectError(await call("GET", `${requests()}/missing`, { token: tokens.full }), 404, "notFound");
});

test("the same requestId returns the same Operation and creates one object", async () => {
  const requestId = randomUUID();
  const body = { name: "idempotent", resizeBy: 1 };
  const first = await call("POST", `${requests()}?requestId=${requestId}`, { token: tokens.full, body });
  const second = await call("POST", `${requests()}?requestId=${requestId}`, { token: tokens.full, body });
  expect(first.status).toBe(200);
  expect(second.status).toBe(200);
  const a = first.body as { name: string; clientOperationId: string };
  const b = second.body as { name: string };
  expect(b.name).toBe(a.name);
  expect(a.clientOperationId).toBe(requestId);
  const names = await kubectl("get", "rr", "-n", ns.name, "-o", "name");
  expect(names.split("\n").filter((n) => n.endsWith("/idempotent"))).toHaveLength(1);
  // Without the requestId the same body is a new call, and the name is taken.
  expectError(await call("POST", requests(), { token: tokens.full, body }), 409, "alreadyExists");
});

test("requestId must be a UUID other than the zero UUID", async () => {
  const body = { name: "zero", resizeBy: 1 };
  for (const id of ["00000000-0000-0000-0000-000000000000", "not-a-uuid"]) {
    const error = expectError(
      await call("POST", `${requests()}?requestId=${id}`, { token: tokens.full, body }),
      400,
      "invalid",
    );
    expect(error.errors[0]).toMatchObject({ location: "requestId", locationType: "parameter" });
  }
});

test("malformed JSON is 400 parseError; unknown fields and invalid values are 400 with a location", async () => {
  expectError(
    await call("POST", requests(), { token: tokens.full, body: '{"name": "x",' }),
    400,
    "parseError",
  );
  const unknown = expectError(
    await call("POST", requests(), { token: tokens.full, body: { name: "x", resizeBy: 1, color: "red" } }),
    400,
    "invalid",
  );
  expect(unknown.errors[0]).toMatchObject({ location: "color", locationType: "body" });
  const invalid = expectError(
    await call("POST", requests(), {
      token: tokens.full,
      body: { name: "x", resizeBy: 0, requestedRunDuration: { seconds: "-1" } },
    }),
    400,
    "invalid",
  );
  expect(invalid.errors.map((e) => e.location)).toEqual(
    expect.arrayContaining(["resizeBy", "requestedRunDuration.seconds"]),
  );
  const badName = expectError(
    await call("POST", requests(), { token: tokens.full, body: { name: "Not_A_Label", resizeBy: 1 } }),
    400,
    "invalid",
  );
  expect(badName.errors[0]?.location).toBe("name");
  const badParam = expectError(
    await call("GET", `${requests()}?maxResults=501`, { token: tokens.full }),
    400,
    "invalid",
  );
  expect(badParam.errors[0]).toMatchObject({ location: "maxResults", locationType: "parameter" });
  const badFilter = expectError(
    await call("GET", `${requests()}?filter=${encodeURIComponent("name = a OR name = b")}`, {
      token: tokens.full,
    }),
    400,
    "invalid",
  );
  expect(badFilter.errors[0]?.location).toBe("filter");
});

test("a body over the size limit is refused; unknown routes are 404 in the same shape", async () => {
  const big = { name: "big", resizeBy: 1, description: "x".repeat(2 * 1024 * 1024) };
  expect((await call("POST", requests(), { token: tokens.full, body: big })).status).toBe(413);
  expectError(await call("GET", `${operator.baseUrl}/compute/v1/nothing/here`), 404, "notFound");
  expectError(await call("GET", `${operator.baseUrl}/elsewhere`), 404, "notFound");
});

describe("Redis outage", () => {
  // Its own namespace, operator and redis-server, so that stopping Redis disturbs no other test.
  let outageNs: { name: string; remove: () => Promise<void> };
  let redis: RedisServer;
  let outage: RestOperator;
  let token: string;

  beforeAll(async () => {
    outageNs = await createTestNamespace("rest-outage");
    await createWorkers(outageNs.name, "workers");
    await createGroup(outageNs.name, "workers", { maxSize: 10 });
    token = await serviceAccountToken(outageNs.name, "full", fullAccess());
    redis = await startRedis({ dir: path.join(process.env.TESTBED_DIR ?? "", `redis-${outageNs.name}`) });
    outage = await startRestOperator(outageNs.name, redis.url);
    processes.push(outage.process);
  });

  afterAll(async () => {
    await stopAll([outage.process]);
    await stopRedis(redis);
    await outageNs.remove();
  });

  test("REST answers 503 while Redis is down, reconciliation continues, and it recovers by itself", async () => {
    const base = `${outage.baseUrl}/compute/v1/projects/${outageNs.name}/zones/${ZONE}`;
    const ops = `${base}/operations`;
    expect((await call("GET", ops, { token })).status).toBe(200);
    await stopRedis(redis);
    // The operator learns of the outage when its connection closes, a moment after the server is gone.
    const down = await eventually("503 during the outage", async () => {
      const reply = await call("GET", ops, { token });
      return reply.status === 503 ? reply : undefined;
    });
    expectError(down, 503, "backendError");
    expectError(
      await call("POST", `${base}/instanceGroupManagers/workers/resizeRequests`, {
        token,
        body: { name: "during-outage", resizeBy: 1 },
      }),
      503,
      "backendError",
    );
    await expect(kubectl("get", "rr", "during-outage", "-n", outageNs.name)).rejects.toThrow(/NotFound/);
    expect((await fetch(`${outage.baseUrl}/readyz`)).status).toBe(503);
    // Requests made with kubectl are still reconciled.
    await createRequest(outageNs.name, "kubectl-during-outage", {
      instanceGroupManager: "workers",
      resizeBy: 1,
    });
    await untilState(outageNs.name, "kubectl-during-outage", ["SUCCEEDED"]);

    redis = await startRedis({
      dir: path.join(process.env.TESTBED_DIR ?? "", `redis-${outageNs.name}`),
      port: redis.port,
    });
    await eventually("REST back", async () =>
      (await call("GET", ops, { token })).status === 200 ? true : undefined,
    );
    expect((await fetch(`${outage.baseUrl}/readyz`)).status).toBe(200);
    // The request created during the outage gets its insert Operation once Redis is back.
    const op = await eventually("insert operation of the kubectl request", async () => {
      const list = (await call("GET", ops, { token })).body as {
        items?: { targetLink: string; status: string; user: string; operationType: string }[];
      };
      return list.items?.find((o) => o.targetLink.endsWith("/kubectl-during-outage") && o.status === "DONE");
    });
    expect(op).toMatchObject({
      user: "system",
      operationType: "compute.instanceGroupManagerResizeRequests.insert",
    });
  });
});

// Finding: one batch of parts with distinct tokens cost a TokenReview per part (and pushed every
// caller's reviews out of the cache). Now it is refused before any part is authenticated.
test("a batch carrying more distinct credentials than allowed is refused before any part runs", async () => {
  const boundary = "budget";
  const part = (i: number) =>
    `--${boundary}\r\nContent-Type: application/http\r\n\r\nGET /compute/v1/projects/${ns.name}/zones/${ZONE}/operations HTTP/1.1\r\nAuthorization: Bearer not-a-token-${i}\r\n\r\n`;
  const body = `${Array.from({ length: 9 }, (_, i) => part(i)).join("")}--${boundary}--\r\n`;
  const res = await fetch(`${operator.baseUrl}/batch/compute/v1`, {
    method: "POST",
    headers: { "Content-Type": `multipart/mixed; boundary=${boundary}` },
    body,
  });
  expect(res.status).toBe(400);
  const error = (await res.json()) as { error: { message: string } };
  expect(error.error.message).toContain("at most 8 distinct credentials");
  // Eight are served, each part answered on its own (401: none of these tokens is valid).
  const eight = `${Array.from({ length: 8 }, (_, i) => part(i)).join("")}--${boundary}--\r\n`;
  const served = await fetch(`${operator.baseUrl}/batch/compute/v1`, {
    method: "POST",
    headers: { "Content-Type": `multipart/mixed; boundary=${boundary}` },
    body: eight,
  });
  expect(served.status).toBe(200);
  expect((await served.text()).match(/HTTP\/1\.1 401/g)).toHaveLength(8);
});
