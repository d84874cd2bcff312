// Which Redis failures the REST edge answers with 503: everything but Redis refusing a command as
// wrong, and among the refusals those that only mean "not now" (a failover, a loading replica).
import { storeError, StoreUnavailableError } from "../../../src/operations/store.js";

function replyError(message: string): Error {
  const err = new Error(message);
  err.name = "ReplyError";
  return err;
}

test.each([
  "READONLY You can't write against a read only replica.",
  "CLUSTERDOWN The cluster is down",
  "TRYAGAIN Multiple keys request during rehashing of slot",
  "LOADING Redis is loading the dataset in memory",
  "MASTERDOWN Link with MASTER is down",
  "NOREPLICAS Not enough good replicas to write.",
  "MOVED 3999 127.0.0.1:6381",
])("%s is a failover: unavailable (503)", (message) => {
  expect(storeError(replyError(message))).toBeInstanceOf(StoreUnavailableError);
});

test("a refused command is a bug, passed through (500)", () => {
  const bug = replyError("CROSSSLOT Keys in request don't hash to the same slot");
  expect(storeError(bug)).toBe(bug);
  expect(storeError(replyError("ERR wrong number of arguments"))).not.toBeInstanceOf(StoreUnavailableError);
});

test("connection failures and timeouts are unavailable; an unavailable error stays itself", () => {
  expect(storeError(new Error("Command timed out"))).toBeInstanceOf(StoreUnavailableError);
  const unavailable = new StoreUnavailableError("down");
  expect(storeError(unavailable)).toBe(unavailable);
});
