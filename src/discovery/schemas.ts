// The model's field trees as discovery Schema objects, in Google's JSON conventions: named objects
// collected once by schemaId and referenced with $ref, scalars with their format and bounds as text,
// output-only fields marked "[Output Only]".
import type { FieldNode } from "../api/index.js";
import type { DiscoverySchema } from "./format.js";

/** Google's convention for fields clients cannot set. */
function describe(node: FieldNode): string | undefined {
  if (node.description === undefined) return node.outputOnly ? "[Output Only]" : undefined;
  return node.outputOnly ? `[Output Only] ${node.description}` : node.description;
}

/** Discovery states defaults as text: scalars as written, anything else as JSON. */
function defaultText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Collects object schemas by schemaId while converting field trees. */
export class SchemaSet {
  readonly schemas: Record<string, DiscoverySchema> = {};
  private readonly shapes = new Map<string, string>();

  /** A reference to a named schema, defining it on first sight. */
  ref(node: FieldNode): DiscoverySchema {
    const id = node.schemaId;
    if (id === undefined) return this.convert(node);
    // One id, one shape: two different objects sharing a schemaId would make one of them wrong.
    const shape = JSON.stringify(Object.keys(node.properties ?? {}));
    const known = this.shapes.get(id);
    if (known === undefined) {
      this.shapes.set(id, shape);
      // The definition is described as a type, not as this particular use of it.
      const { description, ...definition } = this.convert(node);
      const typeDescription = node.schemaDescription ?? description;
      this.schemas[id] = {
        id,
        ...definition,
        ...(typeDescription !== undefined && { description: typeDescription }),
      };
    } else if (known !== shape) throw new Error(`schemaId ${id} names two different objects`);
    const description = describe(node);
    return { $ref: id, ...(description !== undefined && { description }) };
  }

  /** A field tree as a discovery Schema; named objects below it become references. */
  convert(node: FieldNode): DiscoverySchema {
    const description = describe(node);
    const common: DiscoverySchema = {
      ...(description !== undefined && { description }),
      ...(node.default !== undefined && { default: defaultText(node.default) }),
      ...(node.deprecated && { deprecated: true }),
    };
    switch (node.type) {
      case "object":
        return {
          type: "object",
          ...common,
          properties: Object.fromEntries(
            Object.entries(node.properties ?? {}).map(([key, child]) => [key, this.ref(child)]),
          ),
        };
      case "map":
        if (!node.values) throw new Error("a map without a value schema");
        return {
          type: "object",
          ...(node.format !== undefined && { format: node.format }),
          ...common,
          additionalProperties: this.ref(node.values),
        };
      case "array":
        if (!node.items) throw new Error("an array without an element schema");
        return { type: "array", ...common, items: this.ref(node.items) };
      default:
        return { ...scalar(node), ...common };
    }
  }
}

/** Type, format and constraints of a scalar, in Google's JSON conventions. */
function scalar(node: FieldNode): DiscoverySchema {
  const bounds = {
    ...(node.minimum !== undefined && { minimum: String(node.minimum) }),
    ...(node.maximum !== undefined && { maximum: String(node.maximum) }),
  };
  const enumeration = node.enum && {
    enum: [...node.enum],
    ...(node.enumDescriptions && { enumDescriptions: [...node.enumDescriptions] }),
    // The model deprecates no enum value; the flags say so explicitly.
    enumDeprecated: node.enum.map(() => false),
  };
  switch (node.type) {
    case "string":
      return {
        type: "string",
        // Google's documents state RFC 3339 timestamps as plain strings (`google-datetime` is a
        // different, explicitly modelled format).
        ...(node.format !== undefined && node.format !== "date-time" && { format: node.format }),
        ...(node.pattern !== undefined && { pattern: node.pattern }),
        ...enumeration,
      };
    case "integer":
      // 64-bit integers travel as strings in Google JSON; the REST model declares them as strings.
      if (node.format !== "int32" && node.format !== "uint32")
        throw new Error(`integer format ${node.format ?? "none"} in a REST schema`);
      return { type: "integer", format: node.format, ...bounds };
    case "number":
      return { type: "number", format: "double", ...bounds };
    case "boolean":
      return { type: "boolean" };
    case "any":
      return { type: "any" };
    default:
      throw new Error(`not a scalar: ${node.type}`);
  }
}
