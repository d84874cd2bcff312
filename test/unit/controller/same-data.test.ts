import { sameData } from "../../../src/controllers/resize/decide/index.js";

describe("sameData: equal as stored by the API server", () => {
  test.each([
    [{ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 }, true],
    [{ a: 1, gone: undefined }, { a: 1 }, true],
    [{ a: 1 }, { a: 1, gone: undefined }, true],
    [{ a: 1 }, { a: 2 }, false],
    [{ a: 1 }, { b: 1 }, false],
    [{ a: undefined }, { b: 1 }, false],
    [[1, 2], [2, 1], false],
    [[1], { 0: 1 }, false],
    [{ a: null }, { a: {} }, false],
    [{ a: [] }, { a: {} }, false],
    ["1", 1, false],
    [{ a: { b: { c: [true] } } }, { a: { b: { c: [false] } } }, false],
  ])("%j vs %j → %s", (a, b, expected) => {
    expect(sameData(a, b)).toBe(expected);
    expect(sameData(b, a)).toBe(expected);
  });
});
