// Fast rollback for a Karpenter NodePool target (docs/lifecycle.md "Fast rollback when the cluster
// cannot grow"), pure: Karpenter is what adds the capacity, and its own objects say when it will not.
// - A NodeClaim of the pool failed to launch: Karpenter v1 leaves its Launched condition not True with
//   the failure's reason (Unknown with LaunchFailed or the cloud provider's reason; False counts too),
//   and on insufficient capacity it deletes the NodeClaim at once, posting a Warning Event
//   InsufficientCapacityError on it (a core/v1 Event in the default namespace, NodeClaims being
//   cluster-scoped). A launch that succeeded after the newest failure means Karpenter is getting
//   through, and the attempt waits.
// - The pool's spec.limits.nodes is below the replicas wanted: Karpenter's static provisioning never
//   creates NodeClaims past it.
// And, before the pool is lowered again (a rollback), whether Karpenter is still launching: it deletes
// the Node of a NodeClaim only once the NodeClaim is registered, and leaves an unregistered one's
// instance (and the Node that instance may still register) to the cloud provider.
import { parseQuantity } from "../../api/quantity.js";
import { KARPENTER } from "../../api/readiness.js";
import { z } from "zod";
import {
  lastPosted,
  ObjectCondition,
  ObjectMeta,
  type CoreEvent,
  type Unstructured,
} from "../../runtime/builtin-kinds.js";
import type { ResourceKind } from "../../runtime/resource-kind.js";

/** karpenter.sh/v1 NodeClaim: its labels, its Launched condition and the Node it registered. */
export const NodeClaim = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMeta,
  status: z
    .looseObject({
      conditions: z.array(ObjectCondition).optional(),
      nodeName: z.string().optional(),
      providerID: z.string().optional(),
    })
    .optional(),
});
export type NodeClaim = z.infer<typeof NodeClaim>;

export const NODE_CLAIMS: ResourceKind<NodeClaim> = {
  apiVersion: `${KARPENTER.group}/v1`,
  kind: KARPENTER.nodeClaim,
  resource: "nodeclaims",
  namespaced: false,
  schema: NodeClaim,
};

/** Karpenter's Event when the cloud had no capacity for a NodeClaim (which it then deletes). */
export const INSUFFICIENT_CAPACITY = "InsufficientCapacityError";
/** Where Karpenter's recorder posts the Events of cluster-scoped objects such as NodeClaims. */
export const CLUSTER_SCOPED_EVENTS_NAMESPACE = "default";
/** The reason of a condition no controller has written yet (awslabs/operatorpkg's initial Unknown). */
const NOT_RECONCILED = "AwaitingReconciliation";

/** One launch Karpenter could not make. */
export interface LaunchFailure {
  readonly nodeClaim: string;
  /** When it failed: the condition's lastTransitionTime, or when the Event was last posted. */
  readonly atMs: number;
  readonly reason: string;
  readonly message: string;
}

/** What Karpenter's objects say about a pool, read while an attempt on it waits for its instances. */
export interface KarpenterView {
  readonly pool: string;
  /** Launches that failed: NodeClaims whose Launched condition says so, and insufficient-capacity Events. */
  readonly failures: readonly LaunchFailure[];
  /** The newest successful launch of a NodeClaim of the pool (Launched=True), ms; 0 when none. */
  readonly lastLaunchMs: number;
  /** The pool's spec.limits.nodes; undefined when it sets none. */
  readonly nodeLimit: number | undefined;
  /** NodeClaims Karpenter is launching: not being deleted, not registered, their launch not failed. */
  readonly launching: readonly string[];
  /** NodeClaims not being deleted. */
  readonly active: number;
  /** NodeClaims being deleted (Karpenter drains and removes their Nodes first). */
  readonly deleting: number;
  /** Why the NodeClaims could not be read (no permission): they then say nothing. */
  readonly unreadable?: string;
}

/** The pool's NodeClaims are named by generateName `<pool>-` plus five characters. */
function claimNamePattern(pool: string): RegExp {
  return new RegExp(`^${pool.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-[a-z0-9]{5}$`);
}

/** The pool's spec.limits.nodes, from the NodePool as read; undefined when unset or not a quantity. */
export function nodeLimitOf(nodePool: Unstructured): number | undefined {
  const spec = (nodePool as { spec?: { limits?: Record<string, unknown> } }).spec;
  const nodes = spec?.limits?.nodes;
  return typeof nodes === "string" || typeof nodes === "number" ? parseQuantity(nodes) : undefined;
}

/** Pure: the view of a pool from its NodeClaims (by label) and the insufficient-capacity Events. */
export function karpenterView(args: {
  readonly pool: string;
  readonly nodeClaims: readonly NodeClaim[];
  readonly events: readonly CoreEvent[];
  readonly nodeLimit: number | undefined;
}): KarpenterView {
  const failures: LaunchFailure[] = [];
  const launching: string[] = [];
  let lastLaunchMs = 0;
  let active = 0;
  let deleting = 0;
  for (const claim of args.nodeClaims) {
    if (claim.metadata.labels?.[KARPENTER.nodePoolLabel] !== args.pool) continue;
    const conditions = claim.status?.conditions ?? [];
    const launched = conditions.find((c) => c.type === "Launched");
    const atMs = Date.parse(launched?.lastTransitionTime ?? "") || 0;
    if (launched?.status === "True") lastLaunchMs = Math.max(lastLaunchMs, atMs);
    const failed =
      launched?.status === "False" ||
      (launched?.status === "Unknown" &&
        launched.reason !== undefined &&
        launched.reason !== "" &&
        launched.reason !== NOT_RECONCILED);
    if (launched && failed)
      failures.push({
        nodeClaim: claim.metadata.name ?? "",
        atMs,
        reason: launched.reason ?? "",
        message: launched.message ?? "",
      });
    if (claim.metadata.deletionTimestamp !== undefined) {
      deleting++;
      continue;
    }
    active++;
    const registered = conditions.some((c) => c.type === "Registered" && c.status === "True");
    if (!registered && !failed) launching.push(claim.metadata.name ?? "");
  }
  const ours = claimNamePattern(args.pool);
  for (const e of args.events) {
    const name = e.involvedObject?.name ?? "";
    if (e.reason !== INSUFFICIENT_CAPACITY || !ours.test(name)) continue;
    failures.push({
      nodeClaim: name,
      atMs: lastPosted(e),
      reason: INSUFFICIENT_CAPACITY,
      message: e.message ?? "",
    });
  }
  failures.sort((a, b) => a.atMs - b.atMs);
  return {
    pool: args.pool,
    failures,
    lastLaunchMs,
    nodeLimit: args.nodeLimit,
    launching,
    active,
    deleting,
  };
}

/** Karpenter will not add what the attempt still lacks: since when, why, and what it said. */
export interface KarpenterBlock {
  readonly sinceMs: number;
  readonly why: string;
  readonly summary: string;
}

/**
 * Pure: whether Karpenter will not bring the pool to `replicas`, for an attempt applied at `appliedMs`.
 * Only failures since the attempt was applied count (an Event has one-second resolution, so from the
 * start of that second), and none does once a launch succeeded after the newest of them.
 */
export function karpenterBlock(
  view: KarpenterView | undefined,
  replicas: number,
  appliedMs: number,
): KarpenterBlock | undefined {
  if (!view) return undefined;
  if (view.nodeLimit !== undefined && replicas > view.nodeLimit) {
    const limit = `NodePool ${view.pool} has limits.nodes ${String(view.nodeLimit)} and the target wants ${String(replicas)} nodes`;
    return { sinceMs: appliedMs, why: `Karpenter will not add capacity (${limit})`, summary: `${limit}.` };
  }
  const from = Math.floor(appliedMs / 1000) * 1000;
  const recent = view.failures.filter((f) => f.atMs >= from);
  const newest = recent.at(-1);
  const first = recent[0];
  if (!newest || !first || view.lastLaunchMs > newest.atMs) return undefined;
  const said = `${first.reason}: ${first.message}`;
  return {
    sinceMs: first.atMs,
    why: `Karpenter will not add capacity (NodeClaim ${first.nodeClaim} of NodePool ${view.pool} was not launched: ${said})`,
    summary: `${String(recent.length)} launch(es) of NodePool ${view.pool} failed: ${said}`,
  };
}

/**
 * Pure: why lowering the pool to roll an attempt back must wait, or undefined when it may go ahead.
 * Karpenter removes the Node of a NodeClaim it deletes only once that NodeClaim is registered; one
 * deleted while it launches leaves its instance to the cloud provider (which terminates it, and the
 * cloud's node lifecycle controller then removes its Node; Karpenter's kwok provider does neither, and
 * the Node stays, tainted karpenter.sh/unregistered, with no NodeClaim, counted against limits.nodes).
 * So the rollback waits until Karpenter has made every NodeClaim it will for the pool's `replicas` (as
 * many as replicas, or limits.nodes; those being deleted do not count, as Karpenter may still replace
 * them) unless launches failed since `sinceMs` (then it will not get them all), and none of them is
 * still launching. NodeClaims the operator may not read say nothing: it goes ahead.
 */
export function rollbackWait(
  view: KarpenterView | undefined,
  replicas: number,
  sinceMs: number,
): string | undefined {
  if (!view || view.unreadable !== undefined) return undefined;
  if (view.launching.length > 0)
    return `Karpenter is launching NodeClaim(s) ${view.launching.join(", ")} of NodePool ${view.pool}`;
  const wanted = view.nodeLimit === undefined ? replicas : Math.min(replicas, view.nodeLimit);
  const from = Math.floor(sinceMs / 1000) * 1000;
  if (view.active >= wanted || view.failures.some((f) => f.atMs >= from)) return undefined;
  return `Karpenter has made ${String(view.active)} of the ${String(wanted)} NodeClaims of NodePool ${view.pool} it will make`;
}

/**
 * Pure: why an attempt rolled back to `replicas` must wait before it ends, or undefined when it may end.
 * It ends once Karpenter has removed the NodeClaims beyond `replicas` (their Nodes go first), so that a
 * retry starts from the pool as it was: Karpenter counts NodeClaims still being removed against
 * limits.nodes, and refuses new ones over it with a growing backoff of its own.
 */
export function removalWait(view: KarpenterView | undefined, replicas: number): string | undefined {
  if (!view || view.unreadable !== undefined) return undefined;
  const extra = view.active + view.deleting - replicas;
  if (extra <= 0) return undefined;
  return `Karpenter is removing ${String(extra)} NodeClaim(s) of NodePool ${view.pool}`;
}
