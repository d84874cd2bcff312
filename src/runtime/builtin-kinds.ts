// The built-in kinds the operator reads and writes, each with the smallest schema that decodes what it
// uses of the replies. Loose where an object is read, modified and written back (unknown fields must
// survive the round trip); plain where only a few reply fields are read.
import { z } from "zod";
import type { ResourceKind, ResourceLocation } from "./resource-kind.js";

/** The ObjectMeta fields the runtime reads; every other field is kept. */
export const ObjectMeta = z.looseObject({
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  creationTimestamp: z.string().optional(),
  resourceVersion: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  finalizers: z.array(z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerReferences: z.array(z.unknown()).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

const typeMeta = { apiVersion: z.string().optional(), kind: z.string().optional() };

/** Any object, known only by its metadata (e.g. a scale target whose readiness field is configurable). */
export const Unstructured = z.looseObject({ ...typeMeta, metadata: ObjectMeta.optional() });
export type Unstructured = z.infer<typeof Unstructured>;

/** coordination.k8s.io/v1 Lease (times are MicroTime strings). */
export const Lease = z.looseObject({
  ...typeMeta,
  metadata: ObjectMeta.optional(),
  spec: z
    .looseObject({
      holderIdentity: z.string().optional(),
      leaseDurationSeconds: z.number().optional(),
      acquireTime: z.string().optional(),
      renewTime: z.string().optional(),
      leaseTransitions: z.number().optional(),
    })
    .optional(),
});
export type Lease = z.infer<typeof Lease>;

/**
 * events.k8s.io/v1 Event. Only its identity is read back; a plain object, so that the recorder's
 * client-node EventsV1Event can be written as it is.
 */
export const KubeEvent = z.object({
  ...typeMeta,
  metadata: z.object({ name: z.string().optional(), namespace: z.string().optional() }).optional(),
});
export type KubeEvent = z.infer<typeof KubeEvent>;

/** autoscaling/v1 Scale as the API server returns it (kept whole, to be written back). */
export const Scale = z.looseObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z.looseObject({ replicas: z.number().optional() }).optional(),
  status: z.looseObject({ replicas: z.number().optional(), selector: z.string().optional() }).optional(),
});
export type Scale = z.infer<typeof Scale>;

/** A status condition as Kubernetes objects carry them (Pods, Nodes, custom resources). */
export const ObjectCondition = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});
export type ObjectCondition = z.infer<typeof ObjectCondition>;

/** core/v1 Pod: the scheduling state of its conditions only. */
export const Pod = z.looseObject({
  ...typeMeta,
  metadata: ObjectMeta.optional(),
  status: z
    .looseObject({ phase: z.string().optional(), conditions: z.array(ObjectCondition).optional() })
    .optional(),
});
export type Pod = z.infer<typeof Pod>;

/**
 * core/v1 Event, as other components post them on pods (the cluster autoscaler's scale-up verdicts):
 * what it is about, why, and when; client-go's recorder sets lastTimestamp, the events.k8s.io API
 * eventTime and series.lastObservedTime.
 */
export const CoreEvent = z.looseObject({
  ...typeMeta,
  metadata: ObjectMeta.optional(),
  involvedObject: z.looseObject({ uid: z.string().optional(), name: z.string().optional() }).optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  firstTimestamp: z.string().nullish(),
  lastTimestamp: z.string().nullish(),
  eventTime: z.string().nullish(),
  series: z.looseObject({ lastObservedTime: z.string().optional() }).nullish(),
});
export type CoreEvent = z.infer<typeof CoreEvent>;

/** When a core/v1 Event was last posted: the newest of the times either events API may have set. */
export function lastPosted(e: CoreEvent): number {
  const times = [e.lastTimestamp, e.eventTime, e.series?.lastObservedTime, e.firstTimestamp]
    .map((t) => (t ? Date.parse(t) : Number.NaN))
    .filter(Number.isFinite);
  return times.length > 0 ? Math.max(...times) : 0;
}

/** authentication.k8s.io/v1 TokenReview. */
export const TokenReview = z.object({
  ...typeMeta,
  spec: z.object({ token: z.string(), audiences: z.array(z.string()).optional() }),
  status: z
    .object({
      authenticated: z.boolean().optional(),
      /** The requested audiences the token is valid for (empty: the API server's own). */
      audiences: z.array(z.string()).nullish(),
      user: z
        .object({
          username: z.string().optional(),
          uid: z.string().optional(),
          groups: z.array(z.string()).optional(),
          extra: z.record(z.string(), z.array(z.string())).optional(),
        })
        .optional(),
      error: z.string().optional(),
    })
    .optional(),
});
export type TokenReview = z.infer<typeof TokenReview>;

/** authorization.k8s.io/v1 SubjectAccessReview (resource attributes only). */
export const SubjectAccessReview = z.object({
  ...typeMeta,
  spec: z.object({
    resourceAttributes: z.object({
      group: z.string().optional(),
      resource: z.string().optional(),
      verb: z.string().optional(),
      namespace: z.string().optional(),
      name: z.string().optional(),
    }),
    user: z.string().optional(),
    groups: z.array(z.string()).readonly().optional(),
    uid: z.string().optional(),
    extra: z.record(z.string(), z.array(z.string()).readonly()).readonly().optional(),
  }),
  status: z.object({ allowed: z.boolean().optional(), reason: z.string().optional() }).optional(),
});
export type SubjectAccessReview = z.infer<typeof SubjectAccessReview>;

/** One resource of a discovery document (metav1.APIResource); subresources are named "plural/sub". */
export const ApiResource = z.looseObject({ name: z.string(), kind: z.string(), namespaced: z.boolean() });
export type ApiResource = z.infer<typeof ApiResource>;
export const ApiResourceList = z.looseObject({ resources: z.array(ApiResource).default([]) });

export const LEASES: ResourceKind<Lease> = {
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  resource: "leases",
  namespaced: true,
  schema: Lease,
};

export const EVENTS: ResourceKind<KubeEvent> = {
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  resource: "events",
  namespaced: true,
  schema: KubeEvent,
};

/** A kind of the core API group (`v1`). */
function coreKind<T>(
  kind: string,
  resource: string,
  namespaced: boolean,
  schema: z.ZodType<T>,
): ResourceKind<T> {
  return { apiVersion: "v1", kind, resource, namespaced, schema };
}

export const PODS: ResourceKind<Pod> = coreKind("Pod", "pods", true, Pod);

/** core/v1 events: read only (the operator writes its own events through events.k8s.io/v1, EVENTS). */
export const CORE_EVENTS: ResourceKind<CoreEvent> = coreKind("Event", "events", true, CoreEvent);

export const TOKEN_REVIEWS: ResourceKind<TokenReview> = {
  apiVersion: "authentication.k8s.io/v1",
  kind: "TokenReview",
  resource: "tokenreviews",
  namespaced: false,
  schema: TokenReview,
};

export const SUBJECT_ACCESS_REVIEWS: ResourceKind<SubjectAccessReview> = {
  apiVersion: "authorization.k8s.io/v1",
  kind: "SubjectAccessReview",
  resource: "subjectaccessreviews",
  namespaced: false,
  schema: SubjectAccessReview,
};

/** core/v1 Node: what tells whether it can take pods (its Ready condition, cordon, taints, deletion). */
export const Node = z.looseObject({
  ...typeMeta,
  metadata: ObjectMeta,
  spec: z
    .looseObject({
      unschedulable: z.boolean().optional(),
      providerID: z.string().optional(),
      taints: z
        .array(z.looseObject({ key: z.string(), value: z.string().optional(), effect: z.string() }))
        .optional(),
    })
    .optional(),
  status: z.looseObject({ conditions: z.array(ObjectCondition).optional() }).optional(),
});
export type Node = z.infer<typeof Node>;

export const NODES: ResourceKind<Node> = coreKind("Node", "nodes", false, Node);

/** core/v1 Namespace: its labels (a group's namespaceSelector). */
export const Namespace = z.looseObject({ ...typeMeta, metadata: ObjectMeta });
export type Namespace = z.infer<typeof Namespace>;

export const NAMESPACES: ResourceKind<Namespace> = coreKind("Namespace", "namespaces", false, Namespace);

/** The /scale subresource of a resource found by discovery (Deployment, MachineDeployment, any CR). */
export function scaleOf(where: ResourceLocation): ResourceKind<Scale> {
  return { ...where, kind: "Scale", subresource: "scale", schema: Scale };
}

/** The objects of a resource found by discovery, decoded only as far as their metadata. */
export function unstructuredOf(where: ResourceLocation, kind: string): ResourceKind<Unstructured> {
  return { ...where, kind, schema: Unstructured };
}
