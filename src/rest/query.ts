// The list parameters of the compute API: `filter` (a documented subset of its grammar), `orderBy`,
// and `maxResults`/`pageToken` paging. Pure: handlers fetch everything, then `page()` does the rest.
import { createHash } from "node:crypto";
import { InvalidError } from "./errors.js";

export interface Comparison {
  readonly field: string;
  readonly op: "=" | "!=";
  readonly value: string;
}

/** A filter is a conjunction of comparisons; the empty filter matches everything. */
export type Filter = readonly Comparison[];

function filterError(message: string): InvalidError {
  return new InvalidError(`Invalid value for field 'filter': ${message}`, [
    {
      message: `Invalid value for field 'filter': ${message}`,
      location: "filter",
      locationType: "parameter",
    },
  ]);
}

type Token =
  | { readonly kind: "word"; readonly text: string }
  | { readonly kind: "string"; readonly text: string }
  | { readonly kind: "op"; readonly text: "=" | "!=" }
  | { readonly kind: "paren"; readonly text: "(" | ")" };

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (/\s/.test(c)) {
      i++;
    } else if (c === "(" || c === ")") {
      tokens.push({ kind: "paren", text: c });
      i++;
    } else if (c === "=") {
      tokens.push({ kind: "op", text: "=" });
      i++;
    } else if (c === "!" && text.charAt(i + 1) === "=") {
      tokens.push({ kind: "op", text: "!=" });
      i += 2;
    } else if (c === '"' || c === "'") {
      let value = "";
      let j = i + 1;
      for (; j < text.length && text.charAt(j) !== c; j++) {
        // A backslash escapes the next character, including the quote.
        if (text.charAt(j) === "\\" && j + 1 < text.length) j++;
        value += text.charAt(j);
      }
      if (j >= text.length) throw filterError(`unterminated string starting at position ${i}`);
      tokens.push({ kind: "string", text: value });
      i = j + 1;
    } else {
      const match = /^[^\s()=!"']+/.exec(text.slice(i));
      if (!match) throw filterError(`unexpected character '${c}' at position ${i}`);
      tokens.push({ kind: "word", text: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}

/**
 * Parses `field = value`, `field != value`, joined with `AND` or by juxtaposition of parenthesised
 * comparisons (`(a = 1) (b != "x y")`). Values are bare words or quoted strings; fields are dotted
 * paths. Anything else (OR, NOT, regular expressions, `:`, `<`, …) is rejected.
 */
export function parseFilter(text: string | undefined): Filter {
  if (text === undefined || text.trim() === "") return [];
  const tokens = tokenize(text);
  const comparisons: Comparison[] = [];
  let i = 0;
  const next = (): Token | undefined => tokens[i++];
  const comparison = (): Comparison => {
    const field = next();
    if (field?.kind !== "word" || !FIELD.test(field.text))
      throw filterError(`expected a field name${field ? `, found '${field.text}'` : ""}`);
    const op = next();
    if (op?.kind !== "op")
      throw filterError(`expected = or != after '${field.text}'${op ? `, found '${op.text}'` : ""}`);
    const value = next();
    if (value?.kind !== "word" && value?.kind !== "string")
      throw filterError(`expected a value after '${field.text} ${op.text}'`);
    return { field: field.text, op: op.text, value: value.text };
  };
  while (i < tokens.length) {
    if (comparisons.length > 0) {
      const t = tokens[i];
      if (t?.kind === "word" && t.text === "AND") i++;
      else if (t?.kind === "word" && (t.text === "OR" || t.text === "NOT"))
        throw filterError(`${t.text} is not supported; only AND`);
      else if (t?.kind !== "paren" || t.text !== "(")
        throw filterError(`expected AND or '(' , found '${t?.text ?? ""}'`);
    }
    if (tokens[i]?.kind === "paren" && tokens[i]?.text === "(") {
      i++;
      comparisons.push(comparison());
      const close = next();
      if (close?.kind !== "paren" || close.text !== ")") throw filterError("expected ')'");
    } else {
      comparisons.push(comparison());
    }
  }
  return comparisons;
}

/** The scalar at a dotted path, as filter text (numbers and booleans in JSON form). */
function valueAt(obj: unknown, path: string): string | undefined {
  let value: unknown = obj;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

export function matches(obj: unknown, filter: Filter): boolean {
  return filter.every((c) => (valueAt(obj, c.field) === c.value) === (c.op === "="));
}

export interface OrderBy {
  readonly field: string;
  readonly descending: boolean;
}

/** `orderBy`: one field, optionally followed by `asc` or `desc`; defaults to `name` ascending. */
export function parseOrderBy(text: string | undefined): OrderBy {
  if (text === undefined || text.trim() === "") return { field: "name", descending: false };
  const [field = "", direction, ...rest] = text.trim().split(/\s+/);
  if (!FIELD.test(field) || rest.length > 0 || (direction !== undefined && !/^(asc|desc)$/.test(direction)))
    throw new InvalidError(`Invalid value for field 'orderBy': ${text}`, [
      {
        message: `Invalid value for field 'orderBy': expected 'FIELD [asc|desc]', got '${text}'`,
        location: "orderBy",
        locationType: "parameter",
      },
    ]);
  return { field, descending: direction === "desc" };
}

const DIGITS = /^\d+$/;

function compare(a: unknown, b: unknown, order: OrderBy): number {
  const x = valueAt(a, order.field) ?? "";
  const y = valueAt(b, order.field) ?? "";
  const text = x < y ? -1 : x > y ? 1 : 0;
  // Integers (uint64 ids are decimal strings) compare numerically: shorter is smaller.
  const result = DIGITS.test(x) && DIGITS.test(y) ? x.length - y.length || text : text;
  return order.descending ? -result : result;
}

export interface PageRequest {
  readonly filter?: string;
  readonly orderBy?: string;
  readonly maxResults: number;
  readonly pageToken?: string;
  /** What is being listed (e.g. the collection path): a token is only valid for the same listing. */
  readonly scope: string;
}

export interface Page<T> {
  readonly items: T[];
  readonly nextPageToken?: string;
}

/** A token names the position in one listing, bound to its scope, filter and order. */
function fingerprint(req: PageRequest): string {
  return createHash("sha256")
    .update(JSON.stringify([req.scope, req.filter ?? "", req.orderBy ?? ""]))
    .digest("base64url")
    .slice(0, 16);
}

function badToken(): InvalidError {
  return new InvalidError("Invalid value for field 'pageToken'", [
    {
      message: "Invalid value for field 'pageToken': it does not belong to this listing",
      location: "pageToken",
      locationType: "parameter",
    },
  ]);
}

function encodePageToken(offset: number, req: PageRequest): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint(req) })).toString("base64url");
}

export function decodePageToken(token: string | undefined, req: PageRequest): number {
  if (token === undefined || token === "") return 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw badToken();
  }
  const { o, f } = (parsed ?? {}) as { o?: unknown; f?: unknown };
  if (typeof o !== "number" || !Number.isInteger(o) || o < 0 || f !== fingerprint(req)) throw badToken();
  return o;
}

/** Filters, sorts and cuts one page out of `all`. */
export function page<T>(all: readonly T[], req: PageRequest): Page<T> {
  const filter = parseFilter(req.filter);
  const order = parseOrderBy(req.orderBy);
  const offset = decodePageToken(req.pageToken, req);
  const selected = all.filter((item) => matches(item, filter)).sort((a, b) => compare(a, b, order));
  // maxResults 0 is allowed by the API and, as there, means the default page size.
  const size = req.maxResults === 0 ? 500 : req.maxResults;
  const items = selected.slice(offset, offset + size);
  const end = offset + items.length;
  return {
    items,
    ...(end < selected.length && { nextPageToken: encodePageToken(end, req) }),
  };
}
