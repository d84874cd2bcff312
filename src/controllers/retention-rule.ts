// Retention of finished requests, the Kubernetes way (a Job's ttlSecondsAfterFinished): a finished
// request is deleted once it has been finished for its group's finishedRequestRetention. "Finished"
// means nothing is left to do for it: SUCCEEDED with its instances released (or without a run
// duration), FAILED or CANCELLED. A request whose release is still due is never deleted.
import type { Condition } from "../api/conditions.js";
import { ResizeRequestCondition as RC } from "../api/conditions.js";
import { isFinalState } from "../api/lifecycle.js";
import type { ResizeRequest } from "../api/resize-request.js";

export const DEFAULT_FINISHED_REQUEST_RETENTION = "168h";

/**
 * The longest wait handed back: a retention of weeks is checked again daily rather than scheduled
 * once (timers overflow past 24.8 days, and a group's setting may change meanwhile).
 */
export const MAX_RETENTION_WAIT_MS = 24 * 60 * 60 * 1000;

export type RetentionDecision =
  | { readonly action: "keep"; readonly why: string }
  | { readonly action: "wait"; readonly afterMs: number }
  | { readonly action: "delete"; readonly finishedTime: string };

const conditionTime = (conditions: readonly Condition[] | undefined, type: string): string | undefined =>
  conditions?.find((c) => c.type === type && c.status === "True")?.lastTransitionTime;

/**
 * When the request was done with: its final state reached and, with a run duration, its release
 * applied. Undefined while it is active or its release is still due. A final status without its condition (written by
 * an older version) counts from the request's creation, so no finished request is kept forever.
 */
export function finishedTime(rr: ResizeRequest): string | undefined {
  const status = rr.status;
  const created = rr.metadata.creationTimestamp;
  switch (status?.state) {
    case "SUCCEEDED":
      if (status.runUntil !== undefined)
        return status.release?.phase === "Applied" ? status.release.appliedTime : undefined;
      return status.succeededTime ?? conditionTime(status.conditions, RC.Succeeded) ?? created;
    case "FAILED":
      return conditionTime(status.conditions, RC.Failed) ?? created;
    case "CANCELLED":
      return conditionTime(status.conditions, RC.Cancelled) ?? created;
    default:
      return undefined;
  }
}

export function retentionDecision(rr: ResizeRequest, retentionMs: number, nowMs: number): RetentionDecision {
  if (rr.metadata.deletionTimestamp !== undefined) return { action: "keep", why: "being deleted" };
  if (!isFinalState(rr.status?.state)) return { action: "keep", why: "active" };
  const finished = finishedTime(rr);
  if (finished === undefined) return { action: "keep", why: "its release is still due" };
  const dueMs = Date.parse(finished) + retentionMs;
  if (Number.isNaN(dueMs)) return { action: "keep", why: "no valid finish time" };
  if (dueMs <= nowMs) return { action: "delete", finishedTime: finished };
  return { action: "wait", afterMs: Math.min(dueMs - nowMs, MAX_RETENTION_WAIT_MS) };
}
