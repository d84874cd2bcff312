// Valid and invalid ResizeRequest / InstanceGroupManager objects, shared by the unit tests (the zod
// model must reject them) and the integration tests (the API server must reject them, with the
// message given here). One table, two enforcers: the proof that both come from one model.
import { API_VERSION } from "../../src/api/names.js";

type Json = Record<string, unknown>;

export function resizeRequest(name: string, spec: Json): Json {
  return { apiVersion: API_VERSION, kind: "ResizeRequest", metadata: { name }, spec };
}

export function instanceGroupManager(name: string, spec: Json): Json {
  return { apiVersion: API_VERSION, kind: "InstanceGroupManager", metadata: { name }, spec };
}

const group = "gpu-workers";
const target = { apiVersion: "apps/v1", kind: "StatefulSet", name: "gpu-workers" };
const rr = (spec: Json, name = "rr-invalid") => resizeRequest(name, { instanceGroupManager: group, ...spec });
const igm = (spec: Json, name = "igm-invalid") =>
  instanceGroupManager(name, { zone: "local-a", targetRef: target, ...spec });

const RFC1035 = "must be an RFC 1035 label of 1-63 characters";

export interface InvalidCreate {
  readonly title: string;
  readonly plural: "resizerequests" | "instancegroupmanagers";
  readonly object: Json;
  /** A substring of the API server's rejection message. */
  readonly apiServer: string;
  /** The zod issue message, where the rule is one the model states as CEL and zod alike. */
  readonly zod?: string;
}

export const invalidCreates: readonly InvalidCreate[] = [
  {
    title: "a 64-character name",
    plural: "resizerequests",
    object: rr({ resizeBy: 1 }, "a".repeat(64)),
    apiServer: "metadata.name: Too long: may not be more than 63 bytes",
    zod: RFC1035,
  },
  {
    title: "an uppercase name",
    plural: "resizerequests",
    object: rr({ resizeBy: 1 }, "Train-8"),
    apiServer: `metadata.name: Invalid value: ${RFC1035}`,
    zod: RFC1035,
  },
  {
    title: "a name with a leading digit",
    plural: "resizerequests",
    object: rr({ resizeBy: 1 }, "8gpus"),
    apiServer: `metadata.name: Invalid value: ${RFC1035}`,
    zod: RFC1035,
  },
  {
    title: "a name ending with '-'",
    plural: "resizerequests",
    object: rr({ resizeBy: 1 }, "train-"),
    apiServer: `metadata.name: Invalid value: ${RFC1035}`,
    zod: RFC1035,
  },
  {
    title: "resizeBy: 0",
    plural: "resizerequests",
    object: rr({ resizeBy: 0 }),
    apiServer: "spec.resizeBy in body should be greater than or equal to 1",
  },
  {
    title: "a negative resizeBy",
    plural: "resizerequests",
    object: rr({ resizeBy: -3 }),
    apiServer: "spec.resizeBy in body should be greater than or equal to 1",
  },
  {
    title: "both resizeBy and instances",
    plural: "resizerequests",
    object: rr({ resizeBy: 2, instances: [{ name: "a" }, { name: "b" }] }),
    apiServer: "spec.resizeBy: Invalid value: exactly one of resizeBy or instances must be set",
    zod: "exactly one of resizeBy or instances must be set",
  },
  {
    title: "neither resizeBy nor instances",
    plural: "resizerequests",
    object: rr({}),
    apiServer: "spec.resizeBy: Invalid value: exactly one of resizeBy or instances must be set",
    zod: "exactly one of resizeBy or instances must be set",
  },
  {
    title: "an empty instances list",
    plural: "resizerequests",
    object: rr({ instances: [] }),
    apiServer: "spec.instances in body should have at least 1 items",
  },
  {
    title: "duplicate instance names",
    plural: "resizerequests",
    object: rr({ instances: [{ name: "runner-a" }, { name: "runner-a" }] }),
    apiServer: 'spec.instances[1]: Duplicate value: {"name":"runner-a"}',
    zod: "instance names must be unique",
  },
  {
    title: "an instance name that is not an RFC 1035 label",
    plural: "resizerequests",
    object: rr({ instances: [{ name: "Runner_A" }] }),
    apiServer: "spec.instances[0].name in body should match '^[a-z]([-a-z0-9]*[a-z0-9])?$'",
    zod: RFC1035,
  },
  {
    title: "a group name that is not an RFC 1035 label",
    plural: "resizerequests",
    object: resizeRequest("rr-invalid", { instanceGroupManager: "GPU.workers", resizeBy: 1 }),
    apiServer: "spec.instanceGroupManager in body should match '^[a-z]([-a-z0-9]*[a-z0-9])?$'",
    zod: RFC1035,
  },
  {
    title: "no instanceGroupManager",
    plural: "resizerequests",
    object: resizeRequest("rr-invalid", { resizeBy: 1 }),
    apiServer: "spec.instanceGroupManager: Required value",
  },
  {
    title: 'seconds: "315576000001"',
    plural: "resizerequests",
    object: rr({ resizeBy: 1, requestedRunDuration: { seconds: "315576000001" } }),
    apiServer:
      'spec.requestedRunDuration.seconds: Invalid value: "315576000001": seconds must be between 0 and 315576000000',
    zod: "seconds must be between 0 and 315576000000",
  },
  {
    title: 'seconds: "abc"',
    plural: "resizerequests",
    object: rr({ resizeBy: 1, requestedRunDuration: { seconds: "abc" } }),
    apiServer: "spec.requestedRunDuration.seconds in body should match '^(0|[1-9][0-9]*)$'",
    zod: "seconds must be a decimal integer string (int64)",
  },
  {
    title: 'negative seconds: "-60"',
    plural: "resizerequests",
    object: rr({ resizeBy: 1, requestedRunDuration: { seconds: "-60" } }),
    apiServer: "spec.requestedRunDuration.seconds in body should match '^(0|[1-9][0-9]*)$'",
    zod: "seconds must be a decimal integer string (int64)",
  },
  {
    title: "seconds as a JSON number",
    plural: "resizerequests",
    object: rr({ resizeBy: 1, requestedRunDuration: { seconds: 3600 } }),
    apiServer:
      'spec.requestedRunDuration.seconds: Invalid value: "integer": spec.requestedRunDuration.seconds in body must be of type string',
  },
  {
    title: "nanos: 1000000000",
    plural: "resizerequests",
    object: rr({ resizeBy: 1, requestedRunDuration: { seconds: "1", nanos: 1_000_000_000 } }),
    apiServer: "spec.requestedRunDuration.nanos in body should be less than or equal to 999999999",
  },
  {
    title: "negative nanos",
    plural: "resizerequests",
    object: rr({ resizeBy: 1, requestedRunDuration: { nanos: -1 } }),
    apiServer: "spec.requestedRunDuration.nanos in body should be greater than or equal to 0",
  },
  {
    title: "a zero duration (sub-second durations need nanos > 0)",
    plural: "resizerequests",
    object: rr({ resizeBy: 1, requestedRunDuration: { seconds: "0", nanos: 0 } }),
    apiServer: "a duration must be positive: under one second use seconds 0 and nanos > 0",
    zod: "a duration must be positive: under one second use seconds 0 and nanos > 0",
  },
  {
    title: "a description over 2048 characters",
    plural: "resizerequests",
    object: rr({ resizeBy: 1, description: "x".repeat(2049) }),
    apiServer: "spec.description: Too long: may not be more than 2048 bytes",
  },
  {
    title: "an IGM with minSize > maxSize",
    plural: "instancegroupmanagers",
    object: igm({ minSize: 5, maxSize: 4 }),
    apiServer: "spec.minSize: Invalid value: minSize must not be greater than maxSize",
    zod: "minSize must not be greater than maxSize",
  },
  {
    title: "an IGM zone that is not an RFC 1035 label",
    plural: "instancegroupmanagers",
    object: igm({ zone: "Zone_A" }),
    apiServer: "spec.zone in body should match '^[a-z]([-a-z0-9]*[a-z0-9])?$'",
    zod: RFC1035,
  },
  {
    title: "an IGM with a negative maxSize",
    plural: "instancegroupmanagers",
    object: igm({ maxSize: -1 }),
    apiServer: "spec.maxSize in body should be greater than or equal to 0",
  },
  {
    title: "an IGM provisioningTimeout over 24h",
    plural: "instancegroupmanagers",
    object: igm({ provisioningTimeout: "48h" }),
    apiServer: 'spec.provisioningTimeout: Invalid value: "48h": must be between 1s and 24h',
    zod: "must be between 1s and 24h",
  },
  {
    title: "an IGM provisioningTimeout that is not a duration",
    plural: "instancegroupmanagers",
    object: igm({ provisioningTimeout: "ten minutes" }),
    apiServer: "spec.provisioningTimeout in body should match",
    zod: "must be a duration such as 90s, 10m or 1h30m",
  },
  {
    title: "an IGM with an uppercase name",
    plural: "instancegroupmanagers",
    object: igm({}, "GPU-workers"),
    apiServer: `metadata.name: Invalid value: ${RFC1035}`,
    zod: RFC1035,
  },
  {
    title: "an IGM with both zone and region",
    plural: "instancegroupmanagers",
    object: igm({ region: "local" }),
    apiServer: "spec.zone: Invalid value: exactly one of zone or region must be set",
    zod: "exactly one of zone or region must be set",
  },
  {
    title: "an IGM with neither zone nor region",
    plural: "instancegroupmanagers",
    object: instanceGroupManager("igm-invalid", { targetRef: target }),
    apiServer: "spec.zone: Invalid value: exactly one of zone or region must be set",
    zod: "exactly one of zone or region must be set",
  },
  {
    title: "an IGM counting ready instances both from a field and from Nodes",
    plural: "instancegroupmanagers",
    object: igm({
      readyReplicasField: "status.availableReplicas",
      readiness: { nodeSelector: { pool: "a" } },
    }),
    apiServer:
      "spec.readyReplicasField: Invalid value: readyReplicasField and readiness.nodeSelector are mutually exclusive",
    zod: "readyReplicasField and readiness.nodeSelector are mutually exclusive",
  },
  {
    title: "an IGM over a Karpenter NodePool without readiness.nodeSelector",
    plural: "instancegroupmanagers",
    object: igm({ targetRef: { apiVersion: "karpenter.sh/v1", kind: "NodePool", name: "gpu" } }),
    apiServer: "spec.readiness: Invalid value: a Karpenter NodePool reports no ready count",
    zod: "a Karpenter NodePool reports no ready count",
  },
  {
    title: "an IGM with an empty readiness.nodeSelector",
    plural: "instancegroupmanagers",
    object: igm({ readiness: { nodeSelector: {} } }),
    apiServer: "spec.readiness.nodeSelector: Invalid value: must name at least one label",
    zod: "must name at least one label",
  },
  {
    title: "an IGM whose readiness.nodeSelector key is not a label key",
    plural: "instancegroupmanagers",
    object: igm({ readiness: { nodeSelector: { "pool,team": "a" } } }),
    apiServer: "spec.readiness.nodeSelector: Invalid value: keys must be label keys",
  },
  {
    title: "an IGM without targetRef",
    plural: "instancegroupmanagers",
    object: instanceGroupManager("igm-invalid", { zone: "local-a" }),
    apiServer: "spec.targetRef: Required value",
  },
];

/** A change to an existing object: `patches` are merge patches; all but the last must be accepted. */
export interface InvalidUpdate {
  readonly title: string;
  readonly spec: Json;
  readonly subresource?: "status";
  readonly patches: readonly Json[];
  readonly apiServer: string;
}

const quotaError = {
  errors: [
    {
      code: "QUOTA_EXCEEDED",
      message: "resizeBy 20 can never fit under maxSize 16",
      errorDetails: [{ quotaInfo: { metricName: "instances", limitName: "maxSize", limit: 16 } }],
    },
  ],
};

export const invalidUpdates: readonly InvalidUpdate[] = [
  {
    title: "resizeBy changed after creation",
    spec: { resizeBy: 2 },
    patches: [{ spec: { resizeBy: 3 } }],
    apiServer: "spec.resizeBy: Invalid value: resizeBy is immutable: only cancel may change after creation",
  },
  {
    title: "requestedRunDuration added after creation",
    spec: { resizeBy: 2 },
    patches: [{ spec: { requestedRunDuration: { seconds: "60" } } }],
    apiServer: "requestedRunDuration is immutable: only cancel may change after creation",
  },
  {
    title: "instanceGroupManager changed after creation",
    spec: { resizeBy: 2 },
    patches: [{ spec: { instanceGroupManager: "other-group" } }],
    apiServer: "instanceGroupManager is immutable: only cancel may change after creation",
  },
  {
    title: "description removed after creation",
    spec: { resizeBy: 2, description: "keep me" },
    patches: [{ spec: { description: null } }],
    apiServer: "description is immutable: only cancel may change after creation",
  },
  {
    title: "cancel set back from true to false",
    spec: { resizeBy: 2 },
    patches: [{ spec: { cancel: true } }, { spec: { cancel: false } }],
    apiServer: "spec.cancel: Invalid value: cancel cannot be set back to false once it is true",
  },
  {
    title: "a state outside the enum",
    spec: { resizeBy: 2 },
    subresource: "status",
    patches: [{ status: { state: "RUNNING" } }],
    apiServer:
      'status.state: Unsupported value: "RUNNING": supported values: "CREATING", "ACCEPTED", "SUCCEEDED", "FAILED", "CANCELLED"',
  },
  {
    title: "STATE_UNSPECIFIED",
    spec: { resizeBy: 2 },
    subresource: "status",
    patches: [{ status: { state: "STATE_UNSPECIFIED" } }],
    apiServer: 'status.state: Unsupported value: "STATE_UNSPECIFIED"',
  },
  {
    title: "a final state left again",
    spec: { resizeBy: 2 },
    subresource: "status",
    patches: [{ status: { state: "FAILED", error: quotaError } }, { status: { state: "ACCEPTED" } }],
    apiServer:
      "status.state: Invalid value: state is final: a request in SUCCEEDED, FAILED or CANCELLED never changes state",
  },
  {
    title: "status.error removed",
    spec: { resizeBy: 2 },
    subresource: "status",
    patches: [{ status: { state: "FAILED", error: quotaError } }, { status: { error: null } }],
    apiServer: "status.error: Invalid value: error is final and cannot be removed",
  },
  {
    title: "QUOTA_EXCEEDED without quotaInfo",
    spec: { resizeBy: 2 },
    subresource: "status",
    patches: [{ status: { state: "FAILED", error: { errors: [{ code: "QUOTA_EXCEEDED" }] } } }],
    apiServer:
      "status.error.errors[0].errorDetails: Invalid value: an error with code QUOTA_EXCEEDED carries a quotaInfo detail",
  },
  {
    title: "an error detail holding two kinds",
    spec: { resizeBy: 2 },
    subresource: "status",
    patches: [
      {
        status: {
          lastAttempt: {
            error: {
              errors: [
                { code: "X", errorDetails: [{ help: { links: [] }, localizedMessage: { locale: "en" } }] },
              ],
            },
          },
        },
      },
    ],
    apiServer: "an error detail holds exactly one of errorInfo, quotaInfo, help, localizedMessage",
  },
  {
    title: "errorInfo.reason over 63 characters",
    spec: { resizeBy: 2 },
    subresource: "status",
    patches: [
      {
        status: {
          lastAttempt: {
            error: { errors: [{ code: "X", errorDetails: [{ errorInfo: { reason: "R".repeat(64) } }] }] },
          },
        },
      },
    ],
    apiServer: "Too long: may not be more than 63 bytes",
  },
];
