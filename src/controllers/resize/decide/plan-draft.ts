// The group's side of a plan while it is decided: the small value each step of decide() takes with the
// snapshot and returns (`(d, s, plan) => PlanDraft`): the group's one scale change so far, whether an
// attempt is unresolved, when the group wants its next pass, and the label writes planned. Steps never
// mutate it. Each request's side is its RequestDraft (request-draft.ts).
import type { InstanceWrite } from "../../../targets/instances/view.js";
import type { ScaleChange } from "./plan.js";

export interface PlanDraft {
  /** The plan's scale change, once one is planned: no other change may start in this plan. */
  readonly scale: ScaleChange | undefined;
  /** A provisioning attempt exists in the group and is not resolved (one at a time). */
  readonly attemptInFlight: boolean;
  /** The soonest delay (ms, not negative) after which the group wants another pass; none if undefined. */
  readonly wakeAfterMs: number | undefined;
  /** Label writes planned so far (an attempt that succeeds makes its instances its own). */
  readonly labels: readonly InstanceWrite[];
}

/** The plan draft before any step: no change, no attempt in flight, no wake-up, no label. */
export const EMPTY_PLAN_DRAFT: PlanDraft = {
  scale: undefined,
  attemptInFlight: false,
  wakeAfterMs: undefined,
  labels: [],
};

/** Asks for another pass after `delayMs`; a negative delay (a moment already past) asks for nothing. */
export function wake(plan: PlanDraft, delayMs: number): PlanDraft {
  if (!(delayMs >= 0) || (plan.wakeAfterMs !== undefined && plan.wakeAfterMs <= delayMs)) return plan;
  return { ...plan, wakeAfterMs: delayMs };
}

export function planScale(
  plan: PlanDraft,
  request: string,
  from: number,
  replicas: number,
  removal?: ScaleChange["removal"],
): PlanDraft {
  return { ...plan, scale: { request, from, replicas, ...(removal && { removal }) } };
}

/** A change is planned: nothing else may start in this plan. */
export const busy = (plan: PlanDraft): boolean => plan.scale !== undefined;

/**
 * A recorded change was resolved this round (observed done, nothing left to apply). The next change
 * may start in the same plan: the executor writes the status recording a new change after every
 * other status, so a conflict on the resolution aborts the pass before the new change is recorded.
 */
export function resolved(plan: PlanDraft): PlanDraft {
  return wake({ ...plan, attemptInFlight: false }, 0);
}
