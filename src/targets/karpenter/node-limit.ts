// Holding a Karpenter NodePool's node limit while a request's own NodeClaims are removed, pure.
//
// Karpenter v1.14.1's static provisioning creates NodeClaims whenever the pool runs fewer than its
// replicas (counting those being deleted as not running), within spec.limits.nodes (counting them as
// still there); its static deprovisioning deletes NodeClaims of its own choice (empty Nodes first)
// whenever the pool runs more than its replicas. Deleting a request's NodeClaims first would have it
// replace them at once; lowering the replicas first would have it pick others. So, in one pass: the
// limit is held at the NodeClaims the pool has (nothing can be added while ours terminate), ours are
// deleted, and the replicas lowered; a later pass, with no removal planned, gives the limit back. The
// value to give back is kept on the pool itself (HOLD_ANNOTATION), so a restart in between finds it.
import { parseQuantity } from "../../api/quantity.js";
import type { MergePatch } from "../../runtime/resource-client.js";

/** On a NodePool whose limit the operator holds: the limit it had before (JSON: a string or null). */
export const HOLD_ANNOTATION = "compute.resize-operator.dev/held-node-limit";

/** A NodePool's limit as the operator sees it: spec.limits.nodes, and what it holds back, if anything. */
export interface NodeLimit {
  /** spec.limits.nodes as written (a quantity string or number); undefined when unset. */
  readonly current: string | number | undefined;
  /** Set while held: the value to give back (null: the pool had no limit). */
  readonly heldOriginal: string | null | undefined;
}

/** Reads the limit and the hold from a NodePool object. */
export function nodeLimitOfPool(nodePool: unknown): NodeLimit {
  const o = nodePool as {
    metadata?: { annotations?: Record<string, string> };
    spec?: { limits?: Record<string, unknown> };
  };
  const nodes = o.spec?.limits?.nodes;
  const current = typeof nodes === "string" || typeof nodes === "number" ? nodes : undefined;
  const raw = o.metadata?.annotations?.[HOLD_ANNOTATION];
  let heldOriginal: string | null | undefined;
  if (raw !== undefined) {
    try {
      const parsed: unknown = JSON.parse(raw);
      heldOriginal = typeof parsed === "string" ? parsed : null;
    } catch {
      heldOriginal = null;
    }
  }
  return { current, heldOriginal };
}

/**
 * The patch that holds the limit at `claims` (the pool's NodeClaims, ours included) while ours go.
 * An existing hold keeps the value it recorded first: that one is the pool's own.
 */
export function holdPatch(limit: NodeLimit, claims: number): MergePatch {
  const original =
    limit.heldOriginal !== undefined
      ? limit.heldOriginal
      : limit.current === undefined
        ? null
        : String(limit.current);
  const own = original === null ? undefined : parseQuantity(original);
  const held = own === undefined ? claims : Math.min(claims, own);
  return {
    metadata: { annotations: { [HOLD_ANNOTATION]: JSON.stringify(original) } },
    spec: { limits: { nodes: String(held) } },
  };
}

/** The patch that gives the limit back, or undefined when none is held. */
export function releasePatch(limit: NodeLimit): MergePatch | undefined {
  if (limit.heldOriginal === undefined) return undefined;
  return {
    metadata: { annotations: { [HOLD_ANNOTATION]: null } },
    spec: { limits: { nodes: limit.heldOriginal } },
  };
}
