// The metadata convention of the model. Every schema field carries its documentation and whatever its
// projections need (CRD, discovery document, Markdown reference) as zod metadata, so the zod schema
// is the only place a field is described. Projections read it back through `fieldTree()`.
import { z } from "zod";

/** A CEL rule for the CRD (`x-kubernetes-validations`), in the API server's own shape. */
export interface CelRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?:
    "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  /** Relative path (`.resizeBy`) of the field the error is reported on. */
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

/**
 * Wire formats beyond what zod itself records. Strings carrying 64-bit integers follow the Google
 * JSON convention (`type: string, format: int64|uint64`), which the discovery document must state.
 */
export type WireFormat =
  "int64" | "uint64" | "google-datetime" | "google-duration" | "byte" | "google.protobuf.Any";

declare module "zod" {
  interface GlobalMeta {
    /** Wire format of a string field (numbers and timestamps get theirs from the zod type). */
    format?: WireFormat;
    /** Describes each value of an enum; the discovery document lists them as `enumDescriptions`. */
    enumDescriptions?: Readonly<Record<string, string>>;
    /** Set by the server, ignored in requests (`[Output Only]` in the discovery document). */
    outputOnly?: boolean;
    /** CEL rules the API server enforces; added with `rule()` so REST validation runs the same check. */
    validations?: readonly CelRule[];
    /** `x-kubernetes-list-type`: `set` for unique scalars, `map` for lists keyed by `listMapKeys`. */
    listType?: "atomic" | "set" | "map";
    listMapKeys?: readonly string[];
    /** `maxProperties` of a map; set with `boundedMap()` so zod enforces it too. */
    maxProperties?: number;
    /** Where a type defined elsewhere (Kubernetes ObjectMeta) is documented; references link there. */
    docsUrl?: string;
    /** Name of this object schema in the discovery document and the API reference. */
    schemaId?: string;
  }
}

export interface RuleSpec<T> {
  /** CEL expression evaluated by the API server with `self` (and `oldSelf` for transition rules). */
  readonly cel: string;
  readonly message: string;
  readonly reason?: CelRule["reason"];
  readonly fieldPath?: string;
  /**
   * The same rule in TypeScript, for REST bodies and for objects the controller writes. Omitted only
   * for transition rules, which compare with the stored object and so cannot run on a lone value.
   */
  readonly test?: (value: T) => boolean;
}

/**
 * Attaches one rule to a schema twice: as CEL for the CRD and as a zod refinement with the same
 * message, so kubectl and REST users see the same error for the same mistake.
 */
export function rule<S extends z.ZodType>(schema: S, spec: RuleSpec<z.output<S>>): S {
  const { cel, message, reason, fieldPath, test } = spec;
  const path = fieldPath === undefined ? undefined : fieldPath.replace(/^\./, "").split(".");
  const refined = test === undefined ? schema : schema.refine(test, { message, path });
  const previous = refined.meta()?.validations ?? [];
  const celRule: CelRule = { rule: cel, message, ...(reason && { reason }), ...(fieldPath && { fieldPath }) };
  return refined.meta({ validations: [...previous, celRule] });
}

/** A list of unique scalars: `x-kubernetes-list-type: set` for the API server, a refinement for zod. */
export function uniqueList<S extends z.ZodArray>(schema: S, message: string): S {
  return schema
    .refine((items: readonly unknown[]) => new Set(items).size === items.length, { message })
    .meta({ listType: "set" });
}

/** A map with at most `max` entries: `maxProperties` for the API server, a refinement for zod. */
export function boundedMap<S extends z.ZodRecord>(schema: S, max: number): S {
  return schema
    .refine((map: Readonly<Record<string, unknown>>) => Object.keys(map).length <= max, {
      message: `must have at most ${max} entries`,
    })
    .meta({ maxProperties: max });
}

/** A CEL string literal (single-quoted; backslashes and quotes escaped), e.g. for a regex pattern. */
export function celString(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}
