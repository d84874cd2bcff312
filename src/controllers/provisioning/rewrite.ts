// When a waiting ProvisioningRequest's Provisioned=False condition (and the queue's
// provisioningClassDetails, written with it) is written again (pure). GKE's provider and
// cluster-autoscaler set a condition on a transition and never stream the queue through it; Kueue
// copies every new message onto the Workload, so each rewrite costs our write and Kueue's. The message
// says the position and the ETA when the request is queued, and again only on a transition (its reason:
// Queued, Provisioning, ResourcePoolExhausted), when where it is served changes, or when the ETA moves
// materially; the live position is the ResizeRequest's (`kubectl resize explain`, the dashboard).
import { ClassDetail, type PrCondition } from "../../api/provisioning-request.js";
import type { ClassDetails } from "./details.js";
import { sameDetails, withoutQueue } from "./details.js";
import { LATE_WARNING } from "./conditions.js";

/** An ETA that moves by less than this is not told again. */
export const MATERIAL_ETA_MS = 5 * 60_000;
/** ...nor one that moves by less than this share of the wait left until it. */
export const MATERIAL_ETA_SHARE = 0.25;

export interface WaitingStatus {
  readonly reason: string;
  readonly message: string;
  readonly details: ClassDetails | undefined;
}

const etaOf = (details: ClassDetails | undefined): number | undefined => {
  const at = details?.[ClassDetail.EstimatedProvisioningTime];
  return at === undefined ? undefined : Date.parse(at);
};

/**
 * Whether the ETA shown (`before`) and the current one differ enough to tell: one becoming known counts
 * once it is at least MATERIAL_ETA_MS away (a nearer one is overtaken by the next transition), one no
 * longer known always counts.
 */
export function etaMovedMaterially(
  before: number | undefined,
  now: number | undefined,
  nowMs: number,
): boolean {
  if (now === undefined) return before !== undefined;
  if (before === undefined) return now - nowMs >= MATERIAL_ETA_MS;
  return Math.abs(now - before) >= Math.max(MATERIAL_ETA_MS, MATERIAL_ETA_SHARE * Math.max(0, now - nowMs));
}

/** Whether `next` is written over the request's current Provisioned=False condition and details. */
export function waitingRewriteDue(
  previous: { readonly condition: PrCondition | undefined; readonly details: ClassDetails | undefined },
  next: WaitingStatus,
  nowMs: number,
): boolean {
  const { condition, details } = previous;
  if (condition?.status !== "False" || condition.reason !== next.reason) return true;
  if (!sameDetails(withoutQueue(details), withoutQueue(next.details))) return true;
  const queued = (d: ClassDetails | undefined) => d?.[ClassDetail.QueuePosition] !== undefined;
  if (queued(details) !== queued(next.details)) return true;
  if (condition.message.includes(LATE_WARNING) !== next.message.includes(LATE_WARNING)) return true;
  return etaMovedMaterially(etaOf(details), etaOf(next.details), nowMs);
}
