// Reads a zod schema of the model back as a plain tree of fields: type, constraints and metadata.
// Every projection (CRD, API reference, discovery document) walks this tree instead of zod's
// internals, and the tree accepts only the zod constructs the model uses, so an unsupported construct
// fails generation instead of silently producing a looser schema.
import { z } from "zod";
import type { CelRule, WireFormat } from "./meta.js";

export type FieldType = "object" | "array" | "map" | "string" | "integer" | "number" | "boolean" | "any";
export type FieldFormat = WireFormat | "int32" | "uint32" | "double" | "date-time";

export interface FieldNode {
  readonly type: FieldType;
  readonly description?: string;
  readonly format?: FieldFormat;
  readonly schemaId?: string;
  /**
   * With `schemaId`: the description of the named type itself. `description` is that of this use of
   * it, which a field's own `.meta({ description })` overrides.
   */
  readonly schemaDescription?: string;
  readonly docsUrl?: string;
  readonly enum?: readonly string[];
  /** Aligned with `enum`: entry i describes value i. */
  readonly enumDescriptions?: readonly string[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly default?: unknown;
  readonly outputOnly: boolean;
  readonly deprecated: boolean;
  readonly validations: readonly CelRule[];
  readonly listType?: "atomic" | "set" | "map";
  readonly listMapKeys?: readonly string[];
  /** Object properties in declaration order, and which of them are required. */
  readonly properties?: Readonly<Record<string, FieldNode>>;
  readonly required?: readonly string[];
  /** Array element. */
  readonly items?: FieldNode;
  /** Map keys (always strings; their constraints) and values. */
  readonly keys?: FieldNode;
  readonly values?: FieldNode;
}

type Meta = NonNullable<ReturnType<typeof z.globalRegistry.get>>;

/** The field tree of a schema. */
export function fieldTree(schema: z.core.$ZodType): FieldNode {
  return walk(schema, {});
}

/** Whether an object property may be omitted (optional, or defaulted by the server). */
function isOptional(schema: z.core.$ZodType): boolean {
  return schema instanceof z.core.$ZodOptional || schema instanceof z.core.$ZodDefault;
}

function walk(schema: z.core.$ZodType, outer: Meta): FieldNode {
  // Wrappers carry metadata of their own (`.optional().meta(…)`); the outermost wins.
  const meta: Meta = { ...z.globalRegistry.get(schema), ...outer };
  if (schema instanceof z.core.$ZodOptional) return walk(schema._zod.def.innerType, meta);
  if (schema instanceof z.core.$ZodDefault) {
    return { ...walk(schema._zod.def.innerType, meta), default: schema._zod.def.defaultValue };
  }
  const base = {
    outputOnly: meta.outputOnly ?? false,
    deprecated: meta.deprecated ?? false,
    validations: meta.validations ?? [],
    ...(meta.description !== undefined && { description: meta.description }),
    ...(meta.schemaId !== undefined && { schemaId: meta.schemaId }),
    ...typeDescription(schema, meta.schemaId),
    ...(meta.docsUrl !== undefined && { docsUrl: meta.docsUrl }),
  };
  if (schema instanceof z.core.$ZodObject) {
    const shape = schema._zod.def.shape;
    const properties = Object.fromEntries(
      Object.entries(shape).map(([key, value]) => [key, walk(value, {})]),
    );
    const required = Object.keys(shape).filter((key) => !isOptional(shape[key] as z.core.$ZodType));
    return { ...base, type: "object", properties, ...(required.length > 0 && { required }) };
  }
  if (schema instanceof z.core.$ZodString) {
    return { ...base, type: "string", ...stringConstraints(schema, meta.format) };
  }
  if (schema instanceof z.core.$ZodNumber) return { ...base, ...numberConstraints(schema) };
  if (schema instanceof z.core.$ZodBoolean) return { ...base, type: "boolean" };
  if (schema instanceof z.core.$ZodEnum) {
    const values = Object.values(schema._zod.def.entries).map(String);
    return { ...base, type: "string", ...enumeration(values, meta.enumDescriptions) };
  }
  if (schema instanceof z.core.$ZodLiteral) {
    return {
      ...base,
      type: "string",
      ...enumeration(schema._zod.def.values.map(String), meta.enumDescriptions),
    };
  }
  if (schema instanceof z.core.$ZodArray) {
    const { minimum, maximum } = lengthBounds(schema);
    return {
      ...base,
      type: "array",
      items: walk(schema._zod.def.element, {}),
      ...(minimum !== undefined && { minItems: minimum }),
      ...(maximum !== undefined && { maxItems: maximum }),
      ...(meta.listType !== undefined && { listType: meta.listType }),
      ...(meta.listMapKeys !== undefined && { listMapKeys: meta.listMapKeys }),
    };
  }
  if (schema instanceof z.core.$ZodRecord) {
    return {
      ...base,
      type: "map",
      ...(meta.format !== undefined && { format: meta.format }),
      keys: walk(schema._zod.def.keyType, {}),
      values: walk(schema._zod.def.valueType, {}),
      ...(meta.maxProperties !== undefined && { maxProperties: meta.maxProperties }),
    };
  }
  if (schema instanceof z.core.$ZodUnknown) return { ...base, type: "any" };
  throw new Error(`the API model does not support zod type ${schema._zod.def.type}`);
}

/**
 * The description registered where a schema got its schemaId. zod clones (`.meta()`, `.refine()`)
 * inherit metadata from the schema they were made from, so the first ancestor that has the
 * schemaId while its own parent does not is the named type's definition.
 */
function typeDescription(schema: z.core.$ZodType, schemaId: string | undefined) {
  if (schemaId === undefined) return {};
  let definition = schema;
  for (let parent = schema._zod.parent; parent; parent = parent._zod.parent) {
    if (z.globalRegistry.get(parent)?.schemaId !== schemaId) break;
    definition = parent;
  }
  const description = z.globalRegistry.get(definition)?.description;
  return description === undefined ? {} : { schemaDescription: description };
}

function enumeration(values: string[], descriptions: Readonly<Record<string, string>> | undefined) {
  return {
    enum: values,
    ...(descriptions !== undefined && { enumDescriptions: values.map((v) => descriptions[v] ?? "") }),
  };
}

function lengthBounds(schema: z.core.$ZodType): { minimum?: number; maximum?: number } {
  let minimum: number | undefined;
  let maximum: number | undefined;
  for (const check of schema._zod.def.checks ?? []) {
    if (check instanceof z.core.$ZodCheckMinLength) minimum = check._zod.def.minimum;
    if (check instanceof z.core.$ZodCheckMaxLength) maximum = check._zod.def.maximum;
  }
  return { minimum, maximum };
}

function stringConstraints(schema: z.core.$ZodString, wireFormat: WireFormat | undefined) {
  const { minimum, maximum } = lengthBounds(schema);
  const patterns: string[] = [];
  let format: FieldFormat | undefined = wireFormat;
  const formats = [schema._zod.def, ...(schema._zod.def.checks ?? []).map((c) => c._zod.def)];
  for (const def of formats) {
    if (!("format" in def) || typeof def.format !== "string") continue;
    if (def.format === "regex" && "pattern" in def && def.pattern instanceof RegExp)
      patterns.push(def.pattern.source);
    else if (def.format === "datetime") format = "date-time";
    else throw new Error(`the API model does not support string format ${def.format}`);
  }
  // The API server accepts a single pattern per field; two would need a CEL rule instead.
  if (patterns.length > 1)
    throw new Error(`a string field has ${patterns.length} patterns: ${patterns.join(", ")}`);
  return {
    ...(format !== undefined && { format }),
    ...(patterns[0] !== undefined && { pattern: patterns[0] }),
    ...(minimum !== undefined && { minLength: minimum }),
    ...(maximum !== undefined && { maxLength: maximum }),
  };
}

function numberConstraints(schema: z.core.$ZodNumber) {
  const def = schema._zod.def;
  const format = "format" in def && typeof def.format === "string" ? def.format : undefined;
  let minimum: number | undefined;
  let maximum: number | undefined;
  for (const check of def.checks ?? []) {
    if (check instanceof z.core.$ZodCheckGreaterThan || check instanceof z.core.$ZodCheckLessThan) {
      const { value, inclusive } = check._zod.def;
      // Exclusive bounds have no place in the wire formats this model projects to.
      if (!inclusive) throw new Error("the API model supports inclusive numeric bounds only");
      if (check instanceof z.core.$ZodCheckGreaterThan) minimum = Number(value);
      else maximum = Number(value);
    }
  }
  const bounds = { ...(minimum !== undefined && { minimum }), ...(maximum !== undefined && { maximum }) };
  if (format === "int32") return { type: "integer" as const, format: "int32" as const, ...bounds };
  if (format === "uint32") return { type: "integer" as const, format: "uint32" as const, ...bounds };
  if (format === "safeint") return { type: "integer" as const, format: "int64" as const, ...bounds };
  if (format === undefined) return { type: "number" as const, format: "double" as const, ...bounds };
  throw new Error(`the API model does not support number format ${format}`);
}
