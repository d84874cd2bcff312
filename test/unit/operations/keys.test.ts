// The key layout: one hash tag per project (one Cluster slot), and the legacy layout's mapping.
import { OperationKeys } from "../../../src/operations/keys.js";

const keys = new OperationKeys("resize-operator:");
const zone = { scope: "zones", name: "us-a" } as const;
const region = { scope: "regions", name: "us" } as const;
/** The hash tag Redis Cluster hashes: what is between the first '{' and the next '}'. */
const tag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];

test("every key of a project carries the project's hash tag", () => {
  const all = [
    keys.op({ project: "team-a", location: zone, name: "operation-1" }),
    keys.op({ project: "team-a", location: region, name: "operation-2" }),
    keys.index("team-a", zone),
    keys.index("team-a", region),
    keys.requestId("team-a", "0b6e…"),
    keys.pending("team-a", "rr-1"),
  ];
  expect(all.map(tag)).toEqual(Array(all.length).fill("team-a"));
  expect(all.slice(0, 3)).toEqual([
    "resize-operator:{team-a}:op:us-a:operation-1",
    "resize-operator:{team-a}:op:regions/us:operation-2",
    "resize-operator:{team-a}:index:us-a",
  ]);
});

test("legacy keys map to the same names with the hash tag", () => {
  expect(keys.fromLegacy("resize-operator:op:team-a:us-a:operation-1")).toEqual({
    kind: "op",
    key: "resize-operator:{team-a}:op:us-a:operation-1",
  });
  expect(keys.fromLegacy("resize-operator:index:team-a:regions/us")).toEqual({
    kind: "index",
    key: "resize-operator:{team-a}:index:regions/us",
  });
  expect(keys.fromLegacy("resize-operator:request-id:p:uuid")?.key).toBe(
    "resize-operator:{p}:request-id:uuid",
  );
  expect(keys.fromLegacy("resize-operator:pending:p:rr")?.key).toBe("resize-operator:{p}:pending:rr");
});

test("current keys and foreign keys are not legacy", () => {
  expect(keys.fromLegacy("resize-operator:{team-a}:op:us-a:operation-1")).toBeUndefined();
  expect(keys.fromLegacy("authjs:session:x")).toBeUndefined();
  expect(keys.fromLegacy("resize-operator:op:nocolon")).toBeUndefined();
});

test("operations migrate before the index that lists them", () => {
  expect(keys.legacyPatterns().at(-1)).toBe("resize-operator:index:*");
  expect(keys.legacyPatterns()[0]).toBe("resize-operator:op:*");
});
