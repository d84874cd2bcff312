// A try held between recording its Operation and sending its change (docs/reliability.md,
// linearizability V10): under a leader freeze, an insert's first try recorded its Operation and froze;
// its retry on the other replica found the Operation PENDING, was refused 409 (the name was taken) and
// forgot it. When the freeze ended the first try created the request, an insert no answer stood behind.
// The held try now looks at its Operation before its change: gone, it changes nothing and answers 503;
// moved on by the retry, it answers with it. That read can be held too (V12: its answer waited in the
// socket of the frozen replica), so a first try held past its budget since its record changes nothing.
import pino from "pino";
import type { Operation } from "../../../src/api/operation.js";
import { INSTANCE_GROUP_MANAGERS } from "../../../src/api/kinds.js";
import { FIRST_TRY_CHANGE_BUDGET_MS } from "../../../src/operations/stored.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import { cancel, insert, remove } from "../../../src/rest/resize-requests.js";

const group = {
  metadata: { name: "g", namespace: "p", uid: "u" },
  spec: { zone: "z", targetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "w" } },
};
const request = (state: string) => ({
  metadata: { name: "r", namespace: "p", uid: "u1" },
  spec: { instanceGroupManager: "g", resizeBy: 1 },
  status: { state },
});

/** A try whose Operation, read back before the change, is `meanwhile` (undefined: forgotten). */
function heldTry(meanwhile: Operation | undefined, state: string, withRequestId = true, heldMs = 0) {
  const changes: string[] = [];
  // The clock reads heldMs once the try has read its Operation back: how long the try was held.
  let clock = 0;
  const store = {
    getByRequestId: () => Promise.resolve(undefined),
    create: (operation: Operation) => Promise.resolve({ operation, created: true }),
    get: () => {
      clock = heldMs;
      return Promise.resolve(meanwhile);
    },
    update: (_ref: unknown, patch: Partial<Operation>) => Promise.resolve({ name: "mine", ...patch }),
    delete: () => Promise.resolve(true),
  };
  const kube = {
    resource: (def: unknown) => ({
      get: () => Promise.resolve(def === INSTANCE_GROUP_MANAGERS ? group : request(state)),
      create: (rr: { metadata: { name: string } }) => {
        changes.push(`create ${rr.metadata.name}`);
        return Promise.resolve({ ...rr, metadata: { ...rr.metadata, uid: "u9" } });
      },
      mergePatch: () => {
        changes.push("cancel");
        return Promise.resolve(request(state));
      },
      delete: () => {
        changes.push("delete");
        return Promise.resolve({ status: "Success" });
      },
    }),
  };
  const context = {
    params: {
      project: "p",
      zone: "z",
      instanceGroupManager: "g",
      resizeRequest: "r",
      ...(withRequestId && { requestId: "rid" }),
    },
    body: { name: "r", resizeBy: 1 },
    user: { username: "alice", groups: [], extra: {} },
    log: pino({ level: "silent" }),
    signal: new AbortController().signal,
    deps: {
      kube,
      store,
      authorizer: { authorize: () => Promise.resolve() },
      now: () => clock,
      publicUrl: "http://x",
    } as unknown as RestDeps,
  };
  return { context, changes };
}

type InsertCall = Parameters<typeof insert>[0];
type OneRequestCall = Parameters<typeof cancel>[0];
const movedOn = { name: "operation-1", status: "RUNNING", targetId: "9" } as Operation;
const pending = { name: "operation-1", status: "PENDING" } as Operation;

describe.each([
  ["insert", (c: unknown) => insert(c as InsertCall), "ACCEPTED", "create r", "RUNNING"],
  ["cancel", (c: unknown) => cancel(c as OneRequestCall), "ACCEPTED", "cancel", "RUNNING"],
  ["delete", (c: unknown) => remove(c as OneRequestCall), "CANCELLED", "delete", "RUNNING"],
])("a held %s", (_, call, state, change, after) => {
  test("whose Operation a refused retry forgot changes nothing and answers 503", async () => {
    const { context, changes } = heldTry(undefined, state);
    await expect(call(context)).rejects.toMatchObject({ status: 503, reason: "backendError" });
    expect(changes).toEqual([]);
  });

  test("whose Operation a retry moved on answers with it and changes nothing", async () => {
    const { context, changes } = heldTry(movedOn, state);
    await expect(call(context)).resolves.toEqual({ body: movedOn });
    expect(changes).toEqual([]);
  });

  test("whose Operation is still PENDING makes its change", async () => {
    const { context, changes } = heldTry(pending, state);
    await expect(call(context)).resolves.toMatchObject({ body: { status: after } });
    expect(changes).toEqual([change]);
  });

  test("held longer than the budget after its record changes nothing and answers 503, its Operation kept", async () => {
    const { context, changes } = heldTry(pending, state, true, FIRST_TRY_CHANGE_BUDGET_MS + 1);
    await expect(call(context)).rejects.toMatchObject({ status: 503, reason: "backendError" });
    expect(changes).toEqual([]);
  });

  test("held within the budget makes its change", async () => {
    const { context, changes } = heldTry(pending, state, true, FIRST_TRY_CHANGE_BUDGET_MS);
    await expect(call(context)).resolves.toMatchObject({ body: { status: after } });
    expect(changes).toEqual([change]);
  });

  test("without a requestId has no other try and makes its change without looking", async () => {
    const { context, changes } = heldTry(undefined, state, false);
    await expect(call(context)).resolves.toMatchObject({ body: { status: after } });
    expect(changes).toEqual([change]);
  });
});
