// InstanceGroupManager (docs/design.md §3.1): a managed group over any workload with a /scale subresource.
import { z } from "zod";
import { Conditions } from "./conditions.js";
import { customResource, type CustomResourceModel } from "./custom-resource.js";
import { kubeDuration, parseKubeDuration } from "./duration.js";
import { InstanceShape, ProvisioningRequestPolicy } from "./instance-shape.js";
import { rule } from "./meta.js";
import { API_VERSION_MAX, API_VERSION_PATTERN, KIND_MAX, KIND_PATTERN } from "./target-ref.js";
import { INSTANCE_GROUP_MANAGER } from "./names.js";
import { Count, Generation, ObjectName, Rfc1035Label, Uint64String } from "./primitives.js";
import { DEFAULT_READY_REPLICAS_FIELD, isKarpenterNodePool, KARPENTER, Readiness } from "./readiness.js";

export const DEFAULT_PROVISIONING_TIMEOUT = "10m";
export const DEFAULT_UNSCHEDULABLE_GRACE_PERIOD = "60s";

export const TargetRef = z
  .object({
    apiVersion: z
      .string()
      .min(1)
      .max(API_VERSION_MAX)
      .regex(API_VERSION_PATTERN, {
        message: "must be GROUP/VERSION (a DNS subdomain, a slash, a DNS label) such as apps/v1, or v1",
      })
      .meta({
        description:
          "API version of the target workload: GROUP/VERSION such as apps/v1 (the group a DNS subdomain, the version a DNS label), or VERSION alone for the core group.",
      }),
    kind: z
      .string()
      .min(1)
      .max(KIND_MAX)
      .regex(KIND_PATTERN, { message: "must be a kind: a letter, then letters and digits" })
      .meta({ description: "Kind of the target workload, for example StatefulSet or MachineDeployment." }),
    name: ObjectName.meta({
      description:
        "Name of the target workload, in the namespace of the group (a cluster-scoped kind has no namespace).",
    }),
  })
  .meta({
    description:
      "The workload whose replicas the group manages. It must have a /scale subresource and be in the group's namespace, or be of a cluster-scoped kind the operator lists as a target (--cluster-scoped-targets, e.g. Karpenter's NodePool.karpenter.sh). Setting or changing it requires permission to update the target's /scale (an admission policy checks the requesting user).",
  });

const SpecWithoutLocationRules = rule(
  rule(
    z
      .object({
        zone: Rfc1035Label.meta({
          description:
            "Zone of a zonal group (RFC 1035 label). The REST API serves the group under /zones/{zone}/ (instanceGroupManagerResizeRequests, zoneOperations) and requires calls to name this zone. Exactly one of zone and region is set.",
        }).optional(),
        region: Rfc1035Label.meta({
          description:
            "Region of a regional group (RFC 1035 label). The REST API serves the group under /regions/{region}/ (regionInstanceGroupManagerResizeRequests, regionOperations) and requires calls to name this region. Exactly one of zone and region is set.",
        }).optional(),
        targetRef: TargetRef,
        maxSize: Count.meta({
          description:
            "Upper bound on the target's replicas. A resize request that could never fit under it fails with QUOTA_EXCEEDED; a queued one waits until it fits. Unbounded when omitted.",
        }).optional(),
        minSize: Count.meta({
          description:
            "Floor for scale-downs: releasing a request's instances never lowers the target below it.",
        }).default(0),
        provisioningTimeout: kubeDuration({ min: "1s", max: "24h" })
          .meta({
            description:
              "How long one provisioning attempt may take for all new instances to become ready before it is rolled back and retried later. A duration such as 10m or 1h30m, from 1s to 24h.",
          })
          .default(DEFAULT_PROVISIONING_TIMEOUT),
        readyReplicasField: z
          .string()
          .min(1)
          .max(256)
          .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, {
            message: "must be a dotted field path such as status.readyReplicas",
          })
          .meta({
            description: `Dotted path of the field in the target object that counts its ready instances, for workloads that report readiness elsewhere (for example status.availableReplicas). ${DEFAULT_READY_REPLICAS_FIELD} when omitted. Exclusive with readiness.nodeSelector, except that the value ${DEFAULT_READY_REPLICAS_FIELD} (which groups created by earlier versions carry as a default) is accepted beside it and ignored.`,
          })
          .optional(),
        readiness: Readiness.optional(),
        finishedRequestRetention: kubeDuration({ min: "0s", max: "87600h" })
          .meta({
            description:
              "How long a finished resize request (SUCCEEDED with its instances released or without a run duration, FAILED, CANCELLED) is kept before the controller deletes it. 0s deletes it at once. When omitted, the operator's --finished-request-retention applies (default 168h, 7 days). A request whose release is still due is never deleted.",
          })
          .optional(),
        maxQueueDuration: kubeDuration({ min: "1s", max: "87600h" })
          .meta({
            description:
              "Default queue deadline of this group's requests (a request's own spec.maxQueueDuration wins; REST inserts always get this one): a request still waiting in the queue when it elapses goes FAILED. No deadline when omitted.",
          })
          .optional(),
        clusterAutoscaler: z
          .enum(["Detect", "None"])
          .meta({
            enumDescriptions: {
              Detect:
                "A cluster autoscaler may add capacity; the NotTriggerScaleUp events it posts on pods (core/v1 Events from source cluster-autoscaler) tell when it will not.",
              None: "Nothing adds capacity to the cluster: Unschedulable pods will stay Unschedulable.",
            },
            description:
              "Whether the cluster can add capacity for the target's pods. Detect: an attempt whose new pods are Unschedulable rolls back after unschedulableGracePeriod only once a cluster autoscaler reported NotTriggerScaleUp on them (TriggeredScaleUp keeps it waiting up to provisioningTimeout). None: nothing will add capacity, so Unschedulable pods roll the attempt back after unschedulableGracePeriod.",
          })
          .default("Detect"),
        unschedulableGracePeriod: kubeDuration({ min: "0s", max: "24h" })
          .meta({
            description:
              "How long an attempt's new pods may stay Unschedulable, when nothing will add capacity, before the attempt is rolled back with ZONE_RESOURCE_POOL_EXHAUSTED instead of waiting for provisioningTimeout. Counted from when the pods became Unschedulable (their PodScheduled condition's lastTransitionTime), or from the attempt's appliedTime if that is later.",
          })
          .default(DEFAULT_UNSCHEDULABLE_GRACE_PERIOD),
        instanceShape: InstanceShape.optional(),
        provisioningRequests: ProvisioningRequestPolicy.optional(),
      })
      .meta({ description: "Desired state of the group." }),
    {
      cel: "has(self.zone) != has(self.region)",
      message: "exactly one of zone or region must be set",
      fieldPath: ".zone",
      test: (s) => (s.zone === undefined) !== (s.region === undefined),
    },
  ),
  {
    cel: "!has(self.maxSize) || !has(self.minSize) || self.minSize <= self.maxSize",
    message: "minSize must not be greater than maxSize",
    fieldPath: ".minSize",
    test: (s) => s.maxSize === undefined || s.minSize <= s.maxSize,
  },
);

/** One readiness source per group (readiness.ts); a Karpenter NodePool has no ready count to read. */
const SpecWithReadinessRules = rule(
  rule(SpecWithoutLocationRules, {
    cel: `!has(self.readiness) || !has(self.readyReplicasField) || self.readyReplicasField == '${DEFAULT_READY_REPLICAS_FIELD}'`,
    message:
      "readyReplicasField and readiness.nodeSelector are mutually exclusive: a group counts its ready instances either from a field of its target or from Nodes; remove readyReplicasField",
    fieldPath: ".readyReplicasField",
    test: (s) =>
      s.readiness === undefined ||
      s.readyReplicasField === undefined ||
      s.readyReplicasField === DEFAULT_READY_REPLICAS_FIELD,
  }),
  {
    cel: `!(self.targetRef.apiVersion.startsWith('${KARPENTER.group}/') && self.targetRef.kind == '${KARPENTER.nodePool}') || has(self.readiness)`,
    message: `a Karpenter NodePool reports no ready count: set readiness.nodeSelector, for example {${KARPENTER.nodePoolLabel}: <the NodePool's name>}`,
    fieldPath: ".readiness",
    test: (s) => !isKarpenterNodePool(s.targetRef) || s.readiness !== undefined,
  },
);

/**
 * A group does not move: zone and region keep their value and their presence (transition rules on
 * spec, since the API server skips a field's own transition rules when the field is added or removed).
 */
export const InstanceGroupManagerSpec = (["zone", "region"] as const).reduce(
  (spec, field) =>
    rule(spec, {
      cel: `has(self.${field}) == has(oldSelf.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
      message: `${field} is immutable: a group cannot move to another zone or region`,
      fieldPath: `.${field}`,
    }),
  SpecWithReadinessRules,
);

export const InstanceGroupManagerStatus = z
  .object({
    id: Uint64String.meta({
      description:
        "Stable numeric identifier of the group (uint64 as a decimal string), derived from its uid.",
    }).optional(),
    targetSize: Count.meta({
      description: "The target's current desired replicas, read through /scale.",
    }).optional(),
    readyInstances: Count.meta({
      description:
        "Ready instances of the target: read from spec.readyReplicasField, or counted from the Nodes spec.readiness.nodeSelector selects.",
    }).optional(),
    queuedRequests: Count.meta({
      description: "Resize requests of this group waiting in its queue.",
    }).optional(),
    activeRequests: Count.meta({
      description: "Resize requests of this group that are not in a final state (queued or provisioning).",
    }).optional(),
    provisioningRequest: Rfc1035Label.meta({
      description:
        "Name of the resize request with a provisioning attempt in progress; a group runs one at a time.",
    }).optional(),
    conditions: Conditions.meta({
      description:
        "Observations of the group's state; Ready tells whether the target can be scaled and its ready instances counted. When it is False its reason says why: NotFound, NotScalable (no /scale), TargetForbidden (the operator may not read or scale the target; requests wait), ClusterScopedTargetNotAllowed (a cluster-scoped kind not listed as a target; requests wait), TargetResourceMismatch (the kind's resource is not the one admission checked; requests fail), InvalidTargetRef (a targetRef stored before its grammar was enforced; requests fail) or NodeReadinessForbidden (the operator may not list and watch Nodes; the queue waits). InstancesHeldBack (groups with spec.readiness.nodeSelector) is True while a Ready Node the selector selects does not count, its reason UndeclaredTaint (a NoSchedule or NoExecute taint spec.instanceShape.taints does not declare), Cordoned, NotRegistered, SystemTaint or BeingDeleted, its message naming the Nodes. InstanceIdentity is True (OwnInstances) when a release removes exactly a request's own instances (a Karpenter NodePool, a Deployment, a ReplicaSet) False (LastInFirstOut) for a StatefulSet, which removes its highest ordinals (an earlier request's release hands its pods to the later request that lost its own), and False (CountOnly) where the target's own controller chooses which go.",
    }).optional(),
    observedGeneration: Generation.meta({
      description: "The metadata.generation this status was computed from.",
    }).optional(),
  })
  .meta({ description: "Observed state of the group. Written by the controller only." });

export const InstanceGroupManager = customResource(
  INSTANCE_GROUP_MANAGER.kind,
  "A managed group of instances: a workload with a /scale subresource whose replicas resize requests raise, all or nothing, for a bounded time.",
  InstanceGroupManagerSpec,
  InstanceGroupManagerStatus,
);

export type TargetRef = z.infer<typeof TargetRef>;
export type InstanceGroupManagerSpec = z.infer<typeof InstanceGroupManagerSpec>;
export type InstanceGroupManagerStatus = z.infer<typeof InstanceGroupManagerStatus>;
export type InstanceGroupManager = z.infer<typeof InstanceGroupManager>;

/** A group's durations in milliseconds, as the controller and the queue model read them. */
export interface GroupDurations {
  readonly provisioningTimeoutMs: number;
  readonly unschedulableGracePeriodMs: number;
  /** The default queue deadline of the group's requests; none when undefined. */
  readonly maxQueueDurationMs: number | undefined;
}

const millis = (setting: string | undefined, fallback: string): number =>
  parseKubeDuration(setting ?? fallback) ?? parseKubeDuration(fallback) ?? 0;

/** The group's durations, each setting's default above when it is unset (or, unvalidated, malformed). */
export function groupDurations(
  spec: Partial<
    Pick<InstanceGroupManagerSpec, "provisioningTimeout" | "unschedulableGracePeriod" | "maxQueueDuration">
  >,
): GroupDurations {
  return {
    provisioningTimeoutMs: millis(spec.provisioningTimeout, DEFAULT_PROVISIONING_TIMEOUT),
    unschedulableGracePeriodMs: millis(spec.unschedulableGracePeriod, DEFAULT_UNSCHEDULABLE_GRACE_PERIOD),
    maxQueueDurationMs:
      spec.maxQueueDuration === undefined ? undefined : parseKubeDuration(spec.maxQueueDuration),
  };
}

export const instanceGroupManagerResource: CustomResourceModel = {
  names: INSTANCE_GROUP_MANAGER,
  schema: InstanceGroupManager,
  printerColumns: [
    { name: "Zone", type: "string", jsonPath: ".spec.zone", description: "Zone of a zonal group." },
    { name: "Region", type: "string", jsonPath: ".spec.region", description: "Region of a regional group." },
    {
      name: "Target",
      type: "string",
      jsonPath: ".spec.targetRef.name",
      description: "Name of the target workload.",
    },
    {
      name: "Size",
      type: "integer",
      jsonPath: ".status.targetSize",
      description: "The target's desired replicas.",
    },
    { name: "Ready", type: "integer", jsonPath: ".status.readyInstances", description: "Ready instances." },
    {
      name: "Max",
      type: "integer",
      jsonPath: ".spec.maxSize",
      description: "Upper bound on the target's replicas.",
    },
    {
      name: "Queued",
      type: "integer",
      jsonPath: ".status.queuedRequests",
      description: "Requests waiting in the queue.",
      priority: 1,
    },
    {
      name: "Kind",
      type: "string",
      jsonPath: ".spec.targetRef.kind",
      description: "Kind of the target workload.",
      priority: 1,
    },
    {
      name: "Age",
      type: "date",
      jsonPath: ".metadata.creationTimestamp",
      description: "Time since creation.",
    },
  ],
  selectableFields: [".spec.zone", ".spec.region", ".spec.targetRef.name"],
};
