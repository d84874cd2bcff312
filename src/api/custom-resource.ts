// What a Kubernetes kind adds on top of its spec and status schemas: object metadata, the names and
// the `kubectl get` columns. `crdFor()` turns a CustomResourceModel into a CustomResourceDefinition.
import { z } from "zod";
import { API_VERSION, type KindNames } from "./names.js";
import { celString, rule } from "./meta.js";
import { Generation, RFC1035_LABEL, RFC1035_MESSAGE, Timestamp } from "./primitives.js";

/**
 * The ObjectMeta fields the operator reads. Loose, because the API server owns metadata and adds
 * fields (managedFields, …) that must survive a read-modify-write.
 */
export const ObjectMeta = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: Generation.optional(),
  creationTimestamp: Timestamp.optional(),
  deletionTimestamp: Timestamp.optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/** A column of `kubectl get` (CRD `additionalPrinterColumns`). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly jsonPath: string;
  readonly description: string;
  /** 0 shows in `kubectl get`; 1 only in `kubectl get -o wide`. */
  readonly priority?: number;
}

export interface CustomResourceModel {
  readonly names: KindNames;
  /** The whole object: apiVersion, kind, metadata, spec and status. */
  readonly schema: z.ZodObject;
  readonly printerColumns: readonly PrinterColumn[];
  /** Fields usable in field selectors (`kubectl get rr --field-selector spec.instanceGroupManager=g`). */
  readonly selectableFields: readonly string[];
}

/**
 * The schema of a whole object of one kind. Its name must be an RFC 1035 label, because the REST API
 * addresses groups and requests by name in URL segments that only allow those.
 */
export function customResource<Spec extends z.ZodObject, Status extends z.ZodObject>(
  kind: string,
  description: string,
  spec: Spec,
  status: Status,
) {
  const name = "self.metadata.name";
  return rule(
    z
      .object({
        apiVersion: z.literal(API_VERSION).meta({
          description: "Versioned schema of this representation of the object: always " + API_VERSION + ".",
        }),
        kind: z.literal(kind).meta({ description: `Kind of the object: always ${kind}.` }),
        metadata: ObjectMeta.meta({
          description: "Standard object metadata.",
          schemaId: "ObjectMeta",
          docsUrl: "https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/object-meta/",
        }),
        spec,
        status: status.optional(),
      })
      .meta({ description }),
    {
      cel: `size(${name}) <= 63 && ${name}.matches(${celString(RFC1035_LABEL)})`,
      message: RFC1035_MESSAGE,
      fieldPath: ".metadata.name",
      test: (o) =>
        o.metadata.name === undefined ||
        (o.metadata.name.length <= 63 && new RegExp(RFC1035_LABEL).test(o.metadata.name)),
    },
  );
}
