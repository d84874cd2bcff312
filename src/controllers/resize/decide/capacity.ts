// Fast rollback when the cluster cannot grow (docs/design.md §4 "Fast rollback"), pure: an Applied attempt
// whose new instances nothing will add is rolled back after the group's unschedulableGracePeriod,
// instead of at its provisioningTimeout. Whether nothing will, since when and why is the target kind's
// word (targets/kind.ts, Shortfall: the pods' scheduler and cluster autoscaler, or the kind's own objects).
import type { Provisioning } from "../../../api/resize-request.js";
import type { Shortfall } from "../../../targets/kind.js";
import type { GroupView } from "../snapshot.js";

export interface FastRollback {
  /** When the grace ends: from when nothing would add capacity, or the attempt was applied if later. */
  readonly atMs: number;
  /** Why nothing will add capacity, for the attempt's error. */
  readonly why: string;
}

/** When (and why) the attempt `p` is to be rolled back early; undefined when it waits for its timeout. */
export function fastRollback(
  group: GroupView | undefined,
  p: Provisioning,
  shortfall: Shortfall | undefined,
): FastRollback | undefined {
  if (!group || p.phase !== "Applied" || p.appliedTime === undefined) return undefined;
  const block = shortfall?.blocked;
  if (!block) return undefined;
  const appliedMs = Date.parse(p.appliedTime);
  return {
    atMs: Math.max(block.sinceMs, appliedMs) + group.unschedulableGracePeriodMs,
    why: block.why,
  };
}
