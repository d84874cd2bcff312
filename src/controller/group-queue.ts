// A group's queue as readers outside the controller see it: the queue model (src/queue/insight.ts) run
// on the informer caches at the moment of the read — the group, all of its requests (BY_GROUP index,
// finished ones give the attempt history) and the target counts of the group's status. Used by the
// dashboard, the metrics and the ProvisioningRequest provisioner; nothing of it is stored.
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { queueInsight, type QueueInsight, type TargetCounts } from "../queue/insight.js";
import type { Lister } from "../runtime/store.js";
import { BY_GROUP } from "./indexes.js";

/** The target's counts as the controller last wrote them on the group; undefined before it has. */
export function statusTarget(group: InstanceGroupManager): TargetCounts | undefined {
  const status = group.status;
  return status?.targetSize === undefined
    ? undefined
    : { replicas: status.targetSize, readyReplicas: status.readyInstances ?? 0 };
}

/** The queue model on the caches: the group `namespace/name` and every request naming it. */
export function groupQueue(
  groups: Lister<InstanceGroupManager>,
  requests: Lister<ResizeRequest>,
  key: string,
  now: number,
): {
  readonly group: InstanceGroupManager | undefined;
  readonly requests: ResizeRequest[];
  readonly insight: QueueInsight;
} {
  const group = groups.get(key);
  const all = requests.byIndex(BY_GROUP, key);
  const target = group && statusTarget(group);
  return { group, requests: all, insight: queueInsight({ group, requests: all, target, now }) };
}
