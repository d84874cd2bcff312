import { WriteCoalescer } from "../../../src/controllers/resize/coalesce.js";

describe("WriteCoalescer", () => {
  test("a key writes at once, then waits out the interval; keys are independent", () => {
    const c = new WriteCoalescer(1000);
    expect(c.waitMs("a", 5_000)).toBe(0);
    c.wrote("a", 5_000);
    expect(c.waitMs("a", 5_000)).toBe(1000);
    expect(c.waitMs("a", 5_400)).toBe(600);
    expect(c.waitMs("a", 6_000)).toBe(0);
    expect(c.waitMs("b", 5_400)).toBe(0);
  });

  test("a forgotten key writes at once again", () => {
    const c = new WriteCoalescer(1000);
    c.wrote("a", 0);
    c.forget("a");
    expect(c.waitMs("a", 1)).toBe(0);
  });
});
