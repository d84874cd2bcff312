// The generated discovery document: valid against the JSON Schema written from the discovery format, complete
// (every route a method and every method a route, every referenced schema defined), in Google's JSON
// conventions, with a revision that follows the content; and the generator and the router both refuse
// an incomplete route.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { pino } from "pino";
import { directoryList, restDescription, type DiscoveryInput } from "../../../src/discovery/document.js";
import type { DiscoverySchema, RestDescription } from "../../../src/discovery/format.js";
import type { RestDeps } from "../../../src/rest/deps.js";
import type { Handler, Route } from "../../../src/rest/route.js";
import Fastify from "fastify";
import { computeRoutes } from "../../../src/rest/compute.js";
import { ROUTES, SCOPE_DESCRIPTIONS } from "../../../src/rest/routes.js";
import { COMMON_PARAMETERS } from "../../../src/rest/system-parameters.js";

const schema: unknown = JSON.parse(
  readFileSync(new URL("../../../src/discovery/discovery.schema.json", import.meta.url), "utf8"),
);
const ajv = new Ajv2020({ allErrors: true });
const validate = ajv.compile(schema as object);

const input: DiscoveryInput = {
  rootUrl: "https://ops.example/",
  endpoints: [
    { endpointUrl: "https://a.example/", location: "zone-a", description: "Zone a.", deprecated: false },
  ],
  scopes: SCOPE_DESCRIPTIONS,
  parameters: COMMON_PARAMETERS,
};
const doc = restDescription(ROUTES, input);

function valid(value: unknown): string {
  return validate(value) ? "" : ajv.errorsText(validate.errors, { separator: "\n" });
}

/** Every value in the document with the key it sits under. */
function* entries(value: unknown, key = ""): Generator<[string, unknown]> {
  yield [key, value];
  if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) yield* entries(v, k);
}

test("the document validates against the JSON Schema of the discovery format", () => {
  expect(valid(doc)).toBe("");
  expect(valid(directoryList(doc))).toBe("");
});

test("the JSON Schema is strict: an unknown, misplaced or mistyped field fails", () => {
  const copy = (): RestDescription => structuredClone(doc);
  const extra = copy() as RestDescription & { etag?: string };
  extra.etag = "x";
  expect(valid(extra)).not.toBe("");
  const method = copy();
  Object.assign(method.resources.zoneOperations?.methods.get ?? {}, { request: { schema: "Operation" } });
  expect(valid(method)).not.toBe("");
  const int64 = copy();
  Object.assign(int64.schemas.Duration?.properties?.seconds ?? {}, { type: "integer" });
  expect(valid(int64)).not.toBe("");
  const commonDeprecated = copy();
  Object.assign(commonDeprecated.parameters.fields ?? {}, { deprecated: false });
  expect(valid(commonDeprecated)).not.toBe("");
});

test("every route is a method and every method a route, with the route's data", () => {
  const methods = Object.entries(doc.resources).flatMap(([resource, r]) =>
    Object.entries(r.methods).map(([name, m]) => ({ resource, name, m })),
  );
  expect(methods.map((x) => x.m.id).sort()).toEqual(ROUTES.map((r) => r.id).sort());
  for (const route of ROUTES) {
    const method = doc.resources[route.resource]?.methods[route.method];
    expect(method).toMatchObject({
      id: route.id,
      path: route.path,
      flatPath: route.path,
      httpMethod: route.httpMethod,
      description: route.description,
      parameterOrder: route.parameterOrder,
      scopes: route.scopes,
    });
    expect(Object.keys(method?.parameters ?? {})).toEqual(route.parameters.map((p) => p.name));
    for (const p of route.parameters)
      expect(method?.parameters[p.name]).toMatchObject({
        type: p.type,
        location: p.location,
        description: p.description,
        ...(p.required && { required: true }),
      });
    expect(method?.request !== undefined).toBe(route.request !== undefined);
    expect(method?.response !== undefined).toBe(route.response !== undefined);
  }
});

test("every $ref is defined and every schema is used", () => {
  const refs = new Set([...entries(doc)].filter(([k]) => k === "$ref").map(([, v]) => String(v)));
  expect([...refs].filter((r) => !(r in doc.schemas))).toEqual([]);
  expect(Object.keys(doc.schemas).filter((id) => !refs.has(id))).toEqual([]);
  for (const [id, s] of Object.entries(doc.schemas)) expect(s).toMatchObject({ id, type: "object" });
});

test("Google JSON conventions: 64-bit integers as strings, RFC 3339 times, bounds as strings", () => {
  const props = (id: string): Record<string, DiscoverySchema> => doc.schemas[id]?.properties ?? {};
  expect(props("Duration").seconds).toMatchObject({ type: "string", format: "int64" });
  expect(props("Operation").id).toMatchObject({ type: "string", format: "uint64" });
  // RFC 3339 timestamps are plain strings in Google's documents.
  expect(props("Operation").insertTime).toEqual(expect.objectContaining({ type: "string" }));
  expect(props("Operation").insertTime?.format).toBeUndefined();
  expect(props("Operation").progress).toMatchObject({
    type: "integer",
    format: "int32",
    minimum: "0",
    maximum: "100",
  });
  expect(props("Operation").creationTimestamp).toMatchObject({ deprecated: true });
  expect(props("Operation").name?.description).toMatch(/^\[Output Only\] /);
  const state = props("InstanceGroupManagerResizeRequest").state;
  expect(state?.enum).toContain("SUCCEEDED");
  expect(state?.enumDescriptions).toHaveLength(state?.enum?.length ?? -1);
  expect(state?.enumDeprecated).toEqual(state?.enum?.map(() => false));
  expect(props("InstanceGroupManagerResizeRequest").requestedRunDuration).toMatchObject({ $ref: "Duration" });
  expect(props("InstancesBulkInsertOperationMetadata").perLocationStatus).toMatchObject({
    type: "object",
    additionalProperties: { $ref: "BulkInsertOperationStatus" },
  });
  // The insert body requires name: the annotation says which method requires it.
  expect(props("InstanceGroupManagerResizeRequest").name?.annotations).toEqual({
    required: [
      "compute.instanceGroupManagerResizeRequests.insert",
      "compute.regionInstanceGroupManagerResizeRequests.insert",
    ],
  });
  // A named type is described as a type, not as one use of it.
  expect(doc.schemas.Duration?.description).toMatch(/^A span of time/);
});

test("the top level carries every field of the discovery format that applies", () => {
  expect(doc).toMatchObject({
    kind: "discovery#restDescription",
    discoveryVersion: "v1",
    id: "compute:v1",
    name: "compute",
    canonicalName: "Compute",
    version: "v1",
    protocol: "rest",
    rootUrl: "https://ops.example/",
    baseUrl: "https://ops.example/compute/v1/",
    basePath: "/compute/v1/",
    servicePath: "compute/v1/",
    batchPath: "batch",
    endpoints: input.endpoints,
    icons: {
      x16: "https://ops.example/discovery/v1/icons/x16.png",
      x32: "https://ops.example/discovery/v1/icons/x32.png",
    },
    documentationLink: "https://ops.example/discovery/v1/apis/compute/v1/doc",
    labels: [],
    features: [],
  });
  expect(Object.keys(doc.parameters).sort()).toEqual([
    "$.xgafv",
    "access_token",
    "alt",
    "callback",
    "fields",
    "key",
    "oauth_token",
    "prettyPrint",
    "quotaUser",
    "uploadType",
    "upload_protocol",
    "userIp",
  ]);
  for (const scope of Object.values(ROUTES).flatMap((r) => r.scopes))
    expect(doc.auth.oauth2.scopes[scope]?.description).toBeTruthy();
  const seen = new Set([...entries(doc)].map(([k]) => k));
  for (const field of [
    "$ref",
    "default",
    "required",
    "deprecated",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "enum",
    "enumDescriptions",
    "enumDeprecated",
    "location",
    "properties",
    "additionalProperties",
    "items",
    "annotations",
    "flatPath",
    "parameterOrder",
    "request",
    "response",
    "scopes",
    "supportsMediaDownload",
    "supportsMediaUpload",
    "supportsSubscription",
  ])
    expect([field, seen.has(field)]).toEqual([field, true]);
});

test("revision: stable for the same content, changed by any change of content", () => {
  expect(restDescription(ROUTES, input)).toEqual(doc);
  expect(doc.revision).toMatch(/^[0-9a-f]{16}$/);
  const [first, ...rest] = ROUTES;
  if (!first) throw new Error("no routes");
  const reworded = restDescription([{ ...first, description: `${first.description} More.` }, ...rest], input);
  expect(reworded.revision).not.toBe(doc.revision);
  expect(restDescription(ROUTES, { ...input, rootUrl: "https://other.example/" }).revision).not.toBe(
    doc.revision,
  );
  expect(restDescription(ROUTES, { ...input, endpoints: [] }).revision).not.toBe(doc.revision);
});

describe("a route and its method cannot exist without each other", () => {
  const deps = {} as RestDeps;
  const log = pino({ level: "silent" });
  const dispatcher = (routes: readonly Route[]) => {
    computeRoutes(Fastify(), { routes, deps, log, base: "/compute/v1" });
  };
  const [first, ...rest] = ROUTES;
  const firstParameter = first?.parameters[0];
  if (!first || !firstParameter) throw new Error("no routes");
  const broken: [string, Route][] = [
    ["no description", { ...first, description: "" }],
    ["no handler", { ...first, handler: undefined as unknown as Handler }],
    ["an undeclared path parameter", { ...first, path: `${first.path}/{other}` }],
    ["a parameter that is not in the path", { ...first, path: "projects/{project}" }],
    ["a parameter without description", { ...first, parameters: [{ ...firstParameter, description: "" }] }],
    ["an id that does not match", { ...first, id: "compute.something.else" }],
    ["no scopes", { ...first, scopes: [] }],
  ];
  test.each(broken)(
    "a route with %s is refused by the generator and by the compute routes",
    (_what, route) => {
      expect(() => restDescription([route, ...rest], input)).toThrow(/route/);
      expect(() => {
        dispatcher([route, ...rest]);
      }).toThrow(/route/);
    },
  );
  test("a method listed twice is refused", () => {
    expect(() => restDescription([first, ...ROUTES], input)).toThrow(/twice/);
  });
  test("a scope without description is refused", () => {
    expect(() => restDescription(ROUTES, { ...input, scopes: {} })).toThrow(/scope/);
  });
  test("the complete table passes both", () => {
    expect(() => {
      dispatcher(ROUTES);
    }).not.toThrow();
  });
});

test("apis.list honours name and preferred", () => {
  const all = directoryList(doc);
  expect(all.items).toEqual([
    expect.objectContaining({
      kind: "discovery#directoryItem",
      id: "compute:v1",
      name: "compute",
      version: "v1",
      preferred: true,
      discoveryRestUrl: "https://ops.example/discovery/v1/apis/compute/v1/rest",
      discoveryLink: "./apis/compute/v1/rest",
      icons: doc.icons,
      documentationLink: doc.documentationLink,
      labels: [],
      title: doc.title,
      description: doc.description,
    }),
  ]);
  expect(directoryList(doc, { name: "compute", preferred: true }).items).toHaveLength(1);
  expect(directoryList(doc, { name: "storage" }).items).toEqual([]);
});
