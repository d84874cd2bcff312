// Faults 3: the operator's redis-server (its own, with AOF persistence) is stopped mid-run and started
// again on the same port and data folder. During the outage REST answers 503 with the Google error
// body and reconciliation goes on; afterwards no Operation is lost — every Operation returned before
// the outage is still there and reaches DONE, a replayed requestId still returns its first Operation,
// and every request (REST or kubectl, before or during the outage) has exactly one insert Operation.
import { randomUUID } from "node:crypto";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startRedis, stopRedis, type RedisServer } from "../../testbed/redis.js";
import { eventually } from "../support/kube.js";
import { reliabilitySuite } from "../support/reliability-suite.js";
import { seededRandom, settleAndCheck } from "../support/reliability.js";
import { createRequest } from "../support/resize.js";
import {
  call,
  fullAccess,
  googleError,
  serviceAccountToken,
  startRestOperator,
  type RawReply,
} from "../support/rest.js";

const GROUPS = 5;
const BEFORE = 20;
const DURING = 5;
const ZONE = "local-a";

interface Operation {
  readonly name: string;
  readonly status: string;
  readonly targetLink: string;
  readonly operationType: string;
  readonly error?: unknown;
}

const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const random = seededRandom(seed);
const servers: RedisServer[] = [];
const suite = reliabilitySuite({
  teardown: () => Promise.all(servers.map((s) => stopRedis(s))),
});

function expect503(reply: RawReply): void {
  expect(reply.status).toBe(503);
  const error = googleError(reply);
  expect(error.code).toBe(503);
  expect(error.errors[0]).toMatchObject({ domain: "global", reason: "backendError" });
}

async function round(index: number): Promise<Record<string, number>> {
  const started = Date.now();
  const ns = await suite.namespace(`rel-redis-${index}`, GROUPS);
  const { groups } = ns;
  const token = await serviceAccountToken(ns.name, "client", fullAccess());
  const dir = path.join(process.env.TESTBED_DIR ?? "", `redis-${ns.name}`);
  let redis = await startRedis({ dir, appendOnly: true });
  servers.push(redis);
  const rest = await startRestOperator(ns.name, redis.url, ["--concurrency=5"]);
  suite.track(rest.process);
  const zone = `${rest.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}`;
  const insertUrl = (group: string, requestId: string) =>
    `${zone}/instanceGroupManagers/${group}/resizeRequests?requestId=${requestId}`;

  // REST inserts, each with a requestId; their Operations are what must survive.
  const inserted: { name: string; group: string; requestId: string; operation: string }[] = [];
  await Promise.all(
    Array.from({ length: BEFORE }, async (_, i) => {
      const group = groups[i % GROUPS] ?? "g0";
      const requestId = randomUUID();
      const name = `rest-${i}`;
      const reply = await call("POST", insertUrl(group, requestId), {
        token,
        body: { name, resizeBy: 1 + Math.floor(random() * 2) },
      });
      expect(reply.status).toBe(200);
      inserted.push({ name, group, requestId, operation: (reply.body as Operation).name });
    }),
  );
  await sleep(random() * 2_000);

  await stopRedis(redis);
  const outageStart = Date.now();
  const down = await eventually("503 during the outage", async () => {
    const reply = await call("GET", `${zone}/operations`, { token });
    return reply.status === 503 ? reply : undefined;
  });
  expect503(down);
  expect503(await call("GET", `${zone}/operations/${inserted[0]?.operation ?? ""}`, { token }));
  expect503(
    await call("POST", insertUrl("g0", randomUUID()), { token, body: { name: "refused", resizeBy: 1 } }),
  );
  expect((await fetch(`${rest.baseUrl}/readyz`)).status).toBe(503);
  // kubectl users go on; their insert Operations are written once Redis is back.
  for (let i = 0; i < DURING; i++)
    await createRequest(ns.name, `kubectl-${i}`, { instanceGroupManager: groups[i % GROUPS], resizeBy: 1 });
  await sleep(1_000);
  expect(rest.process.exited()).toBe(false);

  redis = await startRedis({ dir, port: redis.port, appendOnly: true });
  servers.push(redis);
  await eventually("REST back", async () =>
    (await call("GET", `${zone}/operations`, { token })).status === 200 ? true : undefined,
  );
  const outageMs = Date.now() - outageStart;

  await settleAndCheck(ns.name, groups, BEFORE + DURING, 120_000);
  // Every Operation returned before the outage still exists and is DONE without error.
  for (const { operation } of inserted) {
    const op = await eventually(`operation ${operation} DONE`, async () => {
      const reply = await call("GET", `${zone}/operations/${operation}`, { token });
      expect(reply.status).toBe(200);
      const body = reply.body as Operation;
      return body.status === "DONE" ? body : undefined;
    });
    expect(op.error).toBeUndefined();
  }
  // A replayed requestId still returns the first Operation (the idempotency record survived too).
  for (const { group, requestId, name, operation } of inserted.slice(0, 3)) {
    const replay = await call("POST", insertUrl(group, requestId), { token, body: { name, resizeBy: 1 } });
    expect(replay.status).toBe(200);
    expect((replay.body as Operation).name).toBe(operation);
  }
  // Exactly one insert Operation per request, all DONE; the refused insert left nothing behind.
  const ops = await eventually("one DONE insert Operation per request", async () => {
    const reply = await call("GET", `${zone}/operations`, { token });
    const items = (reply.body as { items?: Operation[] }).items ?? [];
    const inserts = items.filter((o) => o.operationType.endsWith(".insert"));
    return inserts.length === BEFORE + DURING && inserts.every((o) => o.status === "DONE")
      ? inserts
      : undefined;
  });
  const targets = ops.map((o) => o.targetLink.split("/").pop());
  expect(new Set(targets).size).toBe(BEFORE + DURING);
  expect(targets).not.toContain("refused");
  expect(rest.process.exited()).toBe(false);
  await rest.process.stop();
  await stopRedis(redis);
  return { ms: Date.now() - started, outageMs, operations: ops.length };
}

suite.soak(
  `a Redis restart (AOF) loses no Operation; REST is 503 during the outage and recovers (seed ${seed})`,
  { name: "redis", boundedMs: 240_000, fixed: { seed, requests: BEFORE + DURING } },
  round,
);
