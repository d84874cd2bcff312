// The group's status after a pass: the target's counts, how many requests are active and queued, which
// one is provisioning, and whether the target can be scaled. Written only when it changed; a refused
// target (../target-access.ts) is also told by a Warning Event on the group when the refusal appears.
import { ResizeRequestCondition as RC, InstanceGroupManagerCondition as GC } from "../../api/conditions.js";
import { numericId } from "../../api/identity.js";
import type { InstanceGroupManagerStatus } from "../../api/instance-group-manager.js";
import { setCondition, type ConditionInput } from "../conditions.js";
import { resizeEvents as E } from "../events.js";
import { NODE_READINESS_FORBIDDEN } from "../node-readiness.js";
import { sameData, type RequestDraft } from "./draft.js";
import { isFinal, type Pass } from "./pass.js";
import type { PlannedGroupEvent } from "./plan.js";

export function groupStatus(
  pass: Pass,
  drafts: readonly RequestDraft[],
  previous: InstanceGroupManagerStatus | undefined,
): InstanceGroupManagerStatus | undefined {
  const { s } = pass;
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
    conditions: setCondition(previous?.conditions, condition, pass.now, group.generation),
    observedGeneration: group.generation,
  };
  return sameData(next, previous ?? {}) ? undefined : next;
}

/** The group's Events of a status change: one when Ready turns to a refusal, or to another one. */
export function groupEvents(
  previous: InstanceGroupManagerStatus | undefined,
  next: InstanceGroupManagerStatus,
): PlannedGroupEvent[] {
  const ready = (st: InstanceGroupManagerStatus | undefined) =>
    st?.conditions?.find((c) => c.type === GC.Ready);
  const now = ready(next);
  const before = ready(previous);
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
