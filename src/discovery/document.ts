// The discovery document (docs/design.md §7) of the compute API, generated: resources and methods from the
// route table that also registers the compute routes, schemas from the zod model through `fieldTree()`
// (converted by schemas.ts), common parameters from the table the REST layer honours. Pure: the same
// input gives the same document, and `revision` is a hash of everything else in it, so it changes
// exactly when the document does.
import { createHash } from "node:crypto";
import { fieldTree, REST_API } from "../api/index.js";
import { checkRoute, type Route } from "../rest/route.js";
import type { CommonParameter } from "../rest/system-parameters.js";
import type {
  DirectoryItem,
  DirectoryList,
  DiscoveryEndpoint,
  DiscoveryMethod,
  DiscoveryResource,
  DiscoverySchema,
  Icons,
  RestDescription,
} from "./format.js";
import { SchemaSet } from "./schemas.js";

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
