// Fast rollback when the cluster cannot grow (docs/design.md §4 "Fast rollback"), pure: an Applied attempt
// whose new pods are Unschedulable is rolled back after the group's unschedulableGracePeriod, instead
// of at its provisioningTimeout, once nothing will add capacity for them: the group says so
// (clusterAutoscaler: None), or a cluster autoscaler posted NotTriggerScaleUp on one of them and no
// TriggeredScaleUp since (a scale-up on its way keeps the attempt waiting up to provisioningTimeout).
import type { Provisioning } from "../api/resize-request.js";
import type { AutoscalerEvent, GroupView, UnschedulablePod } from "./snapshot.js";

export interface FastRollback {
  /** When the grace ends: from when the pods became Unschedulable, or the attempt was applied if later. */
  readonly atMs: number;
  /** Why nothing will add capacity, for the attempt's error. */
  readonly why: string;
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

/** When (and why) the attempt `p` is to be rolled back early; undefined when it waits for its timeout. */
export function fastRollback(
  group: GroupView | undefined,
  p: Provisioning,
  pods: readonly UnschedulablePod[] | undefined,
): FastRollback | undefined {
  if (!group || p.phase !== "Applied" || p.appliedTime === undefined || !pods || pods.length === 0)
    return undefined;
  let blocked: readonly UnschedulablePod[];
  let why: string;
  if (group.clusterAutoscaler === "None") {
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
  const since = Math.min(...blocked.map((pod) => pod.sinceMs));
  return {
    atMs: Math.max(since, Date.parse(p.appliedTime)) + group.unschedulableGracePeriodMs,
    why,
  };
}
