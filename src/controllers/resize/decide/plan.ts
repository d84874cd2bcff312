// What decide() returns: the desired request statuses, finalizer changes, at most one scale change, the
// group's status and the events of one pass. The executor (../execute.ts) carries it out.
import type { InstanceGroupManagerStatus } from "../../../api/instance-group-manager.js";
import type { ResizeRequestStatus } from "../../../api/resize-request.js";
import type { EventDefinition } from "../../../events/catalog.js";
import type { MergePatch } from "../../../runtime/resource-client.js";
import type { InstanceWrite, Removal } from "../../../targets/instances/view.js";

export interface RequestChange {
  readonly name: string;
  /** The new status, present only when it differs from the observed one. */
  readonly status?: ResizeRequestStatus;
  readonly finalizer?: "add" | "remove";
}

/**
 * A scale change, applied only after the status change of `request` that records it succeeded, and
 * only while the target still has `from` replicas (the write carries the resourceVersion of the target as
 * observed, so a change since is a conflict and the pass is decided again).
 */
export interface ScaleChange {
  readonly request: string;
  readonly from: number;
  readonly replicas: number;
  /**
   * What goes with the scale when it removes a request's own instances (instances/view.ts), only once
   * the record is confirmed, like the scale: first `hold` is merged into the target (its capacity limit
   * held, targets/kind.ts), then the instances' own objects are deleted and `writes` made (pods'
   * deletion cost), then the replicas lowered.
   */
  readonly removal?: Removal & { readonly hold: MergePatch | undefined };
}

export interface PlannedEvent {
  readonly request: string;
  readonly event: EventDefinition;
  readonly note: string;
}

/** An Event on the group itself (its target refused, Nodes it may not read), emitted once its status is written. */
export interface PlannedGroupEvent {
  readonly event: EventDefinition;
  readonly note: string;
}

export interface Plan {
  /** Labels that make instances a request's own, written before any status (which then lists them). */
  readonly labels: readonly InstanceWrite[];
  readonly requests: readonly RequestChange[];
  readonly scale: ScaleChange | undefined;
  /** The group's new status when it differs from the observed one. */
  readonly groupStatus: InstanceGroupManagerStatus | undefined;
  /** Merged into the target after everything else: a held capacity limit given back (targets/kind.ts, CapacityLimit). */
  readonly targetPatch: MergePatch | undefined;
  /** Events on the group that come with `groupStatus` (none without it). */
  readonly groupEvents: readonly PlannedGroupEvent[];
  readonly events: readonly PlannedEvent[];
  readonly requeueAfterMs: number | undefined;
}
