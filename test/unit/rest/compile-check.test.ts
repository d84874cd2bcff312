// The compiled parameter checks agree with zod, the rules' one definition: for every parameter of the
// route table, on random and hostile values, the predicate accepts exactly what safeParse accepts.
import fc from "fast-check";
import { z } from "zod";
import { compileCheck } from "../../../src/rest/compile-check.js";
import { ROUTES } from "../../../src/rest/routes.js";

const parameters = [...new Map(ROUTES.flatMap((r) => r.parameters).map((p) => [p.schema, p])).values()];

const text = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.stringMatching(/^[a-z][-a-z0-9]{0,70}$/),
  fc.stringMatching(/^[0-9]{1,22}$/),
  fc.uuid(),
  fc.constantFrom(
    "",
    "a",
    "a-",
    "-a",
    "0",
    "00000000-0000-0000-0000-000000000000",
    "example.com:p",
    "a".repeat(64),
  ),
);
const value = fc.oneof(text, fc.integer({ min: -10, max: 5_000_000_000 }), fc.double(), fc.boolean());

test.each(parameters.map((p) => [p.name, p] as const))(
  "%s: the compiled check agrees with zod",
  (_name, p) => {
    const accepts = compileCheck(p.schema);
    fc.assert(
      fc.property(value, (v) => {
        expect(accepts(v)).toBe(p.schema.safeParse(v).success);
      }),
      { numRuns: 2_000 },
    );
  },
);

test("number, boolean and bound checks agree with zod", () => {
  const schemas = [
    z.number().gt(1).lt(10),
    z.number().gte(1).lte(10),
    z.int32(),
    z.boolean(),
    z.string().regex(/a/g),
  ];
  for (const schema of schemas) {
    const accepts = compileCheck(schema);
    fc.assert(
      fc.property(fc.oneof(value, fc.constantFrom(1, 10, Infinity, NaN, 2 ** 31)), (v) => {
        expect(accepts(v)).toBe(schema.safeParse(v).success);
      }),
      { numRuns: 500 },
    );
  }
});

test("a schema the compiler does not know is refused when the table is built", () => {
  expect(() => compileCheck(z.email())).toThrow(/not supported/);
  expect(() => compileCheck(z.array(z.string()))).toThrow(/not supported/);
  expect(() => compileCheck(z.float32())).toThrow(/not supported/);
  expect(() => compileCheck(z.boolean().refine((b) => b))).toThrow(/not supported/);
  expect(() => compileCheck(z.string().startsWith("a"))).toThrow(/not supported/);
});
