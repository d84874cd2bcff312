// The read-your-own-writes rule (src/targets/own-writes.ts) as a table: resourceVersions compared as
// KEP-5504 says (integers of any length, no leading zeros), and when a remembered scale write stops
// being laid over the cached object.
import { caughtUp, compareResourceVersions, OwnWrites } from "../../../src/targets/own-writes.js";

test.each([
  ["5", "5", 0],
  ["4", "5", -1],
  ["10", "9", 1],
  ["9", "10", -1],
  ["123456789012345678901234567890", "123456789012345678901234567891", -1],
  ["2", "19", -1],
  ["05", "5", undefined],
  ["0", "1", undefined],
  ["", "1", undefined],
  ["abc", "1", undefined],
  ["1", "1.0", undefined],
])("compare %j with %j: %j", (a, b, expected) => {
  expect(compareResourceVersions(a, b)).toBe(expected);
});

const write = { replicas: 5, resourceVersion: "100" };

test.each([
  ["an older cached object", "99", false, false],
  ["the write itself", "100", false, true],
  ["a newer object", "101", false, true],
  ["a newer object of more digits", "1000", false, true],
  ["an older update event", "99", true, false],
  ["a value that cannot be compared, read from the cache", "x-1", false, false],
  ["a value that cannot be compared, delivered as an update", "x-1", true, true],
])("caught up with %s (%s, update %s): %s", (_, cached, update, expected) => {
  expect(caughtUp(write, cached, update)).toBe(expected);
});

test("a write is laid over until the cache holds its resourceVersion, or an update or deletion is delivered", () => {
  const writes = new OwnWrites();
  writes.record("t", write);
  expect(writes.pending("t", "99")).toEqual(write);
  expect(writes.pending("t", "100")).toBeUndefined();
  expect(writes.size).toBe(0);

  writes.record("t", write);
  writes.delivered("t", "98");
  expect(writes.pending("t", "98")).toEqual(write);
  writes.delivered("t", "101");
  expect(writes.pending("t", "98")).toBeUndefined();

  writes.record("t", write);
  writes.delivered("t", undefined);
  expect(writes.size).toBe(0);

  writes.record("t", { replicas: 1, resourceVersion: "opaque" });
  expect(writes.pending("t", "other")).toEqual({ replicas: 1, resourceVersion: "opaque" });
  writes.delivered("t", "other");
  expect(writes.pending("t", "other")).toBeUndefined();
  expect(writes.pending("unknown", "1")).toBeUndefined();
});
