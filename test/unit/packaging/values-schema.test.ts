// values.schema.json rejects unknown keys: every object the chart defines closes its properties, and
// every key of values.yaml is described by the schema.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const chart = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../charts/resize-operator");
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  description?: string;
}
const schema = JSON.parse(readFileSync(path.join(chart, "values.schema.json"), "utf8")) as Schema;

/** Objects of the schema with declared properties, by path. */
function* objects(s: Schema, at: string): Generator<[string, Schema]> {
  if (s.properties) yield [at, s];
  for (const [key, child] of Object.entries(s.properties ?? {})) yield* objects(child, `${at}.${key}`);
  if (s.items) yield* objects(s.items, `${at}[]`);
}

test("every object with declared properties has additionalProperties: false", () => {
  const open = [...objects(schema, "values")].filter(([, s]) => s.additionalProperties !== false);
  expect(open.map(([at]) => at)).toEqual([]);
});

test("free-form objects are only Kubernetes pass-throughs, string maps, or Helm's global", () => {
  const free: string[] = [];
  const walk = (s: Schema, at: string): void => {
    if (s.type === "object" && !s.properties && s.additionalProperties === undefined) free.push(at);
    for (const [key, child] of Object.entries(s.properties ?? {})) walk(child, `${at}.${key}`);
    if (s.items) walk(s.items, `${at}[]`);
  };
  walk(schema, "values");
  expect(free.sort()).toEqual(
    [
      "values.affinity",
      "values.global",
      "values.networkPolicy.httpFrom[]",
      "values.networkPolicy.metricsFrom[]",
      "values.networkPolicy.operatorEgress[]",
      "values.operator.extraEnv[]",
      "values.tolerations[]",
      "values.topologySpreadConstraints[]",
    ].sort(),
  );
});

test("every key of values.yaml and of the CI values files is in the schema", () => {
  const unknown: string[] = [];
  const check = (value: unknown, s: Schema | undefined, at: string): void => {
    if (!s) {
      unknown.push(at);
      return;
    }
    if (Array.isArray(value)) {
      const items = s.items;
      value.forEach((v: unknown, i) => {
        check(v, items, `${at}[${i}]`);
      });
    } else if (typeof value === "object" && value !== null && s.properties)
      for (const [k, v] of Object.entries(value)) check(v, s.properties[k], `${at}.${k}`);
  };
  for (const file of ["values.yaml", "ci/all-options-values.yaml", "ci/external-redis-values.yaml"])
    check(parse(readFileSync(path.join(chart, file), "utf8")), schema, file);
  expect(unknown).toEqual([]);
});
