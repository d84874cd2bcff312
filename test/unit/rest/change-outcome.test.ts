// A change whose answer was lost (docs/reliability.md, linearizability V7): the Operation is kept and the
// call answered 503 rather than forgotten as if refused; the retry with its requestId carries the change
// out on the Operation's own request, or finds it done.
import pino from "pino";
import type { Operation } from "../../../src/api/operation.js";
import { INSTANCE_GROUP_MANAGERS } from "../../../src/api/kinds.js";
import { numericId } from "../../../src/api/identity.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { carryOut, changedNothing, mutate, settleInsert } from "../../../src/rest/change-outcome.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import type { CallContext } from "../../../src/rest/route.js";

const reset = (): Error => Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
const location = { scope: "zones", name: "z" } as const;
const where = { project: "p", location, group: "g", request: "r" };
const request = (uid: string, state = "CANCELLED", extra: Record<string, unknown> = {}) => ({
  metadata: { name: "r", namespace: "p", uid, ...extra },
  spec: { instanceGroupManager: "g" },
  status: { state },
});

function call(found: unknown, onDelete: () => Promise<unknown> = () => Promise.resolve(undefined)) {
  const calls: string[] = [];
  const store = {
    delete: (ref: { name: string }) => {
      calls.push(`forget ${ref.name}`);
      return Promise.resolve();
    },
    update: (_ref: unknown, patch: Partial<Operation>) => {
      calls.push(`update ${patch.status ?? ""}`);
      return Promise.resolve({ name: "operation-1", ...patch } as Operation);
    },
  };
  const kube = {
    resource: (def: unknown) => ({
      get: () =>
        def === INSTANCE_GROUP_MANAGERS
          ? Promise.resolve({ metadata: { name: "g" }, spec: { zone: "z" } })
          : found === undefined
            ? Promise.reject(new ApiError(404, "NotFound", "not found"))
            : Promise.resolve(found),
      delete: () => {
        calls.push("delete");
        return onDelete();
      },
      mergePatch: () => {
        calls.push("cancel");
        return Promise.resolve(found);
      },
    }),
  };
  const context = {
    params: {},
    body: undefined,
    user: { username: "alice", groups: [], extra: {} },
    log: pino({ level: "silent" }),
    signal: new AbortController().signal,
    deps: { kube, store } as unknown as RestDeps,
  } as unknown as CallContext<unknown, unknown>;
  return { context, calls };
}

const pending = (verb: "cancel" | "delete", uid: string): Operation =>
  ({
    name: "operation-1",
    status: "PENDING",
    operationType: `compute.instanceGroupManagerResizeRequests.${verb}`,
    targetId: numericId(uid),
    requestId: "rid",
  }) as unknown as Operation;

test.each([
  [new ApiError(404, "NotFound", "x"), true],
  [new ApiError(409, "Conflict", "x"), true],
  [new ApiError(500, "InternalError", "etcd timeout"), false],
  [new ApiError(504, "Timeout", "x"), false],
  [reset(), false],
  [Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }), true],
  [new Error("timed out"), false],
])("changedNothing(%s) is %s", (err, nothing) => {
  expect(changedNothing(err)).toBe(nothing);
});

test("a refused change forgets its Operation; a lost answer keeps it and is 503", async () => {
  const ref = { project: "p", location, name: "operation-1" };
  const refused = call(undefined);
  await expect(
    mutate(refused.context, ref, "rid", () => Promise.reject(new ApiError(404, "NotFound", "gone"))),
  ).rejects.toMatchObject({ status: 404 });
  expect(refused.calls).toEqual(["forget operation-1"]);
  const lost = call(undefined);
  await expect(mutate(lost.context, ref, "rid", () => Promise.reject(reset()))).rejects.toMatchObject({
    status: 503,
    reason: "backendError",
  });
  expect(lost.calls).toEqual([]);
});

test("a delete retried after its first try's answer was lost: deleted now, or found done", async () => {
  // The first try did not get through: the request is there, deleted now, the Operation DONE.
  const there = call(request("u1"));
  await expect(carryOut(there.context, pending("delete", "u1"), "delete", where)).resolves.toMatchObject({
    body: { status: "DONE" },
  });
  expect(there.calls).toEqual(["delete", "update DONE"]);
  // It got through: the request is gone, or another request has the name since — not deleted.
  for (const found of [undefined, request("u2")]) {
    const done = call(found);
    await expect(carryOut(done.context, pending("delete", "u1"), "delete", where)).resolves.toMatchObject({
      body: { status: "DONE" },
    });
    expect(done.calls).toEqual(["update DONE"]);
  }
  // The first try deleted it between the retry's read and its delete: 404 is gone, the Operation kept.
  const raced = call(request("u1"), () => Promise.reject(new ApiError(404, "NotFound", "gone")));
  await expect(carryOut(raced.context, pending("delete", "u1"), "delete", where)).resolves.toMatchObject({
    body: { status: "DONE" },
  });
  expect(raced.calls).toEqual(["delete", "update DONE"]);
});

test("a cancel retried after its first try's answer was lost: cancelled now, or left to the controller", async () => {
  const active = call(request("u1", "ACCEPTED"));
  await expect(carryOut(active.context, pending("cancel", "u1"), "cancel", where)).resolves.toMatchObject({
    body: { status: "RUNNING" },
  });
  expect(active.calls).toEqual(["cancel", "update RUNNING"]);
  // Cancelled already (the first try got through): DONE at once, nothing patched.
  const cancelled = call(request("u1", "CANCELLED"));
  await expect(carryOut(cancelled.context, pending("cancel", "u1"), "cancel", where)).resolves.toMatchObject({
    body: { status: "DONE" },
  });
  expect(cancelled.calls).toEqual(["update DONE"]);
});

describe("a delete settles the insert that created the request (linearizability V9)", () => {
  const annotated = request("u1", "CANCELLED", {
    annotations: { "compute.resize-operator.dev/insert-operation": "operation-9" },
  });
  const insertOp = (status: string) =>
    ({
      name: "operation-9",
      status,
      operationType: "compute.instanceGroupManagerResizeRequests.insert",
    }) as unknown as Operation;

  function storeWith(op: Operation | undefined) {
    const updates: unknown[] = [];
    const { context } = call(annotated);
    Object.assign(context.deps.store, {
      get: () => Promise.resolve(op),
      update: (_ref: unknown, patch: unknown) => {
        updates.push(patch);
        return Promise.resolve(undefined);
      },
    });
    return { context, updates };
  }

  test("its PENDING Operation is moved on: DONE for a final request, with the request's id", async () => {
    const { context, updates } = storeWith(insertOp("PENDING"));
    await settleInsert(context, where, annotated as never);
    expect(updates).toEqual([expect.objectContaining({ status: "DONE", targetId: numericId("u1") })]);
  });

  test("an Operation already moved on, or gone, or a request without an insert is left alone", async () => {
    for (const op of [insertOp("DONE"), insertOp("RUNNING"), undefined]) {
      const { context, updates } = storeWith(op);
      await settleInsert(context, where, annotated as never);
      expect(updates).toEqual([]);
    }
    const { context, updates } = storeWith(insertOp("PENDING"));
    await settleInsert(context, where, request("u1") as never);
    expect(updates).toEqual([]);
  });
});
