// A cancel's or delete's Operation finished from a cache that had not seen its request (docs/reliability.md,
// linearizability V11): under an API-server network cut, the leader's cache still held the name's previous
// incarnation (or nothing) while the request a cancel had been made on was active; the Operation was
// answered DONE, and a cancel after that wait found the request still active. What the cache cannot tell,
// the API server is asked.
import pino from "pino";
import type { Operation, ResizeRequest } from "../../../src/api/index.js";
import { numericId } from "../../../src/api/identity.js";
import { needsLiveRead } from "../../../src/operations/advance.js";
import { operationsReconciler, type ReadRequest } from "../../../src/operations/controller.js";
import { newOperation, type OperationPatch } from "../../../src/operations/model.js";
import type { OperationStore } from "../../../src/operations/store.js";
import type { Lister } from "../../../src/runtime/store.js";

type Verb = "insert" | "cancel" | "delete";

function op(verb: Verb, uid = "uid-2", status: Operation["status"] = "RUNNING"): Operation {
  return {
    ...newOperation({
      ref: { project: "p", location: { scope: "zones", name: "z" }, name: "operation-1" },
      id: "7",
      operationType: `compute.instanceGroupManagerResizeRequests.${verb}`,
      locationUrl: "http://x/compute/v1/projects/p/zones/z",
      targetLink: "http://x/t",
      targetId: numericId(uid),
      user: "alice",
      insertTime: "2026-01-01T00:00:00.000Z",
    }),
    status,
  };
}

function rr(uid: string, state: string, cancel = false): ResizeRequest {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name: "r", namespace: "p", uid },
    spec: { instanceGroupManager: "g", resizeBy: 1, cancel },
    status: { state },
  } as ResizeRequest;
}

describe("needsLiveRead: only a cancel or delete whose own request the cache does not hold", () => {
  test.each<[string, Operation, ResizeRequest | undefined, boolean]>([
    ["cancel, nothing cached", op("cancel"), undefined, true],
    ["cancel, the previous incarnation cached", op("cancel"), rr("uid-1", "CANCELLED"), true],
    ["cancel, its own request cached", op("cancel"), rr("uid-2", "ACCEPTED"), false],
    ["delete, nothing cached", op("delete"), undefined, true],
    ["delete, its own request cached", op("delete"), rr("uid-2", "CANCELLED"), false],
    ["a DONE cancel", op("cancel", "uid-2", "DONE"), undefined, false],
    ["insert (V3's rule: its own sight of the request)", op("insert"), undefined, false],
  ])("%s → %s", (_, operation, cached, expected) => {
    expect(needsLiveRead(operation, cached)).toBe(expected);
  });
});

/** One reconcile of the name with `cached` in the cache and `live` on the API server. */
async function reconcile(
  operation: Operation,
  cached: ResizeRequest | undefined,
  live: ResizeRequest | undefined,
) {
  const patches: OperationPatch[] = [];
  const reads: string[] = [];
  const store = {
    pending: () =>
      Promise.resolve([{ project: "p", location: { scope: "zones", name: "z" }, name: "operation-1" }]),
    get: () => Promise.resolve(operation),
    update: (_ref: unknown, patch: OperationPatch) => {
      patches.push(patch);
      return Promise.resolve({ ...operation, ...patch });
    },
    settle: () => Promise.resolve(),
  } as unknown as OperationStore;
  const lister = (item?: ResizeRequest) =>
    ({ get: () => item, list: () => [] }) as unknown as Lister<ResizeRequest>;
  const readRequest: ReadRequest = (namespace, name) => {
    reads.push(`${namespace}/${name}`);
    return Promise.resolve(live);
  };
  const reconciler = operationsReconciler(
    lister(cached),
    lister() as unknown as Parameters<typeof operationsReconciler>[1],
    readRequest,
    { store, publicUrl: "http://x", retentionMs: 0, logger: pino({ level: "silent" }) },
  );
  await reconciler({ namespace: "p", name: "r" }, { log: pino({ level: "silent" }) });
  return { patches, reads };
}

test("a cancel whose request the cache has not seen is not DONE while the API server has it active", async () => {
  const stale = rr("uid-1", "CANCELLED");
  const { patches, reads } = await reconcile(op("cancel"), stale, rr("uid-2", "CREATING", true));
  expect(reads).toEqual(["p/r"]);
  expect(patches).toEqual([{ status: "RUNNING", progress: 50 }]);
});

test("a cancel whose request is gone from the API server too is DONE", async () => {
  const { patches } = await reconcile(op("cancel"), undefined, undefined);
  expect(patches).toEqual([{ status: "DONE" }]);
});

test("a delete whose request the cache lost is DONE only once the API server has it no more", async () => {
  expect((await reconcile(op("delete"), undefined, rr("uid-2", "CANCELLED"))).patches).toEqual([
    { status: "RUNNING", progress: 50 },
  ]);
  expect((await reconcile(op("delete"), undefined, undefined)).patches).toEqual([{ status: "DONE" }]);
  expect((await reconcile(op("delete"), undefined, rr("uid-3", "CREATING"))).patches).toEqual([
    { status: "DONE" },
  ]);
});

test("the cache is enough when it holds the Operation's own request", async () => {
  const { patches, reads } = await reconcile(op("cancel"), rr("uid-2", "CANCELLED"), undefined);
  expect(reads).toEqual([]);
  expect(patches).toEqual([{ status: "DONE" }]);
});
