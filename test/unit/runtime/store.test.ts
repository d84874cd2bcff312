import type { KubernetesObject } from "@kubernetes/client-node";
import { objectKey, splitKey, Store } from "../../../src/runtime/store.js";

const cm = (ns: string | undefined, name: string, group?: string): KubernetesObject => ({
  metadata: { namespace: ns, name, labels: group ? { group } : {} },
});

describe("keys", () => {
  test("namespace/name, or name for cluster-scoped objects", () => {
    expect(objectKey(cm("a", "x"))).toBe("a/x");
    expect(objectKey(cm(undefined, "node-1"))).toBe("node-1");
    expect(splitKey("a/x")).toEqual({ namespace: "a", name: "x" });
    expect(splitKey("node-1")).toEqual({ namespace: undefined, name: "node-1" });
    expect(() => objectKey({ metadata: {} })).toThrow();
  });
});

describe("Store", () => {
  const byGroup = (o: KubernetesObject): string[] => {
    const g = o.metadata?.labels?.group;
    return g ? [g] : [];
  };

  test("set, get, list, delete", () => {
    const s = new Store();
    expect(s.set(cm("a", "x"))).toBeUndefined();
    const newer = cm("a", "x");
    expect(s.set(newer)).toBeDefined();
    expect(s.get("a/x")).toBe(newer);
    s.set(cm("b", "y"));
    expect(s.list().length).toBe(2);
    expect(s.list("b").map(objectKey)).toEqual(["b/y"]);
    expect(s.delete("a/x")).toBe(newer);
    expect(s.delete("a/x")).toBeUndefined();
    expect(s.keys()).toEqual(["b/y"]);
  });

  test("custom indexes follow updates and deletes", () => {
    const s = new Store({ group: byGroup });
    s.set(cm("a", "x", "g1"));
    s.set(cm("a", "y", "g1"));
    expect(s.byIndex("group", "g1").map(objectKey).sort()).toEqual(["a/x", "a/y"]);
    s.set(cm("a", "y", "g2"));
    expect(s.byIndex("group", "g1").map(objectKey)).toEqual(["a/x"]);
    expect(s.byIndex("group", "g2").map(objectKey)).toEqual(["a/y"]);
    s.delete("a/x");
    expect(s.byIndex("group", "g1")).toEqual([]);
    expect(() => s.byIndex("nope", "x")).toThrow(/no index/);
  });
});

describe("Store counters", () => {
  const byGroup = (o: KubernetesObject): string[] => {
    const g = o.metadata?.labels?.group;
    return g ? [g] : [];
  };

  test("count each value's objects through adds, updates and deletes; a value at zero is gone", () => {
    const s = new Store({}, { group: byGroup });
    s.set(cm("a", "x", "g1"));
    s.set(cm("a", "y", "g1"));
    s.set(cm("b", "z"));
    expect([...s.counts("group")]).toEqual([["g1", 2]]);
    s.set(cm("a", "y", "g2"));
    expect(new Map(s.counts("group"))).toEqual(
      new Map([
        ["g1", 1],
        ["g2", 1],
      ]),
    );
    s.set(cm("a", "y", "g2"));
    expect(s.counts("group").get("g2")).toBe(1);
    s.delete("a/x");
    s.delete("a/x");
    expect([...s.counts("group")]).toEqual([["g2", 1]]);
    expect(() => s.counts("nope")).toThrow(/no counter/);
    expect(() => s.byIndex("group", "g2")).toThrow(/no index/);
  });
});
