// A requestId bound to another call whose Operation is still PENDING (a first call in flight, which the
// cluster may yet refuse, forgetting the requestId) is not refused at once (docs/reliability.md,
// linearizability V1): the store waits for that call, and carries the new one out if it was refused.
// The same call retried meanwhile waits as well, rather than acknowledge an Operation the first try
// may yet remove.
import { EventEmitter } from "node:events";
import type { Operation } from "../../../src/api/operation.js";
import { OperationKeys } from "../../../src/operations/keys.js";
import { requestIdValue } from "../../../src/operations/request-id.js";
import { OperationStore } from "../../../src/operations/store.js";
import type { RedisClient } from "../../../src/redis/clients.js";

const keys = new OperationKeys();
const ref = { project: "p", location: { scope: "zones", name: "z" }, name: "operation-1" } as const;
const insertCall = {
  caller: "alice",
  operationType: "insert",
  target: "zones/z/instanceGroupManagers/g/resizeRequests/r",
};
const cancelCall = { ...insertCall, operationType: "cancel" };

/** A Redis holding the requestId `rid` bound to the insert, whose Operation is `status`; `steps` run on each GET. */
function store(status: Operation["status"], steps: Array<(data: Map<string, string>) => void> = []) {
  const data = new Map<string, string>([
    [keys.requestId("p", "rid"), requestIdValue("z/operation-1", insertCall)],
    [keys.op(ref), JSON.stringify({ name: "operation-1", status })],
  ]);
  const redis = {
    get: (key: string) => {
      steps.shift()?.(data);
      return Promise.resolve(data.get(key) ?? null);
    },
  };
  const subscriber = new EventEmitter();
  return new OperationStore(redis as unknown as RedisClient, subscriber as unknown as RedisClient, {
    retentionMs: 60_000,
    inFlightWaitMs: 300,
  });
}

const refuse = (data: Map<string, string>) => {
  data.delete(keys.requestId("p", "rid"));
  data.delete(keys.op(ref));
};
const noop = () => undefined;

test("bound to a call in flight that is then refused: the requestId is free", async () => {
  await expect(
    store("PENDING", [noop, noop, refuse]).getByRequestId("p", "rid", cancelCall),
  ).resolves.toBeUndefined();
});

test("refused between the read of the requestId and the read of its Operation: the requestId is free", async () => {
  await expect(
    store("PENDING", [noop, refuse]).getByRequestId("p", "rid", cancelCall),
  ).resolves.toBeUndefined();
});

test("bound to a call in flight that stays in flight, or to one carried out: refused", async () => {
  await expect(store("PENDING").getByRequestId("p", "rid", cancelCall)).rejects.toThrow(
    /already used for another call/,
  );
  await expect(store("RUNNING").getByRequestId("p", "rid", cancelCall)).rejects.toThrow(
    /already used for another call/,
  );
});

test("the same call retried gets the first try's Operation once it is carried out, or is free once it is refused", async () => {
  const carriedOut = (data: Map<string, string>) => {
    data.set(keys.op(ref), JSON.stringify({ name: "operation-1", status: "RUNNING" }));
  };
  await expect(
    store("PENDING", [noop, noop, carriedOut]).getByRequestId("p", "rid", insertCall),
  ).resolves.toMatchObject({ status: "RUNNING" });
  await expect(
    store("PENDING", [noop, noop, refuse]).getByRequestId("p", "rid", insertCall),
  ).resolves.toBeUndefined();
  // A first try that stays in flight past the wait (cut short by a failover): its Operation as it stands.
  await expect(store("PENDING").getByRequestId("p", "rid", insertCall)).resolves.toMatchObject({
    status: "PENDING",
  });
});
