// Fast rollback when the cluster cannot grow (docs/design.md §4 "Fast rollback"), pure: an Applied attempt
// whose new pods are Unschedulable is rolled back after the group's unschedulableGracePeriod, instead
// of at its provisioningTimeout, once nothing will add capacity for them: the group says so
// (clusterAutoscaler: None), or a cluster autoscaler posted NotTriggerScaleUp on one of them and no
// TriggeredScaleUp since (a scale-up on its way keeps the attempt waiting up to provisioningTimeout).
// For a Karpenter NodePool target, Karpenter's own objects say it (karpenter.ts).
import type { Provisioning } from "../../api/resize-request.js";
import { karpenterBlock, type KarpenterView } from "../../targets/karpenter/launches.js";
import type { AutoscalerEvent, GroupView, UnschedulablePod } from "./snapshot.js";

export interface FastRollback {
  /** When the grace ends: from when the pods became Unschedulable, or the attempt was applied if later. */
  readonly atMs: number;
  /** Why nothing will add capacity, for the attempt's error. */
  readonly why: string;
  /** What the instances lack, when no pod says it (Karpenter's word), for the attempt's error. */
  readonly summary?: string;
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
  group: GroupView,
  pods: readonly UnschedulablePod[] | undefined,
): { sinceMs: number; why: string } | undefined {
  if (!pods || pods.length === 0) return undefined;
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
  return { sinceMs: Math.min(...blocked.map((pod) => pod.sinceMs)), why };
}

/**
 * When (and why) the attempt `p` is to be rolled back early; undefined when it waits for its timeout.
 * `karpenter` is what Karpenter says of a NodePool target wanting `replicas`.
 */
export function fastRollback(
  group: GroupView | undefined,
  p: Provisioning,
  pods: readonly UnschedulablePod[] | undefined,
  karpenter?: { readonly view: KarpenterView | undefined; readonly replicas: number },
): FastRollback | undefined {
  if (!group || p.phase !== "Applied" || p.appliedTime === undefined) return undefined;
  const appliedMs = Date.parse(p.appliedTime);
  const block =
    podsBlock(group, pods) ?? (karpenter && karpenterBlock(karpenter.view, karpenter.replicas, appliedMs));
  if (!block) return undefined;
  return {
    atMs: Math.max(block.sinceMs, appliedMs) + group.unschedulableGracePeriodMs,
    why: block.why,
    ...("summary" in block && { summary: block.summary }),
  };
}
