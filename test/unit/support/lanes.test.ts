// The split of the integration files into lanes (test/support/lanes.ts): every file in one lane, the
// longest first onto the least-loaded lane, reproducible; and the seconds table measured from reports.
import { assignLanes, measuredSeconds, UNMEASURED_SECONDS } from "../../support/lanes.js";

const total = (lane: readonly string[], seconds: Record<string, number>): number =>
  lane.reduce((sum, f) => sum + (seconds[f] ?? UNMEASURED_SECONDS), 0);

describe("assignLanes", () => {
  const seconds = { a: 100, b: 90, c: 60, d: 40, e: 30, f: 5 };
  const files = Object.keys(seconds);

  test.each([1, 2, 3, 7])("%i lanes hold every file exactly once", (count) => {
    const lanes = assignLanes(files, seconds, count);
    expect(lanes).toHaveLength(count);
    expect(lanes.flat().sort()).toEqual([...files].sort());
  });

  test("longest first onto the least-loaded lane", () => {
    // a(100) → 1; b(90) → 2; c(60) → 2 (90 < 100); d(40) → 1 (100 < 150); e(30) → 1 (140 < 150); f → 2.
    expect(assignLanes(files, seconds, 2)).toEqual([
      ["a", "d", "e"],
      ["b", "c", "f"],
    ]);
  });

  test("the split does not depend on the order files are found in", () => {
    expect(assignLanes([...files].reverse(), seconds, 2)).toEqual(assignLanes(files, seconds, 2));
  });

  test("an unmeasured file counts as the median-like default, and ties go by path", () => {
    const [first, second] = assignLanes(["new-b", "new-a"], {}, 2);
    expect([first, second]).toEqual([["new-a"], ["new-b"]]);
    expect(total(first ?? [], {})).toBe(UNMEASURED_SECONDS);
  });

  test("no lane is longer than the ideal share plus its longest file", () => {
    const many = Object.fromEntries(Array.from({ length: 73 }, (_, i) => [`f${i}`, ((i * 37) % 190) + 1]));
    const names = Object.keys(many);
    const sum = Object.values(many).reduce((s, n) => s + n, 0);
    const longest = Math.max(...Object.values(many));
    for (const lane of assignLanes(names, many, 2))
      expect(total(lane, many)).toBeLessThanOrEqual(sum / 2 + longest);
  });

  test.each([0, -1, 1.5, Number.NaN])("refuses %p lanes", (count) => {
    expect(() => assignLanes(files, seconds, count)).toThrow(/positive integer/);
  });
});

describe("measuredSeconds", () => {
  test("paths relative to the root, whole seconds, at least 1, sorted", () => {
    expect(
      measuredSeconds(
        [
          { name: "/repo/test/z.test.ts", startTime: 0, endTime: 61_400 },
          { name: "/repo/test/a.test.ts", startTime: 1_000, endTime: 1_200 },
        ],
        "/repo",
      ),
    ).toEqual({ "test/a.test.ts": 1, "test/z.test.ts": 61 });
    expect(
      Object.keys(
        measuredSeconds(
          [
            { name: "/x/b", startTime: 0, endTime: 0 },
            { name: "/x/a", startTime: 0, endTime: 0 },
          ],
          "/x/",
        ),
      ),
    ).toEqual(["a", "b"]);
  });
});
