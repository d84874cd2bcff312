import { collectGarbage } from "../../../src/runtime/heap.js";
import { internStrings, perObjectKeys, StringTable } from "../../../src/runtime/intern.js";

// A request as the cache holds it: shared values (namespace, group, zone, condition texts) and values
// distinct per object (name, uid, links, times, annotations).
const request = (i: number): Record<string, unknown> => ({
  apiVersion: "compute.resize-operator.dev/v1",
  metadata: {
    name: `r${i}`,
    namespace: "team-a",
    uid: `uid-${i}`,
    resourceVersion: String(100 + i),
    creationTimestamp: `2026-11-25T20:00:0${i}Z`,
    labels: { team: "a" },
    annotations: { "example.com/pr": `team-a/pr-${i}` },
  },
  spec: { instanceGroupManager: "g1", resizeBy: 2, cancel: false },
  status: {
    state: "SUCCEEDED",
    selfLink: `http://x/zones/z/instanceGroupManagers/g1/resizeRequests/r${i}`,
    conditions: [
      { type: "Accepted", status: "True", reason: "Accepted", lastTransitionTime: `2026-11-25T20:00:0${i}Z` },
      { type: "Succeeded", status: "True", reason: "Provisioned", message: "All 2 instances are ready." },
    ],
  },
});

const perRequest = perObjectKeys(["selfLink"]);

describe("internStrings", () => {
  test("leaves the object equal to what it was", () => {
    const table = new StringTable();
    expect(internStrings(request(1), table, perRequest)).toEqual(request(1));
  });

  test("shares what repeats across objects and keeps what is distinct per object out of the table", () => {
    const table = new StringTable();
    internStrings(request(1), table, perRequest);
    const shared = table.size;
    // apiVersion, namespace, label, group, state, "Accepted" (a type and a reason), "Succeeded", "True",
    // "Provisioned", the message.
    expect(shared).toBe(10);
    for (let i = 2; i < 9; i++) internStrings(request(i), table, perRequest);
    expect(table.size).toBe(shared);
  });

  test.each([
    ["name", true],
    ["uid", true],
    ["resourceVersion", true],
    ["annotations", true],
    ["creationTimestamp", true],
    ["lastTransitionTime", true],
    ["selfLink", true],
    ["namespace", false],
    ["reason", false],
    ["message", false],
  ])("key %s is per object: %s", (key, expected) => {
    expect(perRequest(key)).toBe(expected);
  });
});

describe("StringTable", () => {
  test("starts afresh when full, so distinct values cannot grow it", () => {
    const table = new StringTable(3);
    for (const s of ["a", "b", "c", "d", "e"]) expect(table.intern(s)).toBe(s);
    expect(table.size).toBe(2);
    expect(table.intern("d")).toBe("d");
    expect(table.size).toBe(2);
  });

  test("refuses a capacity that is not a positive integer", () => {
    expect(() => new StringTable(0)).toThrow(RangeError);
  });
});

describe("collectGarbage", () => {
  test("collects an object nothing references any more", async () => {
    // Created in a function: no binding here keeps it alive.
    const ref = ((): WeakRef<object> => new WeakRef({ big: new Array(1000).fill(0) }))();
    // A WeakRef keeps its target until the job that created it has ended.
    await new Promise((resolve) => setImmediate(resolve));
    expect(collectGarbage()).toBe(true);
    expect(ref.deref()).toBeUndefined();
  });
});
