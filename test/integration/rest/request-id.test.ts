// requestIds are bound to the call that first used them, against the real operator, API server
// (TokenReview tokens of two ServiceAccounts of one project) and Redis: the same user's same call
// replayed gets the same Operation; the requestId replayed by another user, with another method or on
// another resize request is 400 `invalid` at the parameter, and nothing changes — in particular another
// user can no longer complete, and so re-target, a first call's PENDING Operation.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { kubectl, installApi } from "../api/install.js";
import { numericId } from "../../../src/api/identity.js";
import type { Operation } from "../../../src/api/operation.js";
import { OperationKeys, member } from "../../../src/operations/keys.js";
import {
  newOperation,
  newOperationId,
  newOperationName,
  type OperationRef,
} from "../../../src/operations/model.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { cancelRequest, createGroup, createWorkers, getRequest, untilState } from "../../support/resize.js";
import * as rest from "../../support/rest.js";

const ZONE = "local-a";
const redis = new Redis(process.env.REDIS_URL ?? "");
let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: rest.RestOperator;
const tokens: Record<"alice" | "bob", string> = { alice: "", bob: "" };

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("rest-request-id");
  // Pods that fit no node, and no autoscaler saying it will not add one: requests stay active (cancellable).
  await createWorkers(ns.name, "workers", 100);
  await createGroup(ns.name, "workers", { maxSize: 50, provisioningTimeout: "1h" });
  tokens.alice = await rest.serviceAccountToken(ns.name, "alice", rest.fullAccess());
  tokens.bob = await rest.serviceAccountToken(ns.name, "bob", rest.fullAccess());
  operator = await rest.startRestOperator(ns.name, process.env.REDIS_URL ?? "");
});

afterAll(async () => {
  await stopAll([operator.process]);
  await ns.remove();
  redis.disconnect();
});

const requests = () =>
  `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}/instanceGroupManagers/workers/resizeRequests`;
const insert = (who: "alice" | "bob", requestId: string, name: string) =>
  rest.call("POST", `${requests()}?requestId=${requestId}`, {
    token: tokens[who],
    body: { name, resizeBy: 1 },
  });
const cancel = (who: "alice" | "bob", requestId: string, name: string) =>
  rest.call("POST", `${requests()}/${name}/cancel?requestId=${requestId}`, { token: tokens[who] });
const operation = async (name: string): Promise<Operation> => {
  const reply = await rest.call(
    "GET",
    `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}/operations/${name}`,
    { token: tokens.alice },
  );
  expect(reply.status).toBe(200);
  return reply.body as Operation;
};
const exists = async (name: string): Promise<boolean> =>
  (await kubectl("get", "rr", "-n", ns.name, "-o", "name")).split("\n").some((n) => n.endsWith(`/${name}`));

function expectRefused(reply: rest.RawReply, requestId: string): void {
  expect(reply.status).toBe(400);
  const error = rest.googleError(reply);
  expect(error.message).toContain(`The requestId '${requestId}' was already used for another call`);
  expect(error.errors[0]).toMatchObject({
    domain: "global",
    reason: "invalid",
    location: "requestId",
    locationType: "parameter",
  });
}

test("the same user's same call replayed gets the same Operation", async () => {
  const [first, again] = [randomUUID(), randomUUID()];
  const a = await insert("alice", first, "same-1");
  const b = await insert("alice", first, "same-1");
  expect(a.status).toBe(200);
  expect((b.body as Operation).name).toBe((a.body as Operation).name);
  const c = await cancel("alice", again, "same-1");
  const d = await cancel("alice", again, "same-1");
  expect(c.status).toBe(200);
  expect((d.body as Operation).name).toBe((c.body as Operation).name);
});

test("another user replaying a requestId is refused, gets nothing of the first call, and changes nothing", async () => {
  const requestId = randomUUID();
  const first = (await insert("alice", requestId, "alice-1")).body as Operation;
  const before = await operation(first.name);
  expectRefused(await insert("bob", requestId, "bob-1"), requestId);
  // The very same body, by another user, is no replay either.
  expectRefused(await insert("bob", requestId, "alice-1"), requestId);
  expect(await exists("bob-1")).toBe(false);
  const after = await operation(first.name);
  expect(after).toMatchObject({
    user: before.user,
    targetLink: before.targetLink,
    targetId: before.targetId,
  });
  // A cancel's requestId likewise (the replay of a cancel is answered before the request is read).
  const cancelId = randomUUID();
  expect((await cancel("alice", cancelId, "alice-1")).status).toBe(200);
  expectRefused(await cancel("bob", cancelId, "alice-1"), cancelId);
});

test("the requestId of one method or resize request is refused for another, which is not carried out", async () => {
  const requestId = randomUUID();
  expect((await insert("alice", requestId, "method-1")).status).toBe(200);
  expectRefused(await cancel("alice", requestId, "method-1"), requestId);
  expect((await getRequest(ns.name, "method-1")).spec.cancel).toBe(false);
  expectRefused(await insert("alice", requestId, "method-2"), requestId);
  expect(await exists("method-2")).toBe(false);
});

test("another user cannot complete, and so re-target, a first call's PENDING Operation", async () => {
  // Alice's insert was recorded and then cut short before its request was created (a failover), as an
  // earlier release stored it: the requestId names the Operation only.
  const requestId = randomUUID();
  const ref: OperationRef = {
    project: ns.name,
    location: { scope: "zones", name: ZONE },
    name: newOperationName(Date.now()),
  };
  const location = `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}`;
  const pending = newOperation({
    ref,
    id: newOperationId(),
    operationType: "compute.instanceGroupManagerResizeRequests.insert",
    locationUrl: location,
    targetLink: `${location}/instanceGroupManagers/workers/resizeRequests/pending-1`,
    user: `system:serviceaccount:${ns.name}:alice`,
    insertTime: new Date().toISOString(),
    requestId,
  });
  const keys = new OperationKeys();
  await redis.set(keys.op(ref), JSON.stringify(pending));
  await redis.zadd(keys.index(ns.name, ref.location), Date.parse(pending.insertTime), ref.name);
  await redis.set(keys.requestId(ns.name, requestId), member(ref), "PX", 3_600_000);

  expectRefused(await insert("bob", requestId, "bob-pending"), requestId);
  expect(await exists("bob-pending")).toBe(false);
  expect(await operation(ref.name)).toMatchObject({ status: "PENDING", targetLink: pending.targetLink });
  expect((await operation(ref.name)).targetId).toBeUndefined();

  // Alice's own replay completes her call: her request is created, her Operation runs.
  const replay = await insert("alice", requestId, "pending-1");
  expect(replay.status).toBe(200);
  expect((replay.body as Operation).name).toBe(ref.name);
  expect(await exists("pending-1")).toBe(true);
});

test("an insert's Operation is advanced only by its own request, not by another incarnation of the name", async () => {
  // docs/reliability.md V4 and V3. Alice's insert was recorded (PENDING, no targetId, pending for its
  // name) and cut short before creating its request.
  const requestId = randomUUID();
  const name = "incarnation-1";
  const ref: OperationRef = {
    project: ns.name,
    location: { scope: "zones", name: ZONE },
    name: newOperationName(Date.now()),
  };
  const location = `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}`;
  const pending = newOperation({
    ref,
    id: newOperationId(),
    operationType: "compute.instanceGroupManagerResizeRequests.insert",
    locationUrl: location,
    targetLink: `${location}/instanceGroupManagers/workers/resizeRequests/${name}`,
    user: `system:serviceaccount:${ns.name}:alice`,
    insertTime: new Date().toISOString(),
    requestId,
  });
  const keys = new OperationKeys();
  await redis.set(keys.op(ref), JSON.stringify(pending));
  await redis.zadd(keys.index(ns.name, ref.location), Date.parse(pending.insertTime), ref.name);
  await redis.set(keys.requestId(ns.name, requestId), member(ref), "PX", 3_600_000);
  await redis.sadd(keys.pending(ns.name, name), member(ref));

  // V4: Bob's insert (another requestId) creates the name; the controller follows his request, not
  // Alice's Operation, and Alice's replay is refused as the name exists instead of acknowledged.
  const bob = await insert("bob", randomUUID(), name);
  expect(bob.status).toBe(200);
  const bobs = (bob.body as Operation).name;
  await eventually("Bob's insert Operation advanced by the controller", async () =>
    (await operation(bobs)).statusMessage !== undefined ? true : undefined,
  );
  expect(await operation(ref.name)).toMatchObject({ status: "PENDING" });
  expect((await operation(ref.name)).targetId).toBeUndefined();

  // V3: the deletion of Bob's request does not finish Alice's Operation either.
  await cancelRequest(ns.name, name);
  await untilState(ns.name, name, ["CANCELLED"]);
  const removed = await rest.call("DELETE", `${requests()}/${name}`, { token: tokens.bob });
  expect(removed.status).toBe(200);
  await eventually("Bob's request gone", async () => ((await exists(name)) ? undefined : true));
  await eventually("Bob's delete Operation DONE", async () =>
    (await operation((removed.body as Operation).name)).status === "DONE" ? true : undefined,
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await operation(ref.name)).toMatchObject({ status: "PENDING" });

  // Alice's replay now creates her own request, and her Operation follows it.
  const replay = await insert("alice", requestId, name);
  expect(replay.status).toBe(200);
  expect(replay.body as Operation).toMatchObject({ name: ref.name, status: "RUNNING" });
  const mine = await getRequest(ns.name, name);
  expect((replay.body as Operation).targetId).toBe(numericId(mine.metadata.uid ?? ""));
});

/** Alice's insert of `name` with `requestId` as recorded before its create: PENDING, bound, in flight. */
async function seedPendingInsert(requestId: string, name: string): Promise<() => Promise<void>> {
  const ref: OperationRef = {
    project: ns.name,
    location: { scope: "zones", name: ZONE },
    name: newOperationName(Date.now()),
  };
  const location = `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}`;
  const pending = newOperation({
    ref,
    id: newOperationId(),
    operationType: "compute.instanceGroupManagerResizeRequests.insert",
    locationUrl: location,
    targetLink: `${location}/instanceGroupManagers/workers/resizeRequests/${name}`,
    user: `system:serviceaccount:${ns.name}:alice`,
    insertTime: new Date().toISOString(),
    requestId,
  });
  const keys = new OperationKeys();
  await redis.set(keys.op(ref), JSON.stringify(pending));
  await redis.zadd(keys.index(ns.name, ref.location), Date.parse(pending.insertTime), ref.name);
  await redis.set(keys.requestId(ns.name, requestId), member(ref), "PX", 3_600_000);
  // The cluster refuses the create (the name exists): the insert forgets its Operation and requestId.
  return async () => {
    await redis.del(keys.op(ref), keys.requestId(ns.name, requestId));
    await redis.zrem(keys.index(ns.name, ref.location), ref.name);
  };
}

test("a call whose requestId is bound to a call in flight that is then refused is carried out, not refused", async () => {
  // docs/reliability.md V1: while the refused insert ran, its requestId was seen bound.
  const name = "in-flight-1";
  expect((await insert("alice", randomUUID(), name)).status).toBe(200);
  const viaCancel = randomUUID();
  const refuse = await seedPendingInsert(viaCancel, name);
  const cancelling = cancel("alice", viaCancel, name);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await refuse();
  expect((await cancelling).status).toBe(200);
  expect((await getRequest(ns.name, name)).spec.cancel).toBe(true);

  const viaInsert = randomUUID();
  const refuseAgain = await seedPendingInsert(viaInsert, name);
  const inserting = insert("alice", viaInsert, "in-flight-2");
  await new Promise((resolve) => setTimeout(resolve, 300));
  await refuseAgain();
  expect((await inserting).status).toBe(200);
  expect(await exists("in-flight-2")).toBe(true);
});

test("an insert retried while its first try is refused is processed afresh, not acknowledged with the first try's Operation", async () => {
  // Found with -concurrent-replays: the retry re-created the request with the first try's PENDING
  // Operation and answered 200 with it; the first try, refused by the name's previous incarnation,
  // then removed that Operation (404 on wait).
  const name = "in-flight-3";
  const requestId = randomUUID();
  const refuse = await seedPendingInsert(requestId, name);
  const retrying = insert("alice", requestId, name);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await refuse();
  const retried = await retrying;
  expect(retried.status).toBe(200);
  const answered = retried.body as Operation;
  expect((await operation(answered.name)).targetId).toBe(
    numericId((await getRequest(ns.name, name)).metadata.uid ?? ""),
  );
});
