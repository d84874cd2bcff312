import fc from "fast-check";
import { DelayHeap } from "../../../src/runtime/delay-heap.js";

describe("DelayHeap", () => {
  test("pops due keys earliest first; the earlier time of a key wins; stale entries are skipped", () => {
    const h = new DelayHeap();
    expect(h.push("a", 30)).toBe(true);
    expect(h.push("b", 10)).toBe(true);
    expect(h.push("a", 50)).toBe(false);
    expect(h.push("a", 5)).toBe(true);
    expect(h.size).toBe(2);
    expect(h.next()).toBe(5);
    expect(h.popDue(4)).toEqual([]);
    // a's entry at 30 is stale: a is due at 5 only.
    expect(h.popDue(30)).toEqual(["a", "b"]);
    expect(h.next()).toBeUndefined();
    expect(h.size).toBe(0);
    h.push("c", 1);
    h.clear();
    expect(h.popDue(100)).toEqual([]);
  });

  test("agrees with a sorted list of each key's earliest time", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 100 }))),
        (adds) => {
          const h = new DelayHeap();
          const earliest = new Map<string, number>();
          for (const [k, at] of adds) {
            h.push(`k${k}`, at);
            const key = `k${k}`;
            earliest.set(key, Math.min(at, earliest.get(key) ?? Infinity));
          }
          const popped = h.popDue(100);
          const expected = [...earliest].sort((x, y) => x[1] - y[1]).map(([k]) => k);
          // Keys due at the same time may come in either order: compare their times.
          expect(popped.map((k) => earliest.get(k))).toEqual(expected.map((k) => earliest.get(k)));
          expect(new Set(popped)).toEqual(new Set(expected));
        },
      ),
    );
  });
});
