// Why the pods of a target are missing (docs/design.md §4 "Fast rollback"), for every kind whose
// instances the scheduler places as the target's pods: the pods the scheduler could not place, what a
// cluster autoscaler said about them, and whether nothing will add capacity for them — the group says
// so (clusterAutoscaler: None), or a cluster autoscaler posted NotTriggerScaleUp on one of them and no
// TriggeredScaleUp since (a scale-up on its way keeps the attempt waiting up to provisioningTimeout).
// Read only while an Applied attempt is not all ready (controllers/resize/observe.ts, through the kind).
import { CORE_EVENTS, lastPosted, PODS, type CoreEvent, type Pod } from "../runtime/builtin-kinds.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { CapacityQuery, CapacityReading, Shortfall } from "./kind.js";

/** A cluster autoscaler's verdict on a pod, from the core/v1 Event it posts on the pod. */
export interface AutoscalerEvent {
  readonly reason: "NotTriggerScaleUp" | "TriggeredScaleUp";
  /** When it was last posted (the Event's last timestamp), in milliseconds. */
  readonly atMs: number;
  readonly message: string;
}

/** One of the target's pods that the scheduler could not place (PodScheduled=False, Unschedulable). */
export interface UnschedulablePod {
  readonly name: string;
  /** When it became Unschedulable: its PodScheduled condition's lastTransitionTime, in milliseconds. */
  readonly sinceMs: number;
  /** The cluster autoscaler's scale-up events on it; read only for groups with clusterAutoscaler Detect. */
  readonly autoscalerEvents: readonly AutoscalerEvent[];
}

/**
 * The component name cluster-autoscaler posts its pod events under: client-go's recorder writes it as
 * source.component (the `source` field selector of core/v1 events).
 */
export const CLUSTER_AUTOSCALER = "cluster-autoscaler";

const isVerdict = (reason: string | undefined): reason is AutoscalerEvent["reason"] =>
  reason === "NotTriggerScaleUp" || reason === "TriggeredScaleUp";

export interface Stuck {
  /** The scheduler's message, summarised for attempt errors; undefined when no pod is stuck. */
  readonly summary: string | undefined;
  readonly pods: readonly UnschedulablePod[];
}

/**
 * Pure: the pods the scheduler could not place (Pending, PodScheduled=False with reason Unschedulable),
 * each with the cluster autoscaler's scale-up events about it (matched by uid: a pod recreated under the
 * same name is another pod, and the autoscaler's word on the old one does not count).
 */
export function stuckPods(pods: readonly Pod[], events: readonly CoreEvent[]): Stuck {
  const stuck = pods.flatMap((pod) => {
    const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
    return pod.status?.phase === "Pending" &&
      scheduled?.status === "False" &&
      scheduled.reason === "Unschedulable"
      ? [{ pod, scheduled }]
      : [];
  });
  const verdicts = new Map<string, AutoscalerEvent[]>();
  for (const e of events) {
    const uid = e.involvedObject?.uid;
    if (uid === undefined || !isVerdict(e.reason)) continue;
    const verdict = { reason: e.reason, atMs: lastPosted(e), message: e.message ?? "" };
    verdicts.set(uid, [...(verdicts.get(uid) ?? []), verdict]);
  }
  const first = stuck[0];
  return {
    summary: first && `${stuck.length} pod(s) Unschedulable: ${first.scheduled.message ?? "no message"}`,
    pods: stuck.map(({ pod, scheduled }) => ({
      name: pod.metadata?.name ?? "",
      sinceMs: Date.parse(scheduled.lastTransitionTime ?? "") || 0,
      autoscalerEvents: verdicts.get(pod.metadata?.uid ?? "") ?? [],
    })),
  };
}

/**
 * The target's stuck pods: one list of its pods and, only when some are stuck and `autoscaler`
 * (clusterAutoscaler Detect), one list of the cluster autoscaler's pod events in the namespace.
 */
async function unschedulable(
  client: KubeClient,
  namespace: string,
  selector: string,
  autoscaler: boolean,
): Promise<Stuck> {
  const pods = (await client.resource(PODS).list({ namespace, labelSelector: selector })).items;
  const stuck = stuckPods(pods, []);
  if (!autoscaler || stuck.pods.length === 0) return stuck;
  const events = await client
    .resource(CORE_EVENTS)
    .list({ namespace, fieldSelector: `involvedObject.kind=Pod,source=${CLUSTER_AUTOSCALER}` });
  return stuckPods(pods, events.items);
}

/**
 * The autoscaler's current word on a pod: its newest scale-up event. Event times have one-second
 * resolution (client-go's recorder writes lastTimestamp); on a tie the scale-up wins, so an attempt is
 * never rolled back early on an ambiguous verdict.
 */
export function latestVerdict(events: readonly AutoscalerEvent[]): AutoscalerEvent | undefined {
  let latest: AutoscalerEvent | undefined;
  for (const e of events) {
    const newer =
      latest === undefined ||
      e.atMs > latest.atMs ||
      (e.atMs === latest.atMs && e.reason === "TriggeredScaleUp");
    if (newer) latest = e;
  }
  return latest;
}

/** Why nothing will add capacity for the Unschedulable `pods`, and since when; undefined if something may. */
function podsBlock(
  clusterAutoscaler: "Detect" | "None",
  pods: readonly UnschedulablePod[],
): Shortfall["blocked"] {
  if (pods.length === 0) return undefined;
  let blocked: readonly UnschedulablePod[];
  let why: string;
  if (clusterAutoscaler === "None") {
    blocked = pods;
    why = "nothing will add capacity (the group's clusterAutoscaler is None)";
  } else {
    const refused = pods.flatMap((pod) => {
      const verdict = latestVerdict(pod.autoscalerEvents);
      return verdict?.reason === "NotTriggerScaleUp" ? [{ pod, verdict }] : [];
    });
    const first = refused[0];
    if (!first) return undefined;
    blocked = refused.map((r) => r.pod);
    why = `the cluster autoscaler will not add capacity (NotTriggerScaleUp on pod ${first.pod.name}: ${first.verdict.message})`;
  }
  return { sinceMs: Math.min(...blocked.map((pod) => pod.sinceMs)), why };
}

/** Pure: the shortfall the stuck pods say, for a group whose spec.clusterAutoscaler is `clusterAutoscaler`. */
export function podsShortfall(clusterAutoscaler: "Detect" | "None", stuck: Stuck): Shortfall {
  const blocked = podsBlock(clusterAutoscaler, stuck.pods);
  return { ...(stuck.summary !== undefined && { message: stuck.summary }), ...(blocked && { blocked }) };
}

/**
 * The capacity reading of a kind whose instances are the target's pods: only an Applied attempt that is
 * not all ready uses what the pods say (its timeout, its fast rollback), and a cluster-scoped target's
 * selector names no pods of the group's namespace.
 */
export async function podsCapacity(q: CapacityQuery): Promise<CapacityReading> {
  const { target } = q;
  if (q.attempt?.phase !== "Applied" || q.readyReplicas >= target.replicas) return {};
  if (!target.served.namespaced || !target.selector) return {};
  const stuck = await unschedulable(q.client, q.namespace, target.selector, q.clusterAutoscaler === "Detect");
  return { shortfall: podsShortfall(q.clusterAutoscaler, stuck) };
}
