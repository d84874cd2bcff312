// Karpenter's NodePool as a target kind (kind.ts): its instances are Nodes (its NodeClaims'), a release
// deletes a request's own NodeClaims with the pool's node limit held (karpenter/node-limit.ts), and
// Karpenter's own objects say why capacity is missing (karpenter/launches.ts, read by karpenter/read.ts)
// and what lowering the pool must wait for: no pod of the group's namespace says anything about it.
import { isKarpenterNodePool, KARPENTER } from "../api/readiness.js";
import type { Provisioning } from "../api/resize-request.js";
import type { CapacityLimit, CapacityReading, TargetKind } from "./kind.js";
import { karpenterBlock, removalWait, rollbackWait, type KarpenterView } from "./karpenter/launches.js";
import { poolInstances } from "./karpenter/instances.js";
import { holdPatch, nodeLimitOfPool, releasePatch } from "./karpenter/node-limit.js";
import { readKarpenter } from "./karpenter/read.js";

/**
 * Pure: what Karpenter's view of the pool says to the attempt in flight on it, the pool wanting
 * `replicas`. While the attempt waits (Applied), only launches that failed since it was applied count
 * (karpenterBlock); before and after the pool is lowered (a rollback), whether Karpenter is still
 * launching, then still removing, from when the attempt was applied (or started, if it never was).
 */
export function karpenterCapacity(
  view: KarpenterView,
  replicas: number,
  attempt: Provisioning | undefined,
): CapacityReading {
  const applied = attempt?.phase === "Applied" && attempt.appliedTime !== undefined;
  const block = applied ? karpenterBlock(view, replicas, Date.parse(attempt.appliedTime ?? "")) : undefined;
  const since = attempt?.appliedTime ?? attempt?.startedTime;
  const launching = rollbackWait(view, replicas, since === undefined ? 0 : Date.parse(since));
  const removing = removalWait(view, replicas);
  const unreadable =
    view.unreadable === undefined
      ? undefined
      : `Karpenter's failed launches cannot be seen (${view.unreadable}), so the attempt waits for its provisioningTimeout.`;
  const shortfall = {
    ...(block && {
      message: block.summary,
      cause: "new Nodes could not be launched",
      blocked: { sinceMs: block.sinceMs, why: block.why },
    }),
    ...(unreadable !== undefined && { unreadable }),
  };
  const lowering = {
    ...(launching !== undefined && {
      beforeLowering: { until: "Karpenter has finished launching", now: launching },
    }),
    ...(removing !== undefined && { removing }),
  };
  return {
    ...(Object.keys(shortfall).length > 0 && { shortfall }),
    ...(Object.keys(lowering).length > 0 && { lowering }),
  };
}

/** Pure: the pool's node limit, held while a request's own NodeClaims go (`instances`: the pool's, when read). */
export function poolLimit(nodePool: unknown, instances: number | undefined): CapacityLimit {
  const limit = nodeLimitOfPool(nodePool);
  const giveBack = releasePatch(limit);
  return {
    ...(instances !== undefined && { hold: holdPatch(limit, instances) }),
    ...(giveBack && { giveBack }),
  };
}

export const karpenter: TargetKind = {
  name: "karpenter",
  // Its status counts its NodeClaims in status.nodes, and it has no selector.
  scalePaths: new Map([
    [KARPENTER.nodePool, { specReplicas: "spec.replicas", statusReplicas: "status.nodes" }],
  ]),
  matches: isKarpenterNodePool,
  identity: (_ref, countsNodes) =>
    countsNodes ? { instances: "Node", mechanism: "DeleteNodeClaims" } : { instances: "Untracked" },
  details: () => ({}),
  async capacity(q) {
    const waiting = q.attempt?.phase === "Applied" && q.readyReplicas < q.target.replicas;
    if (q.attempt?.phase !== "RollingBack" && !waiting) return {};
    const view = await readKarpenter(q.client, q.ref.name, q.target.object);
    return karpenterCapacity(view, q.target.replicas, q.attempt);
  },
  nodeInstances: poolInstances,
  capacityLimit: poolLimit,
};
