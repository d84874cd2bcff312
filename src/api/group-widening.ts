// Which fields of a group's spec let it take more from its target, written once for the admission
// policy that checks them (generate/target-policy.ts), the authorization matrix and the docs. Setting or
// changing a widening field needs the same right as pointing the group at its target: `update` on the
// target's /scale. Every spec field is classified here; a unit test fails on a field that is not.
import type { InstanceGroupManagerSpec } from "./instance-group-manager.js";

type SpecField = keyof InstanceGroupManagerSpec;

/** Fields whose change can give the group more of its target, or another target, and why. */
export const WIDENING_FIELDS = {
  targetRef: "points the group at a workload",
  maxSize: "raises (or removes) the bound on the target's replicas",
  minSize: "keeps more of the target when requests release it",
  provisioningRequests: "lets more namespaces' ProvisioningRequests take the group's capacity",
  readiness: "chooses the Nodes counted as the group's instances",
  readyReplicasField: "chooses the field counted as the group's ready instances",
  instanceShape: "chooses the taints tolerated and the shape ProvisioningRequests are packed onto",
} as const satisfies Partial<Record<SpecField, string>>;

/** Fields that change only how the group's own requests are served, and why they cannot widen it. */
export const NON_WIDENING_FIELDS = {
  zone: "immutable",
  region: "immutable",
  provisioningTimeout: "how long one attempt may take; an attempt never holds more than it asked for",
  finishedRequestRetention: "how long finished requests are kept",
  maxQueueDuration: "how long requests may wait",
  clusterAutoscaler: "when an attempt rolls back early",
  unschedulableGracePeriod: "when an attempt rolls back early",
} as const satisfies Partial<Record<SpecField, string>>;

export type WideningField = keyof typeof WIDENING_FIELDS;
export const WIDENING_FIELD_NAMES = Object.keys(WIDENING_FIELDS) as WideningField[];
