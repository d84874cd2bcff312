// Builders for the provisioner's unit tests: a group with an instance shape (8 GPUs, 32 CPUs per
// instance), a ProvisioningRequest of our class, its pod templates and its ResizeRequest.
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import type { InstanceShape } from "../../../src/api/instance-shape.js";
import { API_VERSION } from "../../../src/api/names.js";
import {
  PROVISIONING_API_VERSION,
  PROVISIONING_CLASS,
  PROVISIONING_REQUEST_ANNOTATION,
  PROVISIONING_REQUEST_UID_LABEL,
  type PodSpec,
  type PodTemplate,
  type PrCondition,
  type ProvisioningRequest,
} from "../../../src/api/provisioning-request.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { rfc3339 } from "../../../src/api/time.js";
import { bookingEndsAt } from "../../../src/controllers/provisioning/booking.js";
import { groupOf } from "../../../src/controllers/provisioning/ownership.js";
import { parseParameters } from "../../../src/controllers/provisioning/parameters.js";
import type { RequestSnapshot } from "../../../src/controllers/provisioning/snapshot.js";
import type { RequestInsight } from "../../../src/queue/insight.js";

export const T0 = Date.parse("2026-01-01T00:00:00.000Z");
/** `s` seconds after T0, as the operator writes times in status fields (api/time.ts). */
export const at = (s: number): string => rfc3339(T0 + s * 1000);
/** An hour: GKE's retention of a finished request's resize requests, the provisioner's default. */
export const HOUR = 3_600_000;
export const UID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

export const GPU_SHAPE: InstanceShape = {
  allocatable: { cpu: "32", memory: "256Gi", "nvidia.com/gpu": "8", pods: "110" },
  labels: { pool: "gpu" },
  taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }],
};

/** A group's ProvisioningRequest policy fields other than the consent, as the API server defaults them. */
export const POLICY_DEFAULTS = {
  bookingWindow: "10m",
  defaultMaxRunDuration: "168h",
  strictParameters: false,
};

export function group(
  name = "gpu",
  namespace = "team-a",
  spec: Partial<InstanceGroupManager["spec"]> = {},
): InstanceGroupManager {
  return {
    apiVersion: API_VERSION,
    kind: "InstanceGroupManager",
    metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
    spec: {
      zone: "local-a",
      targetRef: { apiVersion: "testbed.resize-operator.dev/v1", kind: "NodePool", name },
      maxSize: 8,
      minSize: 0,
      provisioningTimeout: "10m",
      readyReplicasField: "status.readyReplicas",
      clusterAutoscaler: "Detect",
      unschedulableGracePeriod: "60s",
      instanceShape: GPU_SHAPE,
      // The owner's consent for the group's own namespace (the default is none).
      provisioningRequests: { namespaces: "Same", ...POLICY_DEFAULTS },
      ...spec,
    },
  };
}

/** A GPU worker: `gpus` GPUs and 4 CPUs, tolerating the pool's taint and selecting its label. */
export function gpuPod(gpus = 8, extra: Partial<PodSpec> = {}): PodSpec {
  return {
    containers: [
      { name: "w", resources: { requests: { "nvidia.com/gpu": String(gpus), cpu: "4", memory: "16Gi" } } },
    ],
    nodeSelector: { pool: "gpu" },
    tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
    ...extra,
  };
}

export function template(name: string, spec: PodSpec, namespace = "team-a"): PodTemplate {
  return { apiVersion: "v1", kind: "PodTemplate", metadata: { name, namespace }, template: { spec } };
}

export function pr(
  o: {
    name?: string;
    namespace?: string;
    podSets?: { name: string; count: number }[];
    parameters?: Record<string, string>;
    conditions?: PrCondition[];
    details?: Record<string, string>;
    className?: string;
  } = {},
): ProvisioningRequest {
  return {
    apiVersion: PROVISIONING_API_VERSION,
    kind: "ProvisioningRequest",
    metadata: {
      name: o.name ?? "job-a-prov-1",
      namespace: o.namespace ?? "team-a",
      uid: UID,
      generation: 1,
      ownerReferences: [
        {
          apiVersion: "kueue.x-k8s.io/v1beta2",
          kind: "Workload",
          name: "job-a",
          uid: "w1",
          controller: true,
        },
      ],
    },
    spec: {
      provisioningClassName: o.className ?? PROVISIONING_CLASS,
      podSets: (o.podSets ?? [{ name: "ppt-job-a-prov-1-main", count: 4 }]).map((s) => ({
        podTemplateRef: { name: s.name },
        count: s.count,
      })),
      ...(o.parameters && { parameters: o.parameters }),
    },
    ...((o.conditions ?? o.details) && {
      status: {
        ...(o.conditions && { conditions: o.conditions }),
        ...(o.details && { provisioningClassDetails: o.details }),
      },
    }),
  };
}

export const cond = (type: string, status: "True" | "False", reason: string, s = 0): PrCondition => ({
  type,
  status,
  reason,
  message: "",
  lastTransitionTime: at(s),
  observedGeneration: 1,
});

export function rr(
  status: ResizeRequestStatus | undefined,
  o: { size?: number; name?: string } = {},
): ResizeRequest {
  return {
    apiVersion: API_VERSION,
    kind: "ResizeRequest",
    metadata: {
      name: o.name ?? "pr-job-a-prov-1-0f1e2d3c4b",
      namespace: "team-a",
      uid: "rr-uid",
      creationTimestamp: at(0),
      labels: { [PROVISIONING_REQUEST_UID_LABEL]: UID },
      annotations: { [PROVISIONING_REQUEST_ANNOTATION]: "team-a/job-a-prov-1" },
      // As the provisioner makes it: owned by the request and by the group.
      ownerReferences: [
        { apiVersion: PROVISIONING_API_VERSION, kind: "ProvisioningRequest", name: "job-a-prov-1", uid: UID },
        { apiVersion: API_VERSION, kind: "InstanceGroupManager", name: "gpu", uid: "uid-team-a-gpu" },
      ],
    },
    spec: { instanceGroupManager: "gpu", resizeBy: o.size ?? 4, cancel: false },
    ...(status && { status }),
  };
}

/**
 * A snapshot of a new request whose templates exist (main: 4 pods × 8 GPUs). Its parameters and its
 * booking are derived from the request, the groups and the ResizeRequest as observation derives them,
 * unless given.
 */
export function snapshot(o: Partial<RequestSnapshot> = {}): RequestSnapshot {
  const base = {
    request: pr(),
    nowMs: T0 + 60_000,
    retentionMs: HOUR,
    orphans: [],
    resizeRequest: undefined,
    namesakes: [],
    groups: [group()],
    templates: new Map([["ppt-job-a-prov-1-main", template("ppt-job-a-prov-1-main", gpuPod())]]),
    namespaceLabels: undefined,
    insight: undefined,
    queueLength: 0,
    consumed: false,
    ...o,
  };
  const parameters = o.parameters ?? parseParameters(base.request.spec.parameters);
  const rr = base.resizeRequest;
  return {
    ...base,
    parameters,
    bookingEndsAt:
      "bookingEndsAt" in o
        ? o.bookingEndsAt
        : rr &&
          bookingEndsAt(
            base.request.status?.conditions,
            parameters,
            groupOf(base.groups, rr),
            rr,
            base.nowMs,
          ),
  };
}

/** A ResizeRequest status: CANCELLED at `s` seconds. */
export function cancelledAt(s: number): ResizeRequestStatus {
  return {
    state: "CANCELLED",
    conditions: [
      {
        type: "Cancelled",
        status: "True",
        reason: "Cancelled",
        message: "",
        lastTransitionTime: at(s),
        observedGeneration: 1,
      },
    ],
  };
}

/** The queue model's view of the request's ResizeRequest: second in its queue, an exact ETA. */
export const waitingInsight = (o: Partial<RequestInsight> = {}): RequestInsight => ({
  name: "pr-job-a-prov-1-0f1e2d3c4b",
  position: 2,
  size: 4,
  waitingSince: T0,
  state: "ACCEPTED",
  waitingFor: { kind: "BehindHead", head: "holder", ahead: 1 },
  eta: { basis: "exact", start: T0 + 300_000, time: T0 + 330_000 },
  queueDeadline: undefined,
  missesDeadline: false,
  ...o,
});
