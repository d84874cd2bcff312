// A call whose client has gone before its Operation is recorded records nothing (docs/reliability.md,
// linearizability V6): a replica frozen with a cancel in hand, continued after the client's retry was
// answered 404 elsewhere, cancelled the request inserted under the name since.
import { EventEmitter } from "node:events";
import type { Operation } from "../../../src/api/operation.js";
import { OperationStore } from "../../../src/operations/store.js";
import type { RedisClient } from "../../../src/redis/clients.js";

const ref = { project: "p", location: { scope: "zones", name: "z" }, name: "operation-1" } as const;
const operation = {
  name: "operation-1",
  status: "PENDING",
  insertTime: new Date(0).toISOString(),
} as Operation;

test("the client gone: nothing is written, the call ends", async () => {
  const written: string[] = [];
  const redis = {
    pipeline: () => {
      written.push("pipeline");
      throw new Error("written");
    },
    eval: () => {
      written.push("eval");
      throw new Error("written");
    },
  };
  const store = new OperationStore(
    redis as unknown as RedisClient,
    new EventEmitter() as unknown as RedisClient,
    {
      retentionMs: 60_000,
    },
  );
  const gone = new AbortController();
  gone.abort();
  await expect(store.create(operation, ref, { request: "r", signal: gone.signal })).rejects.toMatchObject({
    name: "AbortError",
  });
  expect(written).toEqual([]);
});
