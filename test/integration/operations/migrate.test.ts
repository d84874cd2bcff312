// Upgrading from the layout without hash tags: data written the old way (with the Redis commands the
// previous release ran) is moved at start-up, idempotently, and the store reads all of it afterwards:
// operations with their expiry, the listing index, requestIds and pending sets. Uses the testbed's
// single redis-server under a prefix of its own.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { migrateLegacyKeys } from "../../../src/operations/migrate.js";
import { newOperation, type OperationRef } from "../../../src/operations/model.js";
import { requestTarget } from "../../../src/operations/request-id.js";
import { RequestIdConflictError } from "../../../src/operations/scripts.js";
import { OperationStore } from "../../../src/operations/store.js";

const prefix = `migrate-${randomUUID()}:`;
const redis = new Redis(process.env.REDIS_URL ?? "");
const subscriber = new Redis(process.env.REDIS_URL ?? "");

afterAll(async () => {
  const left = await redis.keys(`${prefix}*`);
  if (left.length > 0) await redis.del(...left);
  redis.disconnect();
  subscriber.disconnect();
});

function operation(ref: OperationRef, requestId: string, done: boolean) {
  const op = newOperation({
    ref,
    id: String(Math.floor(Math.random() * 1e9)),
    operationType:
      ref.location.scope === "zones"
        ? "compute.instanceGroupManagerResizeRequests.insert"
        : "compute.regionInstanceGroupManagerResizeRequests.insert",
    locationUrl: "http://localhost/compute/v1/projects/p",
    targetLink: `http://localhost/compute/v1/projects/${ref.project}/${requestTarget(ref.location, "g", "rr")}`,
    user: "system",
    insertTime: new Date(Date.UTC(2026, 0, 1, 0, 0, ref.name.length)).toISOString(),
    requestId,
  });
  return done ? { ...op, status: "DONE" as const, progress: 100 } : op;
}

test("legacy keys are migrated once, nothing lost, and the store reads them", async () => {
  const zone = { project: "team-a", location: { scope: "zones", name: "local-a" } } as const;
  const region = { project: "team-b", location: { scope: "regions", name: "local" } } as const;
  const refs: OperationRef[] = [
    { ...zone, name: "operation-1" },
    { ...zone, name: "operation-22" },
    { ...region, name: "operation-333" },
  ];
  const ids = refs.map(() => randomUUID());
  const ops = refs.map((ref, i) => operation(ref, ids[i] ?? "", i === 0));
  // The previous release's writes, key by key.
  const loc = (ref: OperationRef) =>
    ref.location.scope === "zones" ? ref.location.name : `regions/${ref.location.name}`;
  for (const [i, ref] of refs.entries()) {
    const key = `${prefix}op:${ref.project}:${loc(ref)}:${ref.name}`;
    if (i === 0) await redis.set(key, JSON.stringify(ops[i]), "PX", 3_600_000);
    else await redis.set(key, JSON.stringify(ops[i]));
    await redis.zadd(
      `${prefix}index:${ref.project}:${loc(ref)}`,
      Date.parse(ops[i]?.insertTime ?? ""),
      ref.name,
    );
    await redis.set(
      `${prefix}request-id:${ref.project}:${ids[i] ?? ""}`,
      `${loc(ref)}/${ref.name}`,
      "PX",
      3_600_000,
    );
    if (i > 0) await redis.sadd(`${prefix}pending:${ref.project}:rr-${i}`, `${loc(ref)}/${ref.name}`);
  }

  const first = await migrateLegacyKeys(redis, prefix);
  expect(first.moved).toEqual({ op: 3, "request-id": 3, pending: 2, index: 2 });
  // A second run (another replica, a restart) finds nothing to do and changes nothing.
  expect((await migrateLegacyKeys(redis, prefix)).moved).toEqual({
    op: 0,
    "request-id": 0,
    pending: 0,
    index: 0,
  });
  expect((await redis.keys(`${prefix}*`)).every((k) => k.startsWith(`${prefix}{`))).toBe(true);

  const store = new OperationStore(redis, subscriber, { retentionMs: 3_600_000, prefix });
  expect(await store.list("team-a", zone.location)).toEqual([ops[0], ops[1]]);
  expect(await store.list("team-b", region.location)).toEqual([ops[2]]);
  for (const [i, ref] of refs.entries()) {
    expect(await store.get(ref)).toEqual(ops[i]);
    // A requestId of a release before bindings answers the call its Operation records, and only it.
    const call = {
      caller: "system",
      operationType: ops[i]?.operationType ?? "",
      target: requestTarget(ref.location, "g", "rr"),
    };
    expect(await store.getByRequestId(ref.project, ids[i] ?? "", call)).toEqual(ops[i]);
    for (const other of [
      { ...call, caller: "mallory" },
      { ...call, target: requestTarget(ref.location, "g", "other") },
    ])
      await expect(store.getByRequestId(ref.project, ids[i] ?? "", other)).rejects.toThrow(
        RequestIdConflictError,
      );
  }
  expect(await store.pending("team-a", "rr-1")).toEqual([refs[1]]);
  expect(await store.pending("team-b", "rr-2")).toEqual([refs[2]]);
  // The DONE operation keeps its expiry; the running ones still have none.
  const ttl = await redis.pttl(`${prefix}{team-a}:op:local-a:operation-1`);
  expect(ttl).toBeGreaterThan(3_500_000);
  expect(await redis.pttl(`${prefix}{team-a}:op:local-a:operation-22`)).toBe(-1);
});

test("a copy never overwrites newer data under the current key", async () => {
  const ref: OperationRef = {
    project: "team-c",
    location: { scope: "zones", name: "z" },
    name: "operation-9",
  };
  const newer = { ...operation(ref, randomUUID(), false), status: "RUNNING" as const };
  await redis.set(`${prefix}{team-c}:op:z:operation-9`, JSON.stringify(newer));
  await redis.set(`${prefix}op:team-c:z:operation-9`, JSON.stringify(operation(ref, randomUUID(), false)));
  await migrateLegacyKeys(redis, prefix);
  expect(await redis.get(`${prefix}{team-c}:op:z:operation-9`)).toBe(JSON.stringify(newer));
  expect(await redis.exists(`${prefix}op:team-c:z:operation-9`)).toBe(0);
});
