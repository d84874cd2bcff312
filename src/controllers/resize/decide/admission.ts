// Admission of a request into its group's queue: it waits (within the grace period) for its group and
// target to appear, waits without a limit while the operator refuses the target for a reason an
// administrator can lift (targets/access.ts), fails when it can never fit under maxSize or its target
// can never be scaled, and leaves the queue when its queue deadline passes (../deadline.ts).
import type { Errors } from "../../../api/errors.js";
import { everFits } from "../../../api/lifecycle.js";
import { namingRefusal, nextOrdinalsMismatch, type NamingTarget } from "../../../api/instance-names.js";
import { sizeOf } from "../../../queue/rules.js";
import type { GroupSnapshot, GroupView } from "../snapshot.js";
import { checkQueueDeadline } from "../deadline.js";
import {
  notFound,
  notScalable,
  QUEUE_DEADLINE_EXCEEDED,
  quotaExceeded,
  unsupportedNames,
  unsupportedTarget,
} from "../../errors.js";
import { resizeEvents as E } from "../../events.js";
import { TARGET_RECHECK_POLLS } from "../snapshot.js";
import { waitsForAccess } from "../../../targets/access.js";
import type { RequestDraft } from "./request-draft.js";
import { wake, type PlanDraft } from "./plan-draft.js";
import { ms } from "./readings.js";

/** The reason of a request naming instances its group's target cannot create under those names. */
export const INSTANCE_NAMES_REFUSED = "InstanceNamesRefused";

/** The group's target, as the naming rule (api/instance-names.ts) reads it. */
export const targetOf = (group: GroupView): NamingTarget => ({
  apiVersion: group.targetApiVersion,
  kind: group.targetKind,
  name: group.targetName,
});

/**
 * Why the head's attempt cannot start under the instance names it gives (a target named by ordinals
 * adds only its next ones, api/instance-names.ts), or undefined when it names none or exactly those.
 */
export function namesNotNext(
  d: RequestDraft,
  target: { replicas: number; firstOrdinal?: number },
  group: GroupView,
): string | undefined {
  const names = d.view.spec.instances?.map((i) => i.name);
  if (!names) return undefined;
  return nextOrdinalsMismatch(group.targetName, target.replicas, target.firstOrdinal ?? 0, names);
}

/** The reason of a request whose group's target does not exist. */
export const TARGET_NOT_FOUND = "TargetNotFound";

export type Verdict = "admitted" | "waiting" | "failed";

export interface Admission {
  readonly verdict: Verdict;
  readonly plan: PlanDraft;
}

/** Admission of a request that has not been admitted yet, or re-validation of a queued one. */
export function admit(d: RequestDraft, s: GroupSnapshot, plan: PlanDraft): Admission {
  const cfg = s.config;
  const r = d.view;
  const creating = d.status.state === undefined || d.status.state === "CREATING";
  const withinGrace = s.nowMs - ms(r.creationTimestamp) < cfg.admissionGraceMs;
  const failed = (reason: string, errors: Errors): Admission => {
    d.fail(reason, errors);
    return { verdict: "failed", plan };
  };
  /** Waits for what `reason` names; after the grace period a new request fails with `errors`, if given. */
  const wait = (reason: string, message: string, errors?: Errors): Admission => {
    const recheck = wake(plan, cfg.pollIntervalMs * TARGET_RECHECK_POLLS);
    if (!creating) {
      // An admitted request keeps its place while its target is briefly missing (e.g. being recreated)
      // or refused (a grant or a listed kind fixes it). A missing target is told on the request (a
      // refusal is told on the group, group-status.ts).
      if (reason === TARGET_NOT_FOUND && d.status.reason !== reason)
        d.emit(E.TargetNotFound, `${message}; the request keeps its place in the queue and waits for it.`);
      d.phase("queued", reason, message);
      return { verdict: "waiting", plan: recheck };
    }
    if (errors && !withinGrace) return failed(reason, errors);
    d.patch({ state: "CREATING" });
    if (d.status.reason !== reason) d.emit(E.WaitingForGroup, message);
    d.phase("creating", reason, message);
    const graceLeft = ms(r.creationTimestamp) + cfg.admissionGraceMs - s.nowMs;
    return { verdict: "waiting", plan: errors ? wake(plan, graceLeft) : recheck };
  };
  const group = s.group;
  if (!group) {
    const message = `InstanceGroupManager ${s.groupName} does not exist in namespace ${s.namespace}.`;
    if (!creating) return failed("GroupNotFound", notFound(message));
    return wait("GroupNotFound", message, notFound(message));
  }
  const target = s.target;
  if (target && !target.found) {
    if (target.reason === "NotScalable") return failed("TargetNotScalable", notScalable(target.message));
    if (target.reason === "TargetResourceMismatch" || target.reason === "InvalidTargetRef")
      return failed(target.reason, unsupportedTarget(target.message));
    if (waitsForAccess(target.reason)) return wait(target.reason, target.message);
    return wait(TARGET_NOT_FOUND, target.message, notFound(target.message));
  }
  const names = r.spec.instances?.map((i) => i.name);
  const refusal = names && namingRefusal(targetOf(group), group.identity?.instances === "Node", names);
  if (refusal) return failed(INSTANCE_NAMES_REFUSED, unsupportedNames(refusal));
  const k = sizeOf(r);
  if (group.maxSize !== undefined && !everFits(k, group.maxSize)) {
    return failed(
      "QuotaExceeded",
      quotaExceeded({ requested: k, maxSize: group.maxSize, location: group.location, group: group.name }),
    );
  }
  if (creating) {
    d.patch({ state: "ACCEPTED" });
    d.emit(E.Accepted, `Admitted to the queue of group ${group.name} for ${k} instances.`);
  }
  return { verdict: "admitted", plan };
}

/** Fails a waiting request whose queue deadline passed (deadline.ts); otherwise wakes the group then. */
export function queueDeadline(
  d: RequestDraft,
  s: GroupSnapshot,
  plan: PlanDraft,
): { expired: boolean; plan: PlanDraft } {
  const check = checkQueueDeadline(d.view, d.status, s, sizeOf(d.view));
  if (check === undefined) return { expired: false, plan };
  if ("inMs" in check) return { expired: false, plan: wake(plan, check.inMs) };
  d.fail(QUEUE_DEADLINE_EXCEEDED, check.errors, E.QueueDeadlineExceeded);
  return { expired: true, plan };
}
