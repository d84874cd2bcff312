// Partial responses: the `fields` system parameter in Google's field-mask syntax. `a,b` selects
// fields, `a/b` a field of a field, `a(b,c)` several fields of a field, `*` every field of an
// object; a selection applies to every element of an array (`items(name,state)`), and a map's keys
// are selected like fields. Parsed once per call, checked against the response schema before the handler runs (so a
// typo does not cost a mutation), then applied to the response body.
import type { FieldNode } from "../api/index.js";
import { RestError } from "./errors.js";

/** Field name → the selection below it; `true` keeps the whole field. */
export type FieldMask = ReadonlyMap<string, FieldMask | true>;

function fieldsError(message: string): RestError {
  return new RestError(400, "invalidParameter", message, [
    { message, location: "fields", locationType: "parameter" },
  ]);
}

const NAME = /^(\*|[A-Za-z0-9_$@.-]+)$/;

function merge(into: Map<string, FieldMask | true>, name: string, selection: FieldMask | true): void {
  const existing = into.get(name);
  if (existing === undefined) into.set(name, selection);
  // Selecting a whole field wins over selecting part of it.
  else if (existing === true || selection === true) into.set(name, true);
  else {
    const combined = new Map(existing);
    for (const [k, v] of selection) merge(combined, k, v);
    into.set(name, combined);
  }
}

/** Parses a `fields` value; an empty value selects everything (undefined). */
export function parseFieldMask(text: string | undefined): FieldMask | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  let i = 0;
  const fail = (what: string): never => {
    throw fieldsError(`Invalid field selection ${text}: ${what} at position ${i}`);
  };
  const name = (): string => {
    const match = /^[^,/()]*/.exec(text.slice(i));
    const word = (match?.[0] ?? "").trim();
    if (!NAME.test(word)) fail(word === "" ? "expected a field name" : `invalid field name '${word}'`);
    i += match?.[0].length ?? 0;
    return word;
  };
  // One entry: a/b/c, optionally followed by (sub-selection).
  const entry = (into: Map<string, FieldMask | true>): void => {
    const path = [name()];
    while (text.charAt(i) === "/") {
      i++;
      path.push(name());
    }
    let selection: FieldMask | true = true;
    if (text.charAt(i) === "(") {
      i++;
      selection = list();
      if (text.charAt(i) !== ")") fail("expected ')'");
      i++;
    }
    for (const key of path.slice(1).reverse()) selection = new Map([[key, selection]]);
    merge(into, path[0] ?? "", selection);
  };
  const list = (): FieldMask => {
    const mask = new Map<string, FieldMask | true>();
    entry(mask);
    while (text.charAt(i) === ",") {
      i++;
      entry(mask);
    }
    return mask;
  };
  const mask = list();
  if (i < text.length) fail(`unexpected '${text.charAt(i)}'`);
  return mask;
}

/** Throws `invalidParameter` when the mask names a field the response schema does not have. */
export function checkFieldMask(mask: FieldMask, node: FieldNode, prefix = ""): void {
  if (node.type === "array" && node.items) {
    checkFieldMask(mask, node.items, prefix);
    return;
  }
  if (node.type === "any") return;
  for (const [key, selection] of mask) {
    const path = prefix === "" ? key : `${prefix}/${key}`;
    // `*` matches every property, so there is nothing to check it against.
    if (node.type === "object" && key === "*") continue;
    const child = node.type === "map" ? node.values : node.properties?.[key];
    if (child === undefined) throw fieldsError(`Invalid field selection ${path}`);
    if (selection !== true) checkFieldMask(selection, child, path);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The parts of `value` the mask selects; fields it selects that are absent stay absent. */
export function applyFieldMask(value: unknown, mask: FieldMask): unknown {
  if (Array.isArray(value)) return value.map((element) => applyFieldMask(element, mask));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  const pick = (key: string, selection: FieldMask | true) => {
    if (!(key in value)) return;
    out[key] = selection === true ? value[key] : applyFieldMask(value[key], selection);
  };
  // Keys in the body's order, not the mask's, so a partial response reads like the full one.
  const all = mask.get("*");
  for (const key of Object.keys(value)) {
    const selection = mask.get(key);
    if (selection !== undefined) pick(key, selection);
    else if (all !== undefined) pick(key, all);
  }
  return out;
}
