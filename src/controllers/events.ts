// Every event the resize controller emits, declared once; docs/events.md renders this table. Most regard
// a ResizeRequest; the CheckTarget ones regard the InstanceGroupManager whose target is refused, the
// CountReady ones the group whose ready instances are counted from Nodes.
import { defineEventCatalog } from "../events/catalog.js";

export const resizeEvents = defineEventCatalog({
  Accepted: {
    type: "Normal",
    reason: "Accepted",
    action: "Admit",
    when: "A new request passed admission against its group and joined the group's queue (state ACCEPTED). Not emitted when the same pass also starts its attempt: ProvisioningStarted then tells both.",
  },
  WaitingForGroup: {
    type: "Warning",
    reason: "WaitingForGroup",
    action: "Admit",
    when: "A new request names a group or target that does not exist (yet); it stays CREATING for the admission grace period. Also when its group's target is refused (TargetForbidden, ClusterScopedTargetNotAllowed): it then stays CREATING until that is lifted, cancelled or its queue deadline.",
  },
  AdmissionFailed: {
    type: "Warning",
    reason: "AdmissionFailed",
    action: "Admit",
    when: "A request can never be served (QUOTA_EXCEEDED, RESOURCE_NOT_FOUND, UNSUPPORTED_OPERATION); state FAILED.",
  },
  ProvisioningStarted: {
    type: "Normal",
    reason: "ProvisioningStarted",
    action: "ScaleUp",
    when: 'The head of the queue starts a provisioning attempt: the scale change is recorded, then applied through /scale. When the request was admitted in the same pass, its note starts with the admission ("Admitted to the queue of group G for N instances. Attempt 1: raising …") and no Accepted event is emitted.',
  },
  Succeeded: {
    type: "Normal",
    reason: "Succeeded",
    action: "Provision",
    when: "All instances of an attempt are ready (state SUCCEEDED).",
  },
  AttemptFailed: {
    type: "Warning",
    reason: "AttemptFailed",
    action: "Provision",
    when: "An attempt did not get all instances ready within provisioningTimeout, or its new pods stayed Unschedulable (for a Karpenter NodePool: its launches failed, or limits.nodes stops it) for unschedulableGracePeriod while nothing would add capacity (ZONE_RESOURCE_POOL_EXHAUSTED); the increase is rolled back and the request returns to the queue with backoff.",
  },
  AttemptAbandoned: {
    type: "Warning",
    reason: "AttemptAbandoned",
    action: "Provision",
    when: "The target's replicas were changed outside the operator during an attempt; the attempt is abandoned and retried.",
  },
  RolledBack: {
    type: "Normal",
    reason: "RolledBack",
    action: "ScaleDown",
    when: "The increase of a failed or cancelled attempt was removed from the target.",
  },
  QueueDeadlineExceeded: {
    type: "Warning",
    reason: "QueueDeadlineExceeded",
    action: "Expire",
    when: "A request was still waiting in its group's queue (not provisioning) when its maxQueueDuration (its own, else the group's) elapsed; state FAILED with DEADLINE_EXCEEDED, the message says how long it waited and for what.",
  },
  Cancelled: {
    type: "Normal",
    reason: "Cancelled",
    action: "Cancel",
    when: "spec.cancel was set or an active request was deleted; after any rollback the state is CANCELLED.",
  },
  CancelRefused: {
    type: "Warning",
    reason: "CancelRefused",
    action: "Cancel",
    when: "spec.cancel was set on a request that had already reached a final state; the state does not change.",
  },
  Released: {
    type: "Normal",
    reason: "RunDurationElapsed",
    action: "Release",
    when: "The requested run duration elapsed after success; the request's instances were removed (never below minSize). The state stays SUCCEEDED.",
  },
  InstancesHandedOver: {
    type: "Normal",
    reason: "InstancesHandedOver",
    action: "Release",
    when: "A release lowered a StatefulSet, which removes its highest ordinals: on the releasing request, which later requests' pods went and which of its own passed to them; on each such request, which of its pods went and which took their place (relabelled, listed in status.instances; condition InstancesReplaced).",
  },
  TargetForbidden: {
    type: "Warning",
    reason: "TargetForbidden",
    action: "CheckTarget",
    when: "On the group: the API server forbids the operator to read its target, or to read or update the target's /scale (HTTP 403). The group's Ready condition is False with this reason and the note says which permission to grant; its requests wait (none fails for it) and the target is checked again every 5 poll intervals.",
  },
  ClusterScopedTargetNotAllowed: {
    type: "Warning",
    reason: "ClusterScopedTargetNotAllowed",
    action: "CheckTarget",
    when: "On the group: its target is of a cluster-scoped kind that is not listed in --cluster-scoped-targets (chart value clusterScopedTargets), so admission did not check its author's cluster-wide permission; the operator does not scale it and its requests wait. Ready is False with this reason.",
  },
  TargetResourceMismatch: {
    type: "Warning",
    reason: "TargetResourceMismatch",
    action: "CheckTarget",
    when: "On the group: the API server serves the target's kind under another resource name than the one guessed from the kind, which is the one the admission policy checked; the operator never scales it and the group's requests fail (UNSUPPORTED_OPERATION). Ready is False with this reason.",
  },
  InvalidTargetRef: {
    type: "Warning",
    reason: "InvalidTargetRef",
    action: "CheckTarget",
    when: "On the group: its spec.targetRef is not in the API's grammar (apiVersion GROUP/VERSION of a DNS subdomain and a DNS label, kind letters and digits), which only a group stored before the CRD enforced it can be; the operator builds no URL from it, and the group's requests fail (UNSUPPORTED_OPERATION). Ready is False with this reason.",
  },
  AdmissionPolicyMissing: {
    type: "Warning",
    reason: "AdmissionPolicyMissing",
    action: "CheckTarget",
    when: "On the group: the admission policies that keep a group from lending the operator's scale rights (who may point a group at a target or widen it, who may use a group) are missing or not enforcing (no binding with validationActions [Deny], failurePolicy Ignore, a binding narrowed by matchResources). The operator scales no target until they are; the group's requests wait. Ready is False with this reason.",
  },
  TargetNotFound: {
    type: "Warning",
    reason: "TargetNotFound",
    action: "WaitForTarget",
    when: "On a request: its group's target no longer exists (deleted, e.g. a Karpenter NodePool). A queued request keeps its place and waits (its queue deadline still applies); one in a provisioning attempt keeps its record and waits for the target to be recreated, or to be cancelled or deleted (then CANCELLED at once: nothing is left to roll back). Emitted when the request starts waiting so; its reason is TargetNotFound and the group's Ready condition is False (NotFound).",
  },
  NodeReadinessForbidden: {
    type: "Warning",
    reason: "NodeReadinessForbidden",
    action: "CountReady",
    when: "Regarding a group: it counts its ready instances from Nodes (spec.readiness.nodeSelector) but the operator may not list and watch Nodes (chart value rbac.nodeReadiness). Its Ready condition is False with the same reason, and its queue is held until the permission is granted. Emitted when the condition turns so.",
  },
  InstancesHeldBack: {
    type: "Warning",
    reason: "InstancesHeldBack",
    action: "CountReady",
    when: "Regarding a group that counts its ready instances from Nodes (spec.readiness.nodeSelector): a Ready Node it selects does not count because it carries a NoSchedule or NoExecute taint that spec.instanceShape.taints does not declare (reason UndeclaredTaint), or because it is cordoned (Cordoned). The note names the Nodes and why; the group's InstancesHeldBack condition is True with that reason, and a request waiting on its instances says the same. Emitted when the condition turns so, not on every pass; not for a Node still registering.",
  },
  RetentionExpired: {
    type: "Normal",
    reason: "RetentionExpired",
    action: "Delete",
    when: "A finished request (its instances released, if it had a run duration) was deleted after its group's finishedRequestRetention; or, made by the provisioner, after --provisioning-resize-request-retention (1h) once its ProvisioningRequest finished or went away.",
  },
});
