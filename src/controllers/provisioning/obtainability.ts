// capacitySearchStrategy: OBTAINABILITY (pure, but for reading the caches in groupQueues). GKE answers it
// by queueing in several zones at once and keeping the first that provisions; our queue model can say
// in advance when each group would provision the request, so the provisioner asks it, for every group
// the request may use, what ETA the request's ResizeRequest would get at the back of that group's
// queue, and places it in the group with the earliest one. The ETA is the queue model's own
// (queueInsight, the one the Provisioned=False message and the dashboard show), run on the group's
// queue with the request added, so the choice and what the request then reports agree.
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import type { ProvisioningRequest } from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import { rfc3339Seconds } from "../../api/time.js";
import { cachedQueue, statusTarget, type CachedQueue } from "../../cache/group-queue.js";
import { queueInsight, type Eta, type RequestInsight } from "../../queue/insight.js";
import { objectKey, type Lister } from "../../runtime/store.js";
import type { Parameters } from "./parameters.js";
import { resizeRequestFor } from "./resize-request.js";

/** Every group's queue from the caches (read only while placing a request). */
export function groupQueues(
  groups: readonly InstanceGroupManager[],
  requests: Lister<ResizeRequest>,
): ReadonlyMap<string, CachedQueue> {
  return new Map(groups.map((g) => [objectKey(g), cachedQueue(g, requests, objectKey(g))]));
}

/**
 * The queue model's view of `candidate` (a ResizeRequest not created yet) once it joins the back of
 * `group`'s queue now, created this second as the API server will stamp it, and the queue's length
 * then. The admission's Provisioned=False message says it, so that the request's first write already
 * carries its position and ETA.
 */
export function insightIfQueued(
  group: InstanceGroupManager,
  queue: CachedQueue | undefined,
  candidate: ResizeRequest,
  nowMs: number,
): { readonly insight: RequestInsight | undefined; readonly queueLength: number } {
  const created = rfc3339Seconds(nowMs);
  const joining = { ...candidate, metadata: { ...candidate.metadata, creationTimestamp: created } };
  const insight = queueInsight({
    group,
    requests: [...(queue?.requests ?? []), joining],
    target: queue ? queue.target : statusTarget(group),
    now: nowMs,
  });
  return {
    insight: insight.requests.find((r) => r.name === candidate.metadata.name),
    queueLength: insight.queueLength,
  };
}

/** The ETA the queue model gives `candidate` at the back of `group`'s queue (insightIfQueued). */
export function etaIfQueued(
  group: InstanceGroupManager,
  queue: CachedQueue | undefined,
  candidate: ResizeRequest,
  nowMs: number,
): Eta {
  return (
    insightIfQueued(group, queue, candidate, nowMs).insight?.eta ?? {
      basis: "unknown",
      reason: "the request would not be queued in this group",
    }
  );
}

/** Placement's etaOf for `pr`: the ETA its ResizeRequest, as it would be made for a group, gets there. */
export function queuedEta(
  pr: ProvisioningRequest,
  parameters: Parameters,
  queues: ReadonlyMap<string, CachedQueue>,
  nowMs: number,
): (group: InstanceGroupManager, instances: number) => Eta {
  return (group, instances) =>
    etaIfQueued(
      group,
      queues.get(objectKey(group)),
      resizeRequestFor(pr, group, instances, parameters),
      nowMs,
    );
}

/**
 * The option whose ETA comes first: a known ETA (exact or estimated) before an unknown one, earlier
 * before later, and on a tie the earlier option (the default order: own namespace first, then by name).
 */
export function earliest<T>(options: readonly { readonly option: T; readonly eta: Eta }[]): T | undefined {
  let best: { readonly option: T; readonly eta: Eta } | undefined;
  for (const o of options) {
    if (!best) best = o;
    else if (o.eta.basis !== "unknown" && (best.eta.basis === "unknown" || o.eta.time < best.eta.time))
      best = o;
  }
  return best?.option;
}
