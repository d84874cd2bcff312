// Field-by-field comparison of our discovery document with Google's official compute v1 document,
// limited to what a generated client or a wire peer depends on: method ids, paths, HTTP methods,
// parameters (name, type, format, location, required, repeated, enum, pattern), request and response
// schemas, every schema reachable from them (with their enums), and the standard top-level
// parameters. Enums are compared as sets: generated clients make types or checks of the values, not
// of their order. Descriptions, defaults and bounds are documentation and are not compared.
//
// Each difference is one line starting with a stable dotted path (what the allowlist matches by
// prefix), e.g. `schemas.Operation.properties.region: missing in ours`.

/** The part of a discovery Schema the comparison reads. */
export interface SchemaLike {
  readonly $ref?: string;
  readonly type?: string;
  readonly format?: string;
  readonly pattern?: string;
  readonly enum?: readonly string[];
  readonly location?: string;
  readonly required?: boolean;
  readonly repeated?: boolean;
  readonly properties?: Readonly<Record<string, SchemaLike>>;
  readonly items?: SchemaLike;
  readonly additionalProperties?: SchemaLike;
}

export interface MethodLike {
  readonly id?: string;
  readonly path?: string;
  readonly flatPath?: string;
  readonly httpMethod?: string;
  readonly parameterOrder?: readonly string[];
  readonly parameters?: Readonly<Record<string, SchemaLike>>;
  readonly request?: { readonly $ref?: string };
  readonly response?: { readonly $ref?: string };
}

export interface DocumentLike {
  readonly name?: string;
  readonly parameters?: Readonly<Record<string, SchemaLike>>;
  readonly schemas?: Readonly<Record<string, SchemaLike>>;
  readonly resources?: Readonly<Record<string, { readonly methods?: Readonly<Record<string, MethodLike>> }>>;
}

const show = (value: unknown): string => (value === undefined ? "(absent)" : JSON.stringify(value));

class Comparison {
  readonly differences = new Set<string>();
  /** Schema pairs (ours|official) already compared: schemas are recursive (Operation.error…). */
  private readonly pairs = new Set<string>();

  constructor(
    private readonly ours: DocumentLike,
    private readonly official: DocumentLike,
  ) {}

  add(path: string, text: string): void {
    this.differences.add(`${path}: ${text}`);
  }

  value(path: string, ours: unknown, official: unknown): void {
    if (JSON.stringify(ours) !== JSON.stringify(official))
      this.add(path, `ours ${show(ours)} official ${show(official)}`);
  }

  /** Values one side has and the other lacks; an enum on one side only is reported whole. */
  enumValues(
    path: string,
    ours: readonly string[] | undefined,
    official: readonly string[] | undefined,
  ): void {
    if (ours === undefined || official === undefined) {
      this.value(path, ours, official);
      return;
    }
    const lacks = official.filter((v) => !ours.includes(v)).sort();
    const adds = ours.filter((v) => !official.includes(v)).sort();
    // Additions first, so an allowlist line ending in `: ours lacks` covers a strict subset only.
    const parts = [
      ...(adds.length > 0 ? [`ours adds ${show(adds)}`] : []),
      ...(lacks.length > 0 ? [`ours lacks ${show(lacks)}`] : []),
    ];
    if (parts.length > 0) this.add(path, parts.join(", "));
  }

  /** Keys present on one side only are reported; `both` is called for the others. */
  keys<T>(
    path: string,
    ours: Readonly<Record<string, T>> | undefined,
    official: Readonly<Record<string, T>> | undefined,
    both: (key: string, ours: T, official: T) => void,
  ): void {
    const names = new Set([...Object.keys(ours ?? {}), ...Object.keys(official ?? {})]);
    for (const key of [...names].sort()) {
      const a = ours?.[key];
      const b = official?.[key];
      if (a === undefined) this.add(`${path}.${key}`, "missing in ours");
      else if (b === undefined) this.add(`${path}.${key}`, "missing in official");
      else both(key, a, b);
    }
  }

  /** Two named schemas, compared once per pair under the official name. */
  schemaPair(ours: string, official: string): void {
    const key = `${ours}|${official}`;
    if (this.pairs.has(key)) return;
    this.pairs.add(key);
    const a = this.ours.schemas?.[ours];
    const b = this.official.schemas?.[official];
    if (a === undefined) this.add(`schemas.${ours}`, "referenced but not defined in ours");
    else if (b === undefined) this.add(`schemas.${official}`, "referenced but not defined in official");
    else this.shape(`schemas.${official}`, a, b);
  }

  /** A property, item or map value: a reference or an inline schema on either side. */
  node(path: string, ours: SchemaLike, official: SchemaLike): void {
    const a = ours.$ref;
    const b = official.$ref;
    if (a !== undefined && b !== undefined) {
      this.value(`${path}.$ref`, a, b);
      this.schemaPair(a, b);
      return;
    }
    if (a !== undefined || b !== undefined)
      this.add(
        path,
        a !== undefined ? `ours $ref ${show(a)} official inline` : `ours inline official $ref ${show(b)}`,
      );
    // Either way the shapes are compared too, so an inline copy that drifted shows where.
    const resolve = (schema: SchemaLike, doc: DocumentLike): SchemaLike =>
      schema.$ref === undefined ? schema : (doc.schemas?.[schema.$ref] ?? {});
    this.shape(path, resolve(ours, this.ours), resolve(official, this.official));
  }

  shape(path: string, ours: SchemaLike, official: SchemaLike): void {
    this.value(`${path}.type`, ours.type, official.type);
    this.value(`${path}.format`, ours.format, official.format);
    this.enumValues(`${path}.enum`, ours.enum, official.enum);
    this.keys(`${path}.properties`, ours.properties, official.properties, (name, a, b) => {
      this.node(`${path}.properties.${name}`, a, b);
    });
    this.optional(`${path}.items`, ours.items, official.items);
    this.optional(`${path}.additionalProperties`, ours.additionalProperties, official.additionalProperties);
  }

  optional(path: string, ours: SchemaLike | undefined, official: SchemaLike | undefined): void {
    if (ours === undefined && official === undefined) return;
    if (ours === undefined) this.add(path, "missing in ours");
    else if (official === undefined) this.add(path, "missing in official");
    else this.node(path, ours, official);
  }

  parameter(path: string, ours: SchemaLike, official: SchemaLike): void {
    this.value(`${path}.type`, ours.type, official.type);
    this.value(`${path}.format`, ours.format, official.format);
    this.value(`${path}.location`, ours.location, official.location);
    this.value(`${path}.required`, ours.required ?? false, official.required ?? false);
    this.value(`${path}.repeated`, ours.repeated ?? false, official.repeated ?? false);
    this.enumValues(`${path}.enum`, ours.enum, official.enum);
    this.value(`${path}.pattern`, ours.pattern, official.pattern);
  }

  body(path: string, ours: { $ref?: string } | undefined, official: { $ref?: string } | undefined): void {
    if (ours === undefined && official === undefined) return;
    if (ours?.$ref === undefined) {
      this.add(path, "missing in ours");
      return;
    }
    if (official?.$ref === undefined) {
      this.add(path, "missing in official");
      return;
    }
    this.value(`${path}.$ref`, ours.$ref, official.$ref);
    this.schemaPair(ours.$ref, official.$ref);
  }

  method(path: string, ours: MethodLike, official: MethodLike): void {
    for (const field of ["id", "path", "flatPath", "httpMethod", "parameterOrder"] as const)
      this.value(`${path}.${field}`, ours[field], official[field]);
    this.keys(`${path}.parameters`, ours.parameters, official.parameters, (name, a, b) => {
      this.parameter(`${path}.parameters.${name}`, a, b);
    });
    this.body(`${path}.request`, ours.request, official.request);
    this.body(`${path}.response`, ours.response, official.response);
  }
}

/**
 * The differences between `ours` and `official` for the resources in `served` (normally the keys of
 * our document's `resources`), sorted. Empty means wire-identical for everything compared.
 */
export function compareDiscovery(
  official: DocumentLike,
  ours: DocumentLike,
  served: readonly string[],
): string[] {
  const comparison = new Comparison(ours, official);
  const api = official.name ?? "compute";
  for (const resource of [...served].sort()) {
    const a = ours.resources?.[resource];
    const b = official.resources?.[resource];
    if (b === undefined) {
      comparison.add(`resources.${resource}`, "missing in official");
      continue;
    }
    if (a === undefined) {
      comparison.add(`resources.${resource}`, "missing in ours");
      continue;
    }
    comparison.keys(`methods.${api}.${resource}`, a.methods, b.methods, (name, x, y) => {
      comparison.method(`methods.${api}.${resource}.${name}`, x, y);
    });
  }
  comparison.keys("parameters", ours.parameters, official.parameters, (name, a, b) => {
    comparison.value(`parameters.${name}.type`, a.type, b.type);
    comparison.value(`parameters.${name}.location`, a.location, b.location);
  });
  return [...comparison.differences].sort();
}

export interface AllowlistEntry {
  readonly prefix: string;
  readonly reason: string;
  readonly line: number;
}

/** `<difference path prefix>\t<reason>` lines; `#` comments and blank lines are skipped. */
export function parseAllowlist(text: string): AllowlistEntry[] {
  const entries: AllowlistEntry[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    if (line.trim() === "" || line.trimStart().startsWith("#")) return;
    const [prefix, reason, ...rest] = line.split("\t");
    if (!prefix || !reason?.trim() || rest.length > 0)
      throw new Error(`allowlist line ${index + 1}: expected "<difference path prefix><TAB><reason>"`);
    entries.push({ prefix, reason: reason.trim(), line: index + 1 });
  });
  return entries;
}

/**
 * Whole path segments (or words after the colon) only: `...zoneOperations.get` covers `.get.path` but
 * not `.getStatus`. A `*` stands for any one path segment, for a difference repeated across methods
 * or schemas.
 */
function covers(prefix: string, difference: string): boolean {
  const segment = "[^.:]+";
  const pattern = prefix
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(segment);
  const boundary = /[.: ]$/.test(prefix) ? "" : "(?=$|[.: ])";
  return new RegExp(`^${pattern}${boundary}`).test(difference);
}

/** Differences no entry covers, and entries that cover no difference (stale). */
export function applyAllowlist(
  differences: readonly string[],
  entries: readonly AllowlistEntry[],
): { unexplained: string[]; stale: AllowlistEntry[] } {
  const used = new Set<AllowlistEntry>();
  const unexplained = differences.filter((difference) => {
    const matching = entries.filter((e) => covers(e.prefix, difference));
    for (const entry of matching) used.add(entry);
    return matching.length === 0;
  });
  return { unexplained, stale: entries.filter((e) => !used.has(e)) };
}
