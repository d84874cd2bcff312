// The group's target as the decision sees it: read just now (through the kind's informer or /scale), or
// why it cannot be used. Plain data: the kind modules and the read path produce it, decide/ reads it.
import type { HeldBack } from "./node-readiness.js";

/** The group's target as read just now through /scale (replicas) and the object (ready count). */
export type TargetView =
  | {
      readonly found: true;
      readonly replicas: number;
      readonly readyReplicas: number;
      /** False while the workload has not caught up with its last change: its ready count is not trusted. */
      readonly settled?: boolean;
      /**
       * Set when the ready count cannot be known: the operator may not read what it is counted from
       * (Nodes, for spec.readiness.nodeSelector). No attempt starts, and none succeeds, while it is set.
       */
      readonly readinessUnavailable?: { readonly reason: string; readonly message: string };
      /**
       * Counted from Nodes only: the selected Nodes that do not count and why, for the waiting request's
       * message and the group's InstancesHeldBack condition.
       */
      readonly heldBack?: HeldBack;
      /** A StatefulSet's first ordinal (spec.ordinals.start, 0 when unset): its pods are <name>-<ordinal>. */
      readonly firstOrdinal?: number;
    }
  | TargetUnavailable;

/**
 * Why a target cannot be used now. NotFound: the kind or the object does not exist. NotScalable: the kind
 * has no /scale. The other three are the operator's refusals (targets/access.ts): it may not read or scale
 * the target (TargetForbidden), the target is of a cluster-scoped kind not listed as one
 * (ClusterScopedTargetNotAllowed), or its kind's resource is not the one admission checked
 * (TargetResourceMismatch). InvalidTargetRef: the reference is not in the API's grammar
 * (api/target-ref.ts), from a group created before the CRD enforced it. AdmissionPolicyMissing: the
 * policies that keep a group from lending the operator's rights are not enforcing (admission-guard.ts).
 * Each is also the reason of the group's Ready condition.
 */
export type TargetUnavailableReason =
  | "NotFound"
  | "NotScalable"
  | "TargetForbidden"
  | "ClusterScopedTargetNotAllowed"
  | "TargetResourceMismatch"
  | "InvalidTargetRef"
  | "AdmissionPolicyMissing";

export interface TargetUnavailable {
  readonly found: false;
  readonly reason: TargetUnavailableReason;
  readonly message: string;
}
