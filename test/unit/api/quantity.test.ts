// Kubernetes quantities as numbers of base units.
import { QUANTITY_PATTERN, parseQuantity } from "../../../src/api/quantity.js";

test.each([
  ["32", 32],
  ["500m", 0.5],
  ["1.5", 1.5],
  ["256Gi", 256 * 2 ** 30],
  ["1Ki", 1024],
  ["2k", 2000],
  ["1e3", 1000],
  ["3E2", 300],
  ["100M", 1e8],
  [".5", 0.5],
  [8, 8],
])("%s is %d", (text, value) => {
  expect(parseQuantity(text)).toBeCloseTo(value, 9);
  if (typeof text === "string") expect(new RegExp(QUANTITY_PATTERN).test(text)).toBe(true);
});

test.each(["", "abc", "1.2.3", "5Xi", "m", "1 Gi"])("%j is not a quantity", (text) => {
  expect(parseQuantity(text)).toBeUndefined();
  expect(new RegExp(QUANTITY_PATTERN).test(text)).toBe(false);
});
