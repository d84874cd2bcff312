// The human-readable page `documentationLink` points to, rendered from the discovery document itself
// so it always matches what clients are told: every method with its HTTP call and parameters, and
// every schema with its fields.
import type { DiscoverySchema, RestDescription } from "./format.js";

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function typeOf(schema: DiscoverySchema): string {
  if (schema.$ref !== undefined) return `<a href="#${escape(schema.$ref)}">${escape(schema.$ref)}</a>`;
  if (schema.type === "array" && schema.items) return `array of ${typeOf(schema.items)}`;
  if (schema.additionalProperties) return `map of ${typeOf(schema.additionalProperties)}`;
  const base = escape(schema.type ?? "");
  return schema.format === undefined ? base : `${base} (${escape(schema.format)})`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = (tag: string, row: readonly string[]) => row.map((c) => `<${tag}>${c}</${tag}>`).join("");
  return `<table><tr>${cells("th", head)}</tr>${rows.map((r) => `<tr>${cells("td", r)}</tr>`).join("")}</table>`;
}

function fields(properties: Record<string, DiscoverySchema>): string {
  return table(
    ["name", "type", "description"],
    Object.entries(properties).map(([name, s]) => [
      `<code>${escape(name)}</code>`,
      typeOf(s),
      escape(s.description ?? "") +
        (s.enum ? ` Values: ${s.enum.map((v) => `<code>${escape(v)}</code>`).join(", ")}.` : ""),
    ]),
  );
}

export function documentationPage(doc: RestDescription): string {
  const methods = Object.values(doc.resources).flatMap((r) => Object.values(r.methods));
  const sections = [
    `<h1>${escape(doc.title)}</h1>`,
    `<p>${escape(doc.description)}</p>`,
    `<p>Root URL <code>${escape(doc.rootUrl)}</code>, service path <code>${escape(doc.servicePath)}</code>, revision <code>${escape(doc.revision)}</code>. Machine-readable description: <a href="rest">discovery document</a>.</p>`,
    `<h2>Methods</h2>`,
    ...methods.map(
      (m) =>
        `<h3 id="${escape(m.id)}">${escape(m.id)}</h3><p><code>${escape(m.httpMethod)} ${escape(doc.servicePath + m.path)}</code></p><p>${escape(m.description)}</p>` +
        fields(m.parameters) +
        (m.request?.$ref ? `<p>Request body: ${typeOf({ $ref: m.request.$ref })}</p>` : "") +
        `<p>Response: ${m.response?.$ref ? typeOf({ $ref: m.response.$ref }) : "empty"}</p>`,
    ),
    `<h2>Common parameters</h2>`,
    fields(doc.parameters),
    `<h2>Schemas</h2>`,
    ...Object.values(doc.schemas).map(
      (s) =>
        `<h3 id="${escape(s.id ?? "")}">${escape(s.id ?? "")}</h3><p>${escape(s.description ?? "")}</p>${fields(s.properties ?? {})}`,
    ),
  ];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.title)}</title><style>body{font-family:sans-serif;max-width:60rem;margin:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem;vertical-align:top;text-align:left}</style></head><body>${sections.join("\n")}</body></html>\n`;
}
