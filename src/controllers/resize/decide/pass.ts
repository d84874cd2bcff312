// What the steps of one decision share. `Pass` is what they read (the snapshot, the settings, the
// time); `Turn` is the small value each step takes and returns: the group's one change so far, whether
// an attempt is unresolved, and when the group wants its next pass. Steps never mutate it.
import { isFinalState } from "../../../api/lifecycle.js";
import type { ResizeRequestStatus } from "../../../api/resize-request.js";
import type { DecideConfig, GroupSnapshot } from "../snapshot.js";
import type { RequestView } from "../../../cache/request-view.js";
import type { TargetView } from "../../../targets/view.js";
import type { InstanceWrite } from "../../../targets/instances/view.js";
import type { ScaleChange } from "./plan.js";

export interface Pass {
  readonly s: GroupSnapshot;
  readonly cfg: DecideConfig;
  /** The snapshot's time as an RFC 3339 timestamp (rfc3339), for the fields it stamps. */
  readonly now: string;
}

export interface Turn {
  /** The plan's scale change, once one is planned: no other change may start in this plan. */
  readonly scale: ScaleChange | undefined;
  /** A provisioning attempt exists in the group and is not resolved (one at a time). */
  readonly attemptInFlight: boolean;
  /** The soonest delay (ms, not negative) after which the group wants another pass; none if undefined. */
  readonly wakeAfterMs: number | undefined;
  /** Label writes planned so far (an attempt that succeeds makes its instances its own). */
  readonly labels: readonly InstanceWrite[];
}

export const FIRST_TURN: Turn = {
  scale: undefined,
  attemptInFlight: false,
  wakeAfterMs: undefined,
  labels: [],
};

/** Asks for another pass after `delayMs`; a negative delay (a moment already past) asks for nothing. */
export function wake(turn: Turn, delayMs: number): Turn {
  if (!(delayMs >= 0) || (turn.wakeAfterMs !== undefined && turn.wakeAfterMs <= delayMs)) return turn;
  return { ...turn, wakeAfterMs: delayMs };
}

export function planScale(
  turn: Turn,
  request: string,
  from: number,
  replicas: number,
  removal?: ScaleChange["removal"],
): Turn {
  return { ...turn, scale: { request, from, replicas, ...(removal && { removal }) } };
}

/** A change is planned: nothing else may start in this plan. */
export const busy = (turn: Turn): boolean => turn.scale !== undefined;

/**
 * A recorded change was resolved this round (observed done, nothing left to apply). The next change
 * may start in the same plan: the executor writes the status recording a new change after every
 * other status, so a conflict on the resolution aborts the pass before the new change is recorded.
 */
export function resolved(turn: Turn): Turn {
  return wake({ ...turn, attemptInFlight: false }, 0);
}

export const ms = (timestamp: string | undefined): number =>
  timestamp === undefined ? 0 : Date.parse(timestamp);

export function ready(target: TargetView & { found: true }): boolean {
  return (
    target.settled !== false &&
    target.readinessUnavailable === undefined &&
    target.readyReplicas >= target.replicas
  );
}

export function wantsCancel(r: RequestView): boolean {
  return r.spec.cancel || r.deleting;
}

export function cancelled(d: RequestView): string {
  return d.deleting ? "The request was deleted while active." : "spec.cancel was set.";
}

export const isFinal = (status: ResizeRequestStatus): boolean => isFinalState(status.state);
