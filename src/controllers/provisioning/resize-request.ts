// The ResizeRequest that serves a ProvisioningRequest (pure). Its name is derived from the request's
// name and uid: Kueue may delete a request and create another of the same name (a retry), and the new
// one must get a ResizeRequest of its own, never adopt the old one's.
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { parseKubeDuration } from "../../api/duration.js";
import { DEFAULT_MAX_RUN_DURATION } from "../../api/instance-shape.js";
import { API_VERSION, RESIZE_REQUEST } from "../../api/names.js";
import {
  PROVISIONING_CLASS,
  PROVISIONING_REQUEST_ANNOTATION,
  PROVISIONING_REQUEST_UID_LABEL,
  WORKLOAD_ANNOTATION,
  type ProvisioningRequest,
} from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import { resizeRequestOwners } from "./ownership.js";
import type { Parameters } from "./parameters.js";

/** An RFC 1035 label (≤ 63): `pr-`, the request's name made a label (≤ 48), `-`, 10 hex digits of its uid. */
export function resizeRequestName(pr: ProvisioningRequest): string {
  const slug = (pr.metadata.name ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, 48)
    .replace(/^-+|-+$/g, "");
  const uid = (pr.metadata.uid ?? "").replace(/[^a-f0-9]/g, "").slice(0, 10);
  return `pr-${slug ? `${slug}-` : ""}${uid}`;
}

/** `namespace/name` of the request's Kueue Workload (its controller owner), if it has one. */
function workloadOf(pr: ProvisioningRequest): string | undefined {
  const owner = pr.metadata.ownerReferences?.find(
    (o) => o.kind === "Workload" && o.apiVersion.startsWith("kueue.x-k8s.io/"),
  );
  return owner ? `${pr.metadata.namespace ?? ""}/${owner.name}` : undefined;
}

/**
 * The run duration in seconds: the request's maxRunDurationSeconds, else its group's
 * defaultMaxRunDuration (7 days, as GKE); undefined (0s) keeps the capacity until released.
 */
export function runDurationSeconds(group: InstanceGroupManager, parameters: Parameters): number | undefined {
  if (parameters.maxRunDurationSeconds !== undefined) return parameters.maxRunDurationSeconds;
  const ms = parseKubeDuration(
    group.spec.provisioningRequests?.defaultMaxRunDuration ?? DEFAULT_MAX_RUN_DURATION,
  );
  const seconds = Math.ceil((ms ?? 0) / 1000);
  return seconds > 0 ? seconds : undefined;
}

export function resizeRequestFor(
  pr: ProvisioningRequest,
  group: InstanceGroupManager,
  instances: number,
  parameters: Parameters,
): ResizeRequest {
  const namespace = group.metadata.namespace ?? "";
  const prKey = `${pr.metadata.namespace ?? ""}/${pr.metadata.name ?? ""}`;
  const workload = workloadOf(pr);
  const runSeconds = runDurationSeconds(group, parameters);
  return {
    apiVersion: API_VERSION,
    kind: RESIZE_REQUEST.kind,
    metadata: {
      name: resizeRequestName(pr),
      namespace,
      labels: { [PROVISIONING_REQUEST_UID_LABEL]: pr.metadata.uid ?? "" },
      annotations: {
        [PROVISIONING_REQUEST_ANNOTATION]: prKey,
        ...(workload && { [WORKLOAD_ANNOTATION]: workload }),
      },
      ownerReferences: resizeRequestOwners(pr, group),
    },
    spec: {
      instanceGroupManager: group.metadata.name ?? "",
      resizeBy: instances,
      cancel: false,
      description:
        `Capacity for ProvisioningRequest ${prKey} (class ${PROVISIONING_CLASS})${workload ? `, Kueue Workload ${workload}` : ""}.`.slice(
          0,
          2048,
        ),
      ...(runSeconds !== undefined && { requestedRunDuration: { seconds: String(runSeconds) } }),
      ...(parameters.maxQueueDuration !== undefined && { maxQueueDuration: parameters.maxQueueDuration }),
    },
  };
}
