// Model → Markdown API reference (docs/api-reference.md). One table per kind or REST resource, fields
// flattened to dotted paths as `kubectl explain` shows them; named types (schemaId) get their own
// section and are linked, so the error structure is described once although it appears four times.
import type { z } from "zod";
import type { CustomResourceModel } from "../api/custom-resource.js";
import { API_VERSION, CATEGORY, REST_API } from "../api/names.js";
import { fieldTree, type FieldNode } from "../api/tree.js";

export interface ReferenceInput {
  readonly kinds: readonly CustomResourceModel[];
  /** REST-only resources (no Kubernetes kind), each by its schema id. */
  readonly restResources: readonly z.core.$ZodType[];
}

const anchor = (id: string) => id.toLowerCase().replace(/[^a-z0-9-]/g, "");
/** Table cells: pipes would end the cell, newlines the row. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => `\`${text}\``;

function typeText(node: FieldNode): string {
  if (node.schemaId !== undefined)
    return `[${node.schemaId}](${node.docsUrl ?? `#${anchor(node.schemaId)}`})`;
  switch (node.type) {
    case "array":
      return `array of ${node.items ? typeText(node.items) : "any"}`;
    case "map":
      return `map of string to ${node.values ? typeText(node.values) : "any"}`;
    default:
      return node.format !== undefined ? `${node.type} (${node.format})` : node.type;
  }
}

function constraints(node: FieldNode): string[] {
  const out: string[] = [];
  if (node.enum !== undefined) {
    const values = node.enum.map((v, i) => {
      const text = node.enumDescriptions?.[i];
      return text ? `${code(v)}: ${text}` : code(v);
    });
    // A constant is usually named by its description already.
    if (node.enum.length > 1) out.push(`One of:<br>${values.join("<br>")}`);
    else if (!node.description?.includes(node.enum[0] ?? "")) out.push(`Always ${values[0] ?? ""}.`);
  }
  if (node.pattern !== undefined) out.push(`Pattern ${code(node.pattern)}.`);
  const range = (what: string, min?: number, max?: number) => {
    if (min !== undefined && max !== undefined) out.push(`${what} ${min} to ${max}.`);
    else if (min !== undefined) out.push(`${what} at least ${min}.`);
    else if (max !== undefined) out.push(`${what} at most ${max}.`);
  };
  range("Length", node.minLength, node.maxLength);
  range("Value", node.minimum, node.maximum);
  range("Items", node.minItems, node.maxItems);
  range("Entries", undefined, node.maxProperties);
  if (node.listType === "set") out.push("Items are unique.");
  if (node.listType === "map") out.push(`One item per ${(node.listMapKeys ?? []).map(code).join(", ")}.`);
  if (node.default !== undefined) out.push(`Default ${code(JSON.stringify(node.default))}.`);
  for (const rule of node.validations) {
    if (rule.message === undefined) continue;
    const field = rule.fieldPath !== undefined ? ` (${code(rule.fieldPath.replace(/^\./, ""))})` : "";
    out.push(`Rule${field}: ${rule.message}.`);
  }
  return out;
}

interface Section {
  readonly title: string;
  readonly intro: readonly string[];
  readonly node: FieldNode;
}

/** Named types used below `node`, each with the first node that carries its id. */
function namedTypes(node: FieldNode, found: Map<string, FieldNode>): Map<string, FieldNode> {
  const children = [...Object.values(node.properties ?? {}), node.items, node.values];
  for (const child of children) {
    // Types documented elsewhere are linked, not described again.
    if (child === undefined || child.docsUrl !== undefined) continue;
    if (child.schemaId !== undefined && found.has(child.schemaId)) continue;
    if (child.schemaId !== undefined) found.set(child.schemaId, child);
    namedTypes(child, found);
  }
  return found;
}

function renderSection(section: Section, lines: string[]): void {
  lines.push(`### ${section.title}`, "", ...section.intro);
  if (section.node.description !== undefined) lines.push(section.node.description, "");
  const rootRules = constraints({ ...section.node, enum: undefined });
  if (rootRules.length > 0) lines.push(...rootRules.map((r) => `- ${r}`), "");
  lines.push("| Field | Type | Description |", "| --- | --- | --- |");
  const visit = (node: FieldNode, path: string) => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const fieldPath = path === "" ? key : `${path}.${key}`;
      const flags = [
        node.required?.includes(key) ? "required" : undefined,
        child.outputOnly ? "output only" : undefined,
        child.deprecated ? "deprecated" : undefined,
      ].filter((f) => f !== undefined);
      const type = [typeText(child), ...flags].join(", ");
      // A named type is described in its own section; the items of a list or map are described here.
      const inner = child.type === "array" ? child.items : child.type === "map" ? child.values : child;
      const each = inner !== child && inner?.schemaId === undefined ? constraints(inner ?? child) : [];
      const text = [
        child.description ?? "",
        ...constraints(child),
        ...(each.length > 0 ? ["Each item:", ...each] : []),
      ]
        .filter((t) => t !== "")
        .join(" ");
      lines.push(`| ${code(fieldPath)} | ${cell(type)} | ${cell(text)} |`);
      if (inner?.schemaId === undefined && inner?.properties !== undefined) {
        visit(inner, child === inner ? fieldPath : `${fieldPath}[]`);
      }
    }
  };
  visit(section.node, "");
  lines.push("");
}

export function apiReference(input: ReferenceInput): string {
  const lines: string[] = [
    "<!-- Generated by `npm run generate` from src/api; do not edit. Change the model and regenerate. -->",
    "",
    "# API reference",
    "",
    `Kubernetes kinds of group/version ${code(API_VERSION)} and the resources of the REST API`,
    `${code(REST_API.id)}. Generated from the model in ${code("src/api/")}, the same source as the CRDs,`,
    "the validators and the discovery document.",
    "",
    "## Kubernetes kinds",
    "",
  ];
  const named = new Map<string, FieldNode>();
  for (const model of input.kinds) {
    const { names } = model;
    const node = fieldTree(model.schema);
    namedTypes(node, named);
    renderSection(
      {
        title: names.kind,
        intro: [
          `${code(API_VERSION)}, namespaced, plural ${code(names.plural)}, short names ${names.shortNames.map(code).join(", ")}, category ${code(CATEGORY)}.`,
          `${code(`kubectl get ${names.shortNames[0] ?? names.plural}`)} shows ${model.printerColumns
            .filter((c) => (c.priority ?? 0) === 0)
            .map((c) => c.name)
            .join(", ")}; ${code("-o wide")} adds ${model.printerColumns
            .filter((c) => (c.priority ?? 0) > 0)
            .map((c) => c.name)
            .join(", ")}.`,
          `Field selectors: ${model.selectableFields.map((f) => code(f.replace(/^\./, ""))).join(", ")}.`,
          "",
        ],
        node,
      },
      lines,
    );
  }
  lines.push("## REST resources", "");
  const rest = input.restResources.map((schema) => fieldTree(schema));
  for (const node of rest) {
    if (node.schemaId === undefined) throw new Error("a REST resource of the API reference needs a schemaId");
    namedTypes(node, named);
    renderSection({ title: node.schemaId, intro: [], node }, lines);
  }
  lines.push("## Types", "");
  for (const id of [...named.keys()].sort()) {
    const node = named.get(id);
    if (node !== undefined && !rest.some((r) => r.schemaId === id))
      renderSection({ title: id, intro: [], node }, lines);
  }
  return lines.join("\n");
}
