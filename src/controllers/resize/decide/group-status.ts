// The group's status after a pass: the target's counts, how many requests are active and queued, which
// one is provisioning, whether the target can be scaled and, for a group counting Nodes, whether Ready
// Nodes are held back (../held-back.ts). Written only when it changed; a refused target
// (targets/access.ts), and Nodes held back by something a person must lift, are also told by a Warning
// Event on the group when that appears.
import {
  ResizeRequestCondition as RC,
  InstanceGroupManagerCondition as GC,
} from "../../../api/conditions.js";
import { numericId } from "../../../api/identity.js";
import type { InstanceGroupManagerStatus } from "../../../api/instance-group-manager.js";
import { setCondition, type ConditionInput } from "../../conditions.js";
import { resizeEvents as E } from "../../events.js";
import { heldBackCondition, NEEDS_ACTION } from "../held-back.js";
import { identityCondition } from "../../../targets/instances/kinds.js";
import { NODE_READINESS_FORBIDDEN } from "../../../targets/node-readiness.js";
import type { TargetView } from "../../../targets/view.js";
import type { GroupSnapshot } from "../snapshot.js";
import { sameData, type RequestDraft } from "./request-draft.js";
import { isFinal, nowOf } from "./readings.js";
import type { PlannedGroupEvent } from "./plan.js";

export function groupStatus(
  s: GroupSnapshot,
  drafts: readonly RequestDraft[],
  previous: InstanceGroupManagerStatus | undefined,
): InstanceGroupManagerStatus | undefined {
  const group = s.group;
  if (!group) return undefined;
  const active = drafts.filter((d) => !isFinal(d.status));
  const provisioning = drafts.find((d) => d.status.provisioning !== undefined);
  const target = s.target;
  const unavailable = target?.found ? target.readinessUnavailable : undefined;
  const condition: ConditionInput = unavailable
    ? { type: GC.Ready, status: "False", reason: unavailable.reason, message: unavailable.message }
    : target?.found
      ? {
          type: GC.Ready,
          status: "True",
          reason: "TargetScalable",
          message: `${group.targetKind}/${group.targetName} can be scaled through /scale.`,
        }
      : {
          type: GC.Ready,
          status: "False",
          reason: target?.reason ?? "TargetNotFound",
          message: target?.message ?? "",
        };
  const next: InstanceGroupManagerStatus = {
    id: previous?.id ?? numericId(group.uid),
    ...(target?.found && { targetSize: target.replicas, readyInstances: target.readyReplicas }),
    queuedRequests: active.filter((d) =>
      d.status.conditions?.some((c) => c.type === RC.Queued && c.status === "True"),
    ).length,
    activeRequests: active.length,
    ...(provisioning && { provisioningRequest: provisioning.name }),
    conditions: withIdentity(
      withHeldBack(
        setCondition(previous?.conditions, condition, nowOf(s), group.generation),
        target,
        nowOf(s),
        group.generation,
      ),
      s,
    ),
    observedGeneration: group.generation,
  };
  return sameData(next, previous ?? {}) ? undefined : next;
}

/** InstanceIdentity: whether a release removes exactly a request's own instances (instances/kinds.ts). */
function withIdentity(
  conditions: ReturnType<typeof setCondition>,
  s: GroupSnapshot,
): ReturnType<typeof setCondition> {
  const group = s.group;
  if (!group?.identity) return conditions;
  const c = identityCondition(group.identity, `${group.targetKind}/${group.targetName}`);
  return setCondition(conditions, { type: GC.InstanceIdentity, ...c }, nowOf(s), group.generation);
}

/**
 * InstancesHeldBack set from this pass's count. Left as it was when the count is not known now (the
 * target missing, Nodes the operator may not read: Ready says that); dropped once the group counts a
 * field of its target again, so that no stale word about Nodes stays.
 */
function withHeldBack(
  conditions: ReturnType<typeof setCondition>,
  target: TargetView | undefined,
  now: string,
  generation: number,
): ReturnType<typeof setCondition> {
  if (!target?.found || target.readinessUnavailable) return conditions;
  if (target.heldBack) return setCondition(conditions, heldBackCondition(target.heldBack), now, generation);
  return conditions.some((c) => c.type === GC.InstancesHeldBack)
    ? conditions.filter((c) => c.type !== GC.InstancesHeldBack)
    : conditions;
}

/** The group's Events of a status change (see readyEvents and heldBackEvents). */
export function groupEvents(
  previous: InstanceGroupManagerStatus | undefined,
  next: InstanceGroupManagerStatus,
): PlannedGroupEvent[] {
  return [...readyEvents(previous, next), ...heldBackEvents(previous, next)];
}

const conditionOf = (st: InstanceGroupManagerStatus | undefined, type: string) =>
  st?.conditions?.find((c) => c.type === type);

/**
 * One when InstancesHeldBack turns True for a reason a person must lift (an undeclared taint, a cordon),
 * or changes to another such reason; not when only its Nodes change, and not for a Node registering
 * (the node provisioner lifts that within seconds on every scale-up).
 */
function heldBackEvents(
  previous: InstanceGroupManagerStatus | undefined,
  next: InstanceGroupManagerStatus,
): PlannedGroupEvent[] {
  const now = conditionOf(next, GC.InstancesHeldBack);
  const before = conditionOf(previous, GC.InstancesHeldBack);
  if (now?.status !== "True" || !NEEDS_ACTION.has(now.reason)) return [];
  if (before?.status === "True" && before.reason === now.reason) return [];
  return [{ event: E.InstancesHeldBack, note: now.message }];
}

/** One when Ready turns to a refusal, or to another one. */
function readyEvents(
  previous: InstanceGroupManagerStatus | undefined,
  next: InstanceGroupManagerStatus,
): PlannedGroupEvent[] {
  const now = conditionOf(next, GC.Ready);
  const before = conditionOf(previous, GC.Ready);
  if (!now || (before?.reason === now.reason && before.message === now.message)) return [];
  const refusals: Readonly<Record<string, (typeof E)[keyof typeof E]>> = {
    TargetForbidden: E.TargetForbidden,
    ClusterScopedTargetNotAllowed: E.ClusterScopedTargetNotAllowed,
    TargetResourceMismatch: E.TargetResourceMismatch,
    InvalidTargetRef: E.InvalidTargetRef,
    AdmissionPolicyMissing: E.AdmissionPolicyMissing,
    [NODE_READINESS_FORBIDDEN]: E.NodeReadinessForbidden,
  };
  const event = refusals[now.reason];
  return event ? [{ event, note: now.message }] : [];
}
