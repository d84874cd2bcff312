// What a batch may cost before any part is authenticated (rest/batch-budget.ts).
import { credentialsOf, PartBudget } from "../../../src/rest/batch-budget.js";

test("credentials are the distinct Authorization headers and token parameters, inherited or the part's own", () => {
  const parts: { path: string; headers: Record<string, string> }[] = [
    { path: "/compute/v1/a", headers: {} },
    { path: "/compute/v1/b", headers: { authorization: "Bearer one" } },
    { path: "/compute/v1/c", headers: { authorization: "Bearer one" } },
    { path: "/compute/v1/d?access_token=two&oauth_token=three", headers: {} },
  ];
  expect([...credentialsOf(parts, { authorization: "Bearer outer" })].sort()).toEqual([
    "header:Bearer one",
    "header:Bearer outer",
    "token:three",
    "token:two",
  ]);
  expect(credentialsOf([{ path: "/x", headers: {} }], {}).size).toBe(0);
});

test("a caller's bucket of parts empties and refills over time; others are not affected", () => {
  let now = 0;
  const budget = new PartBudget({ capacity: 10, refillPerSecond: 2, now: () => now, maxCallers: 2 });
  expect(budget.take("a", 8)).toBe(true);
  expect(budget.take("a", 3)).toBe(false);
  expect(budget.take("b", 10)).toBe(true);
  now = 1_000;
  expect(budget.take("a", 4)).toBe(true);
  expect(budget.take("a", 1)).toBe(false);
  // A third caller pushes out the least recently used (b), which then starts with a full bucket again.
  expect(budget.take("c", 1)).toBe(true);
  expect(budget.take("b", 10)).toBe(true);
});
