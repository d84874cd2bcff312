// What the reconcile decision sees of one group: plain data gathered by the observer (observe.ts) from
// the informer caches and the target's /scale subresource, with the time, the settings and what the
// controller remembers of the key between passes. No I/O happens past this point.
import type { FutureReservation } from "../../api/future-reservation.js";
import type { InstanceGroupManagerStatus } from "../../api/instance-group-manager.js";
import type { Location } from "../../api/location.js";
import type { RequestView } from "../../cache/request-view.js";
import type { Identity } from "../../targets/instances/kinds.js";
import type { InstancesView } from "../../targets/instances/view.js";
import type { CapacityLimit, LoweringWaits, Shortfall } from "../../targets/kind.js";
import type { TargetView } from "../../targets/view.js";

export interface GroupView {
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
  readonly location: Location;
  readonly maxSize: number | undefined;
  readonly minSize: number;
  readonly provisioningTimeoutMs: number;
  readonly targetApiVersion: string;
  readonly targetKind: string;
  readonly targetName: string;
  /** Default queue deadline of the group's requests (spec.maxQueueDuration); none when undefined. */
  readonly maxQueueDurationMs: number | undefined;
  /** Whether something may add capacity for Unschedulable pods (spec.clusterAutoscaler). */
  readonly clusterAutoscaler: "Detect" | "None";
  /** How long an attempt's pods may stay Unschedulable once nothing will add capacity. */
  readonly unschedulableGracePeriodMs: number;
  /** What its instances are and how a release removes a request's own (instances/kinds.ts). */
  readonly identity?: Identity;
}

export interface GroupSnapshot {
  readonly nowMs: number;
  /** The decision's settings (the operator's flags). */
  readonly config: DecideConfig;
  readonly namespace: string;
  readonly groupName: string;
  /** Undefined when no InstanceGroupManager of that name exists. */
  readonly group: GroupView | undefined;
  /** Undefined when the group is missing (nothing to read). */
  readonly target: TargetView | undefined;
  /**
   * Why the instances an Applied attempt added are missing, as the target's kind says it
   * (targets/kind.ts): read only while the attempt is not all ready; undefined when not read.
   */
  readonly shortfall?: Shortfall;
  /** What lowering the target to roll an attempt back must wait for (targets/kind.ts); undefined when nothing. */
  readonly lowering?: LoweringWaits;
  /**
   * The group's instances (instances/view.ts), read only when its readiness is counted from Nodes and
   * a pass may claim or remove some (an attempt in flight, a release due); undefined when not read.
   */
  readonly instances?: InstancesView;
  /** A limit on the target's capacity, held while a request's own instances go (targets/kind.ts). */
  readonly limit?: CapacityLimit;
  /** The ResizeRequests naming this group that are in play (in-play.ts), in any order. */
  readonly requests: readonly RequestView[];
  /**
   * The group's FutureReservations, any state: a queued request may not take capacity an approved one
   * holds (queue/booking-wait.ts). Empty when the operator serves no bookings.
   */
  readonly bookings?: readonly FutureReservation[];
  /** The group's status as read (what the pass's status is compared with); undefined when it has none. */
  readonly groupStatus?: InstanceGroupManagerStatus | undefined;
  /**
   * When the controller last wrote this group's status (its memory of the key between passes, dropped
   * when the group goes); undefined when it has not since the group appeared or the operator started.
   */
  readonly groupStatusWrittenMs?: number | undefined;
}

export interface DecideConfig {
  /** Base of the operator's public URL, for zone URLs and self links (no trailing slash). */
  readonly publicUrl: string;
  /** First retry delay after a failed attempt; doubles per attempt up to `backoffMaxMs`. */
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** How long a new request waits for its group or target to appear before it fails. */
  readonly admissionGraceMs: number;
  /** How often an attempt in progress is re-checked when no watch event arrives first. */
  readonly pollIntervalMs: number;
  /** The group's status is written at most once per this interval (decide/coalesce.ts). */
  readonly groupStatusIntervalMs: number;
}

/** The group's status is written at most once per this interval (per group), unless set otherwise. */
export const GROUP_STATUS_INTERVAL_MS = 1000;

/**
 * A group whose target is briefly missing, or refused (targets/access.ts), is looked at again after this
 * many poll intervals: a grant or a recreated target sends no event that would wake it.
 */
export const TARGET_RECHECK_POLLS = 5;

export const DEFAULT_DECIDE_CONFIG: DecideConfig = {
  publicUrl: "http://localhost:8080",
  backoffBaseMs: 10_000,
  backoffMaxMs: 300_000,
  admissionGraceMs: 30_000,
  pollIntervalMs: 1_000,
  groupStatusIntervalMs: GROUP_STATUS_INTERVAL_MS,
};
