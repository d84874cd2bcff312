// The shape the runtime needs of any API object, as it arrives on the wire (plain JSON: timestamps are
// strings). Deliberately not @kubernetes/client-node's KubernetesObject, whose metadata types Date
// fields, so that objects decoded by a model (e.g. zod schemas) are accepted as they are.
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
}
