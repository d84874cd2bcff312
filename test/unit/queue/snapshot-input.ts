// The queue model's input for the state a decision sees: the group, the requests and the target of a
// GroupSnapshot (test/unit/controller/builders.ts) as the objects the model reads
// (test/unit/controller/cluster.ts writes the same objects into the fake API server), so one
// generated state goes to both decide() and queueInsight().
import { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import type { GroupSnapshot } from "../../../src/controller/snapshot.js";
import type { QueueInput } from "../../../src/queue/insight.js";
import { groupObject, requestObject } from "../controller/cluster.js";

export function queueInputOf(s: GroupSnapshot): QueueInput {
  const target = s.target?.found
    ? { replicas: s.target.replicas, readyReplicas: s.target.readyReplicas }
    : undefined;
  return {
    group: s.group && InstanceGroupManager.parse(groupObject(s, s.group)),
    requests: s.requests.map((r) => requestObject(s, r)),
    target,
    now: s.nowMs,
  };
}
