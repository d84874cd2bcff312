// Route parameters are checked on every call, so their zod schemas are compiled once into plain
// predicates: `compileCheck(schema)(value)` is true exactly when `schema.safeParse(value)` succeeds
// (test/unit/rest/compile-check.test.ts checks that on random values for every parameter of the
// table). The schema stays the one definition of the rule — the discovery document reads its pattern
// and bounds, and zod still words the error when the predicate says no. Only the kinds of schema and
// check route parameters use are compiled; any other is refused when the route table is built.
import { z } from "zod";

export type Check = (value: unknown) => boolean;

/** The integer ranges of zod's number formats, as zod defines them. */
const INTEGER_FORMATS: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function unsupported(what: string): never {
  throw new Error(`compileCheck: ${what} is not supported in a route parameter`);
}

/** One check of a string or number schema as a predicate on a value already of the right type. */
function compileRefinement(check: z.core.$ZodCheck): (value: string | number) => boolean {
  if (check instanceof z.core.$ZodCheckMinLength) {
    const { minimum } = check._zod.def;
    return (v) => typeof v === "string" && v.length >= minimum;
  }
  if (check instanceof z.core.$ZodCheckMaxLength) {
    const { maximum } = check._zod.def;
    return (v) => typeof v === "string" && v.length <= maximum;
  }
  if (check instanceof z.core.$ZodCheckRegex) {
    const { pattern } = check._zod.def;
    return (v) => {
      // As zod does: a global or sticky pattern keeps its position between calls otherwise.
      pattern.lastIndex = 0;
      return typeof v === "string" && pattern.test(v);
    };
  }
  if (check instanceof z.core.$ZodCheckLessThan) {
    const { value: bound, inclusive } = check._zod.def;
    const limit = Number(bound);
    return (v) => typeof v === "number" && (inclusive ? v <= limit : v < limit);
  }
  if (check instanceof z.core.$ZodCheckGreaterThan) {
    const { value: bound, inclusive } = check._zod.def;
    const limit = Number(bound);
    return (v) => typeof v === "number" && (inclusive ? v >= limit : v > limit);
  }
  if (check._zod.def.check === "custom" && check instanceof z.core.$ZodCustom) {
    const { fn } = check._zod.def;
    return (v) => Boolean(fn(v));
  }
  return unsupported(`the check ${check._zod.def.check}`);
}

/** The predicate of `schema`: true exactly when zod would accept the value. */
export function compileCheck(schema: z.core.$ZodType): Check {
  const refinements = (schema._zod.def.checks ?? []).map(compileRefinement);
  const passes = (v: string | number): boolean => refinements.every((accepts) => accepts(v));
  if (schema instanceof z.core.$ZodString) {
    if ("format" in schema._zod.def) unsupported("a string format");
    return (v) => typeof v === "string" && passes(v);
  }
  if (schema instanceof z.core.$ZodNumberFormat) {
    const range = INTEGER_FORMATS[schema._zod.def.format];
    if (range === undefined) return unsupported(`the number format ${schema._zod.def.format}`);
    const [min, max] = range;
    return (v) => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max && passes(v);
  }
  if (schema instanceof z.core.$ZodNumber)
    return (v) => typeof v === "number" && Number.isFinite(v) && passes(v);
  if (schema instanceof z.core.$ZodBoolean) {
    if (refinements.length > 0) unsupported("a check of a boolean");
    return (v) => typeof v === "boolean";
  }
  return unsupported(`the zod type ${schema._zod.def.type}`);
}
