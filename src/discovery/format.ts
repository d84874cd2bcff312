// The objects of Google's discovery format (https://developers.google.com/discovery/v1/reference),
// as this server produces them: the RestDescription of an API with its schemas, resources and methods,
// and the directory list of APIs.
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
