// The ProvisioningRequest API (autoscaling.x-k8s.io/v1, the cluster-autoscaler project's) as the
// provisioner reads and writes it, and the PodTemplates its pod sets point at. These kinds belong to
// others (Kueue creates the requests and templates, the CRD ships with cluster-autoscaler), so the
// schemas are loose: what is not read survives a round trip, and a field added upstream is no error.
import { z } from "zod";
import { GROUP } from "./names.js";
import { PROVISIONING_REQUEST_ANNOTATION, WORKLOAD_ANNOTATION } from "./served-by.js";

export { PROVISIONING_REQUEST_ANNOTATION, WORKLOAD_ANNOTATION };

export const PROVISIONING_API_GROUP = "autoscaling.x-k8s.io";
export const PROVISIONING_API_VERSION = `${PROVISIONING_API_GROUP}/v1`;
export const PROVISIONING_REQUEST = { kind: "ProvisioningRequest", plural: "provisioningrequests" } as const;

/** The provisioning class this operator serves; requests of every other class are left alone. */
export const PROVISIONING_CLASS = `queued-provisioning.${GROUP}`;

/** On a ResizeRequest created for a ProvisioningRequest: the request's uid (labels are indexable). */
export const PROVISIONING_REQUEST_UID_LABEL = `${GROUP}/provisioning-request-uid`;
/** Condition types of a ProvisioningRequest (cluster-autoscaler's API, consumed by Kueue). */
export const ProvisioningCondition = {
  Accepted: "Accepted",
  Provisioned: "Provisioned",
  Failed: "Failed",
  BookingExpired: "BookingExpired",
  CapacityRevoked: "CapacityRevoked",
} as const;
export type ProvisioningConditionType = (typeof ProvisioningCondition)[keyof typeof ProvisioningCondition];

/**
 * Keys of status.provisioningClassDetails, written at acceptance and kept current. ResizeRequestName,
 * SelectedZone and PodTemplateName are GKE's keys for the same facts; the queue's keys are ours.
 */
export const ClassDetail = {
  ResizeRequestName: "ResizeRequestName",
  /** The group, `namespace/name`: where the ResizeRequest lives (read back by later passes). */
  InstanceGroupManager: "InstanceGroupManager",
  /** A zonal group's zone (GKE's key). */
  SelectedZone: "SelectedZone",
  /** A regional group's region. */
  Region: "Region",
  /** The pod sets' PodTemplate names, joined by ", " (as GKE). */
  PodTemplateName: "PodTemplateName",
  /** 1-based position in the group's queue while waiting or provisioning, as of the Provisioned=False write. */
  QueuePosition: "QueuePosition",
  /** RFC 3339: when the instances are expected to be ready, while the queue model can tell. */
  EstimatedProvisioningTime: "EstimatedProvisioningTime",
  /** `exact` or `estimated`: how EstimatedProvisioningTime was found (the queue model's ETA basis). */
  EstimateKind: "EstimateKind",
  /** The FutureReservation serving the request (parameter futureReservation), by name in its namespace. */
  FutureReservation: "FutureReservation",
} as const;

/** The pod annotation Kueue sets on a workload's pods: they consume this ProvisioningRequest's capacity. */
export const CONSUME_ANNOTATION = "autoscaling.x-k8s.io/consume-provisioning-request";

const Meta = z.looseObject({
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerReferences: z
    .array(z.looseObject({ apiVersion: z.string(), kind: z.string(), name: z.string(), uid: z.string() }))
    .optional(),
});

export const PrCondition = z.looseObject({
  type: z.string(),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string(),
  message: z.string(),
  lastTransitionTime: z.string(),
  observedGeneration: z.number().optional(),
});
export type PrCondition = z.infer<typeof PrCondition>;

export const ProvisioningRequest = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: Meta,
  spec: z.looseObject({
    provisioningClassName: z.string(),
    podSets: z
      .array(
        z.looseObject({ podTemplateRef: z.looseObject({ name: z.string().optional() }), count: z.number() }),
      )
      .default([]),
    parameters: z.record(z.string(), z.string()).optional(),
  }),
  status: z
    .looseObject({
      conditions: z.array(PrCondition).optional(),
      provisioningClassDetails: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});
export type ProvisioningRequest = z.infer<typeof ProvisioningRequest>;

const Requests = z.record(z.string(), z.union([z.string(), z.number()]));
const Container = z.looseObject({
  name: z.string().optional(),
  restartPolicy: z.string().optional(),
  resources: z.looseObject({ requests: Requests.optional(), limits: Requests.optional() }).optional(),
});
export type Container = z.infer<typeof Container>;

export const Toleration = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
});
export type Toleration = z.infer<typeof Toleration>;

export const PodSpec = z.looseObject({
  containers: z.array(Container).default([]),
  initContainers: z.array(Container).optional(),
  overhead: Requests.optional(),
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(Toleration).optional(),
});
export type PodSpec = z.infer<typeof PodSpec>;

/** core/v1 PodTemplate: `template.spec` is what one pod of the pod set asks for. */
export const PodTemplate = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: Meta,
  template: z.looseObject({
    // Its pods' labels: they select the pods made from it (whether they consume the capacity).
    metadata: z.looseObject({ labels: z.record(z.string(), z.string()).optional() }).optional(),
    spec: PodSpec,
  }),
});
export type PodTemplate = z.infer<typeof PodTemplate>;
