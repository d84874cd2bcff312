// A group's queue as the dashboard and the metrics read it: the queue model (src/queue/insight.ts) run
// on the informer caches at the moment of the read — the group, all of its requests (BY_GROUP index,
// finished ones give the attempt history) and the target counts of the group's status — plus the
// moments capacity frees, for the forecast on the capacity chart. Nothing of it is stored.
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { BY_GROUP } from "../controller/observe.js";
import { queueInsight, type QueueInsight, type TargetCounts } from "../queue/insight.js";
import type { Lister } from "../runtime/store.js";
import type { QueueAnswer } from "./answers.js";

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

/** GET /groups/:namespace/:name/queue. */
export function queueAnswer(source: ReturnType<typeof groupQueue>, now: number): QueueAnswer {
  const { insight } = source;
  return {
    now,
    exists: source.group !== undefined,
    queueLength: insight.queueLength,
    history: insight.history ?? null,
    requests: insight.requests,
    releases: insight.releases,
  };
}
