// Model → CustomResourceDefinition (apiextensions.k8s.io/v1). The schema is structural: every node has
// a type, there is no $ref and no combinator, and every rule the model states in TypeScript reaches the
// API server as OpenAPI constraints or CEL.
import type { CustomResourceModel } from "../api/custom-resource.js";
import type { CelRule } from "../api/meta.js";
import { CATEGORY, GROUP, VERSION } from "../api/names.js";
import { fieldTree, type FieldNode } from "../api/tree.js";

/** The subset of JSONSchemaProps the generator emits, with the API server's own (wire) key names. */
export interface JSONSchemaProps {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  description?: string;
  format?: string;
  enum?: readonly string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  default?: unknown;
  required?: readonly string[];
  properties?: Record<string, JSONSchemaProps>;
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: readonly string[];
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-validations"?: readonly CelRule[];
}

export interface CustomResourceDefinition {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: readonly string[];
      categories: readonly string[];
    };
    scope: "Namespaced";
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: JSONSchemaProps };
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: {
        name: string;
        type: string;
        jsonPath: string;
        description: string;
        priority?: number;
      }[];
      selectableFields: { jsonPath: string }[];
    }[];
  };
}

export const PART_OF_LABELS = {
  "app.kubernetes.io/name": "resize-operator",
  "app.kubernetes.io/part-of": "resize-operator",
};

/** JSON Schema formats the API server knows for each type; wire-only formats (uint64 strings) are left out. */
const CRD_FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ["date-time"],
  integer: ["int32", "int64"],
  number: ["double"],
};

export function crdSchema(node: FieldNode): JSONSchemaProps {
  const out: JSONSchemaProps = {};
  const type = node.type === "map" ? "object" : node.type;
  if (type !== "any") out.type = type;
  if (node.description !== undefined)
    out.description = node.deprecated ? `Deprecated. ${node.description}` : node.description;
  if (node.format !== undefined && CRD_FORMATS[node.type]?.includes(node.format)) out.format = node.format;
  if (node.enum !== undefined) out.enum = node.enum;
  if (node.pattern !== undefined) out.pattern = node.pattern;
  if (node.minLength !== undefined) out.minLength = node.minLength;
  if (node.maxLength !== undefined) out.maxLength = node.maxLength;
  if (node.minimum !== undefined) out.minimum = node.minimum;
  if (node.maximum !== undefined) out.maximum = node.maximum;
  if (node.minItems !== undefined) out.minItems = node.minItems;
  if (node.maxItems !== undefined) out.maxItems = node.maxItems;
  if (node.maxProperties !== undefined) out.maxProperties = node.maxProperties;
  if (node.default !== undefined) out.default = node.default;
  if (node.required !== undefined) out.required = node.required;
  if (node.properties !== undefined) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, crdSchema(v)]));
  }
  if (node.items !== undefined) out.items = crdSchema(node.items);
  if (node.values !== undefined) out.additionalProperties = crdSchema(node.values);
  if (node.listType !== undefined) out["x-kubernetes-list-type"] = node.listType;
  if (node.listMapKeys !== undefined) out["x-kubernetes-list-map-keys"] = node.listMapKeys;
  if (node.type === "any") out["x-kubernetes-preserve-unknown-fields"] = true;
  if (node.validations.length > 0) out["x-kubernetes-validations"] = node.validations;
  return out;
}

/**
 * The root schema of a kind. apiVersion, kind and metadata belong to the API machinery, so they are
 * only described, except metadata.name, whose length bound lets the API server estimate the cost of the
 * root CEL rule that checks the name.
 */
function rootSchema(model: CustomResourceModel): JSONSchemaProps {
  const root = fieldTree(model.schema);
  const { apiVersion, kind, metadata, ...rest } = root.properties ?? {};
  if (apiVersion === undefined || kind === undefined || metadata === undefined) {
    throw new Error(`${model.names.kind}: the model must declare apiVersion, kind and metadata`);
  }
  const schema = crdSchema({ ...root, properties: rest, required: root.required?.filter((k) => k in rest) });
  return {
    ...schema,
    properties: {
      apiVersion: {
        type: "string",
        ...(apiVersion.description !== undefined && { description: apiVersion.description }),
      },
      kind: { type: "string", ...(kind.description !== undefined && { description: kind.description }) },
      // The API server allows nothing else here, not even a description.
      metadata: { type: "object", properties: { name: { type: "string", maxLength: 63 } } },
      ...schema.properties,
    },
  };
}

export function crdFor(model: CustomResourceModel): CustomResourceDefinition {
  const { names } = model;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${names.plural}.${GROUP}`, labels: PART_OF_LABELS },
    spec: {
      group: GROUP,
      names: {
        kind: names.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
        shortNames: names.shortNames,
        categories: [CATEGORY],
      },
      scope: "Namespaced",
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: rootSchema(model) },
          subresources: { status: {} },
          additionalPrinterColumns: model.printerColumns.map((c) => ({ ...c })),
          selectableFields: model.selectableFields.map((jsonPath) => ({ jsonPath })),
        },
      ],
    },
  };
}
