// The discovery document (docs/design.md §7) of the compute API, generated: resources and methods from the
// route table that also builds the Express router, schemas from the zod model through `fieldTree()`,
// common parameters from the table the REST layer honours. Pure: the same input gives the same
// document, and `revision` is a hash of everything else in it, so it changes exactly when the
// document does.
import { createHash } from "node:crypto";
import { fieldTree, REST_API, type FieldNode } from "../api/index.js";
import { checkRoute, type Route } from "../rest/route.js";
import type { CommonParameter } from "../rest/system-parameters.js";

/** A Schema object of the discovery format (schemas, properties, parameters). */
export interface DiscoverySchema {
  id?: string;
  type?: string;
  $ref?: string;
  description?: string;
  default?: string;
  required?: boolean;
  deprecated?: boolean;
  format?: string;
  pattern?: string;
  minimum?: string;
  maximum?: string;
  enum?: string[];
  enumDescriptions?: string[];
  enumDeprecated?: boolean[];
  repeated?: boolean;
  location?: "query" | "path";
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  items?: DiscoverySchema;
  annotations?: { required: string[] };
}

export interface DiscoveryMethod {
  id: string;
  path: string;
  flatPath: string;
  httpMethod: string;
  description: string;
  deprecated: boolean;
  parameters: Record<string, DiscoverySchema>;
  parameterOrder: string[];
  request?: { $ref: string; parameterName: string };
  response?: { $ref: string };
  scopes: string[];
  supportsMediaDownload: boolean;
  supportsMediaUpload: boolean;
  supportsSubscription: boolean;
}

export interface DiscoveryResource {
  methods: Record<string, DiscoveryMethod>;
  deprecated: boolean;
}

export interface DiscoveryEndpoint {
  readonly endpointUrl: string;
  readonly location: string;
  readonly description: string;
  readonly deprecated: boolean;
}

export interface Icons {
  readonly x16: string;
  readonly x32: string;
}

export interface RestDescription {
  kind: "discovery#restDescription";
  discoveryVersion: "v1";
  id: string;
  name: string;
  canonicalName: string;
  version: string;
  revision: string;
  title: string;
  description: string;
  icons: Icons;
  documentationLink: string;
  labels: string[];
  protocol: "rest";
  rootUrl: string;
  baseUrl: string;
  basePath: string;
  servicePath: string;
  batchPath: string;
  endpoints: DiscoveryEndpoint[];
  parameters: Record<string, DiscoverySchema>;
  auth: { oauth2: { scopes: Record<string, { description: string }> } };
  features: string[];
  schemas: Record<string, DiscoverySchema>;
  resources: Record<string, DiscoveryResource>;
}

export interface DirectoryItem {
  kind: "discovery#directoryItem";
  id: string;
  name: string;
  version: string;
  title: string;
  description: string;
  discoveryRestUrl: string;
  discoveryLink: string;
  icons: Icons;
  documentationLink: string;
  labels: string[];
  preferred: boolean;
}

export interface DirectoryList {
  kind: "discovery#directoryList";
  discoveryVersion: "v1";
  items: DirectoryItem[];
}

export interface DiscoveryInput {
  /** Where clients send requests: the operator's public URL, ending in `/`. */
  readonly rootUrl: string;
  readonly endpoints: readonly DiscoveryEndpoint[];
  /** OAuth scope → description; every scope a route uses must have one. */
  readonly scopes: Readonly<Record<string, string>>;
  /** The system parameters the REST layer honours. */
  readonly parameters: readonly CommonParameter[];
}

export const SERVICE_PATH = `${REST_API.name}/${REST_API.version}/`;
/** The discovery format's batch path is `batch`; the server answers it (and Google's newer form). */
export const BATCH_PATH = "batch";
export const DISCOVERY_BASE = "discovery/v1/";
export const REST_PATH = `apis/${REST_API.name}/${REST_API.version}/rest`;
export const DOC_PATH = `apis/${REST_API.name}/${REST_API.version}/doc`;

const TITLE = "Compute Engine API (resize requests)";
const DESCRIPTION =
  "Queued, all-or-nothing resize requests with a maximum run duration for Kubernetes workloads, and the zone operations that track them; wire-compatible with the Compute Engine API.";

export function icons(rootUrl: string): Icons {
  return { x16: `${rootUrl}${DISCOVERY_BASE}icons/x16.png`, x32: `${rootUrl}${DISCOVERY_BASE}icons/x32.png` };
}

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
class SchemaSet {
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

function methodOf(route: Route, schemas: SchemaSet): DiscoveryMethod {
  const parameters = Object.fromEntries(
    route.parameters.map((p) => {
      const converted = schemas.convert(fieldTree(p.schema));
      if (converted.type !== p.type) throw new Error(`${route.id}: parameter ${p.name} is not a ${p.type}`);
      const schema: DiscoverySchema = {
        ...converted,
        description: p.description,
        ...(p.pattern !== undefined && { pattern: p.pattern }),
        location: p.location,
        ...(p.required && { required: true }),
        ...(p.default !== undefined && { default: p.default }),
      };
      return [p.name, schema];
    }),
  );
  const named = (schema: Parameters<typeof fieldTree>[0]) => {
    const ref = schemas.ref(fieldTree(schema)).$ref;
    if (ref === undefined) throw new Error(`${route.id}: body schema without schemaId`);
    return ref;
  };
  return {
    id: route.id,
    path: route.path,
    // No path here uses reserved expansion ({+var}), so the flat path is the path itself.
    flatPath: route.path,
    httpMethod: route.httpMethod,
    description: route.description,
    deprecated: false,
    parameters,
    parameterOrder: [...route.parameterOrder],
    ...(route.request && { request: { $ref: named(route.request.schema), parameterName: "resource" } }),
    ...(route.response && { response: { $ref: named(route.response) } }),
    scopes: [...route.scopes],
    supportsMediaDownload: false,
    supportsMediaUpload: false,
    supportsSubscription: false,
  };
}

/** Marks the properties a method requires in its request body (`annotations.required`). */
function annotateRequired(routes: readonly Route[], schemas: Record<string, DiscoverySchema>): void {
  for (const route of routes) {
    if (!route.request) continue;
    const id = fieldTree(route.request.schema).schemaId ?? "";
    const properties = schemas[id]?.properties ?? {};
    for (const name of fieldTree(route.request.validate).required ?? []) {
      const property = properties[name];
      if (!property) throw new Error(`${route.id}: required body field ${name} is not in schema ${id}`);
      property.annotations = { required: [...(property.annotations?.required ?? []), route.id] };
    }
  }
}

/** A short hash of the document's content other than `revision` itself. */
export function revisionOf(document: RestDescription): string {
  return createHash("sha256")
    .update(JSON.stringify({ ...document, revision: undefined }))
    .digest("hex")
    .slice(0, 16);
}

export function restDescription(routes: readonly Route[], input: DiscoveryInput): RestDescription {
  const schemas = new SchemaSet();
  const resources: Record<string, DiscoveryResource> = {};
  const usedScopes = new Set<string>();
  for (const route of routes) {
    checkRoute(route);
    const resource = (resources[route.resource] ??= { methods: {}, deprecated: false });
    if (route.method in resource.methods) throw new Error(`${route.id} is in the route table twice`);
    resource.methods[route.method] = methodOf(route, schemas);
    for (const scope of route.scopes) usedScopes.add(scope);
  }
  annotateRequired(routes, schemas.schemas);
  const scopes = Object.fromEntries(
    [...usedScopes].map((scope) => {
      const description = input.scopes[scope];
      if (description === undefined) throw new Error(`scope ${scope} has no description`);
      return [scope, { description }];
    }),
  );
  const parameters = Object.fromEntries(
    input.parameters.map((p): [string, DiscoverySchema] => [
      p.name,
      {
        type: p.type,
        description: p.description,
        location: "query",
        ...(p.default !== undefined && { default: p.default }),
        ...(p.enum && { enum: [...p.enum] }),
        ...(p.enumDescriptions && { enumDescriptions: [...p.enumDescriptions] }),
      },
    ]),
  );
  const { rootUrl } = input;
  const document: RestDescription = {
    kind: "discovery#restDescription",
    discoveryVersion: "v1",
    id: REST_API.id,
    name: REST_API.name,
    canonicalName: "Compute",
    version: REST_API.version,
    revision: "",
    title: TITLE,
    description: DESCRIPTION,
    icons: icons(rootUrl),
    documentationLink: `${rootUrl}${DISCOVERY_BASE}${DOC_PATH}`,
    labels: [],
    protocol: "rest",
    rootUrl,
    baseUrl: `${rootUrl}${SERVICE_PATH}`,
    basePath: `${new URL(rootUrl).pathname}${SERVICE_PATH}`,
    servicePath: SERVICE_PATH,
    batchPath: BATCH_PATH,
    endpoints: [...input.endpoints],
    parameters,
    auth: { oauth2: { scopes } },
    features: [],
    schemas: schemas.schemas,
    resources,
  };
  document.revision = revisionOf(document);
  return document;
}

export interface DirectoryFilter {
  readonly name?: string;
  readonly preferred?: boolean;
}

/** `apis.list`: this server describes one API, in its preferred (only) version. */
export function directoryList(description: RestDescription, filter: DirectoryFilter = {}): DirectoryList {
  const item: DirectoryItem = {
    kind: "discovery#directoryItem",
    id: description.id,
    name: description.name,
    version: description.version,
    title: description.title,
    description: description.description,
    discoveryRestUrl: `${description.rootUrl}${DISCOVERY_BASE}${REST_PATH}`,
    discoveryLink: `./${REST_PATH}`,
    icons: description.icons,
    documentationLink: description.documentationLink,
    labels: description.labels,
    preferred: true,
  };
  const wanted =
    (filter.name === undefined || filter.name === item.name) && (!filter.preferred || item.preferred);
  return { kind: "discovery#directoryList", discoveryVersion: "v1", items: wanted ? [item] : [] };
}
