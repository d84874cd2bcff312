// Readiness counted from Nodes (docs/lifecycle.md "Readiness counted from Nodes"), pure: a group whose
// target reports no ready count (a Karpenter NodePool counts NodeClaims once launched, Ready or not)
// declares the labels its instances' Nodes carry, and an instance is ready when its Node can take the
// group's pods: Ready, not cordoned, not being deleted, and without a NoSchedule or NoExecute taint
// other than those the group's instances carry by design (spec.instanceShape.taints). A Node still
// tainted karpenter.sh/unregistered (registering) or karpenter.sh/disrupted (being replaced) is not.
// A selected Node that does not count is "held back", with a reason (heldBackReason, countNodes), so that
// a waiting request and its group can say why (held-back.ts; docs/lifecycle.md "Why a Ready Node does
// not count").
import type { Taint } from "../api/instance-shape.js";
import type { NodeSelector } from "../api/readiness.js";
import type { Node } from "../runtime/builtin-kinds.js";
import type { Transform } from "../runtime/transform.js";

/** The group's Ready condition reason (and its queue's) while the operator may not read Nodes. */
export const NODE_READINESS_FORBIDDEN = "NodeReadinessForbidden";

/** What makes a Node one of a group's ready instances. */
export interface NodeReadinessRule {
  readonly nodeSelector: NodeSelector;
  /** Taints the group's instances carry by design (spec.instanceShape.taints): they hold no Node back. */
  readonly declaredTaints: readonly Taint[];
}

/** The effects that keep pods off a Node (PreferNoSchedule only discourages the scheduler). */
const KEEPS_PODS_OFF: ReadonlySet<string> = new Set(["NoSchedule", "NoExecute"]);

/** Whether `labels` carry every label of `selector` with its value. */
export function selects(
  selector: NodeSelector,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

const sameTaint = (
  a: { readonly key: string; readonly value?: string | undefined; readonly effect: string },
  b: Taint,
): boolean => a.key === b.key && a.effect === b.effect && (a.value ?? "") === (b.value ?? "");

/**
 * Why a Node the group's selector selects does not count, the most actionable first (the order a
 * summary lists them in): a taint the group should declare, a cordon someone set, a Node not registered
 * yet, a taint the cluster sets itself while a Node cannot take pods, a Node going away, one not Ready.
 */
export const HELD_BACK_REASONS = [
  "UndeclaredTaint",
  "Cordoned",
  "NotRegistered",
  "SystemTaint",
  "BeingDeleted",
  "NotReady",
] as const;
export type HeldBackReason = (typeof HELD_BACK_REASONS)[number];

/** One selected Node that does not count, and why. */
export interface HeldBackNode {
  readonly node: string;
  readonly reason: HeldBackReason;
  /** The taint that holds it back, spelled key=value:Effect (UndeclaredTaint, NotRegistered, SystemTaint). */
  readonly taint?: string;
}

/** The selected Nodes that do not count: how many, and the first few (a pool may have thousands). */
export interface HeldBack {
  readonly total: number;
  /** At most HELD_BACK_LISTED, most actionable reason first, then by name: deterministic words. */
  readonly nodes: readonly HeldBackNode[];
}

export const HELD_BACK_LISTED = 5;

/** Taints that mean "not registered yet": Karpenter's while it registers, the cloud provider's before init. */
const REGISTERING_TAINTS: ReadonlySet<string> = new Set([
  "karpenter.sh/unregistered",
  "node.cloudprovider.kubernetes.io/uninitialized",
]);

/**
 * Taints the cluster sets and lifts itself (node conditions, Karpenter's disruption, cluster-autoscaler's
 * scale-down): telling the user to declare one of them in spec.instanceShape.taints would be wrong.
 */
const isSystemTaint = (key: string): boolean =>
  key.startsWith("node.kubernetes.io/") ||
  key.startsWith("node.cloudprovider.kubernetes.io/") ||
  key.startsWith("karpenter.sh/") ||
  key === "ToBeDeletedByClusterAutoscaler";

const spell = (t: { readonly key: string; readonly value?: string | undefined; readonly effect: string }) =>
  `${t.key}${t.value === undefined || t.value === "" ? "" : `=${t.value}`}:${t.effect}`;

const rank = (reason: HeldBackReason): number => HELD_BACK_REASONS.indexOf(reason);

/**
 * Why a Node selected as one of the group's instances cannot take its pods now (docs/lifecycle.md
 * "Why a Ready Node does not count"); undefined when it can. Of several taints, the one the user can act on
 * is named: an undeclared taint before one the cluster will lift.
 */
export function heldBackReason(node: Node, rule: NodeReadinessRule): Omit<HeldBackNode, "node"> | undefined {
  if (node.metadata.deletionTimestamp !== undefined) return { reason: "BeingDeleted" };
  if (node.spec?.unschedulable === true) return { reason: "Cordoned" };
  if (node.status?.conditions?.find((c) => c.type === "Ready")?.status !== "True")
    return { reason: "NotReady" };
  const held = (node.spec?.taints ?? [])
    .filter(
      (taint) => KEEPS_PODS_OFF.has(taint.effect) && !rule.declaredTaints.some((d) => sameTaint(taint, d)),
    )
    .map((taint) => ({
      reason: REGISTERING_TAINTS.has(taint.key)
        ? ("NotRegistered" as const)
        : isSystemTaint(taint.key)
          ? ("SystemTaint" as const)
          : ("UndeclaredTaint" as const),
      taint: spell(taint),
    }));
  return held.reduce<(typeof held)[number] | undefined>(
    (best, h) => (best === undefined || rank(h.reason) < rank(best.reason) ? h : best),
    undefined,
  );
}

/** Whether `node` is one of the group's instances and can take its pods now. */
export function isReadyInstance(node: Node, rule: NodeReadinessRule): boolean {
  return selects(rule.nodeSelector, node.metadata.labels) && heldBackReason(node, rule) === undefined;
}

/** Whether `a` is listed before `b`: the more actionable reason first, then by name. */
const before = (a: HeldBackNode, b: HeldBackNode): boolean =>
  rank(a.reason) !== rank(b.reason) ? rank(a.reason) < rank(b.reason) : a.node < b.node;

/**
 * The group's ready instances among `nodes`, and the selected Nodes that do not count. One pass; only
 * the first HELD_BACK_LISTED held-back Nodes are kept, so a pool of thousands costs no more memory.
 */
export function countNodes(
  nodes: Iterable<Node>,
  rule: NodeReadinessRule,
): { readonly ready: number; readonly heldBack: HeldBack } {
  let ready = 0;
  let total = 0;
  const listed: HeldBackNode[] = [];
  for (const node of nodes) {
    if (!selects(rule.nodeSelector, node.metadata.labels)) continue;
    const why = heldBackReason(node, rule);
    if (why === undefined) {
      ready++;
      continue;
    }
    total++;
    const held: HeldBackNode = { node: node.metadata.name ?? "", ...why };
    const at = listed.findIndex((other) => before(held, other));
    if (at >= 0) listed.splice(at, 0, held);
    else listed.push(held);
    if (listed.length > HELD_BACK_LISTED) listed.pop();
  }
  return { ready, heldBack: { total, nodes: listed } };
}

/** How many of `nodes` are the group's ready instances. */
export function readyNodeCount(nodes: Iterable<Node>, rule: NodeReadinessRule): number {
  return countNodes(nodes, rule).ready;
}

/**
 * The selector as the API server takes it (`key=value,...`), keys sorted: groups declaring the same
 * labels in any order share one informer. Keys and values are validated by the model (no `,` or `=`).
 */
export function selectorString(selector: NodeSelector): string {
  return Object.keys(selector)
    .sort()
    .map((key) => `${key}=${selector[key] ?? ""}`)
    .join(",");
}

/**
 * The node informer's transform: only what isReadyInstance reads is cached (a Node's status carries
 * images, addresses, capacity and a heartbeat per condition; none of it is counted), and of the labels
 * only the selector's — or all of them without a selector (the one shared informer, which evaluates
 * every group's selector in memory).
 */
export function leanNode(selector?: NodeSelector): Transform {
  return (raw) => {
    const node = raw as Node;
    const m = node.metadata;
    const labels =
      selector === undefined
        ? { ...m.labels }
        : Object.fromEntries(
            Object.keys(selector).flatMap((k) => {
              const value = m.labels?.[k];
              return value === undefined ? [] : [[k, value]];
            }),
          );
    const lean: Node = {
      metadata: {
        name: m.name,
        uid: m.uid,
        resourceVersion: m.resourceVersion,
        // Whose instances (instances/view.ts): the newest free Nodes are an attempt's own.
        ...(m.creationTimestamp !== undefined && { creationTimestamp: m.creationTimestamp }),
        labels,
        ...(m.deletionTimestamp !== undefined && { deletionTimestamp: m.deletionTimestamp }),
      },
      spec: {
        ...(node.spec?.unschedulable !== undefined && { unschedulable: node.spec.unschedulable }),
        // Whose instances (instances/read.ts): a NodeClaim names its Node only once registered.
        ...(node.spec?.providerID !== undefined && { providerID: node.spec.providerID }),
        taints: (node.spec?.taints ?? []).map(({ key, value, effect }) => ({
          key,
          effect,
          ...(value !== undefined && { value }),
        })),
      },
      status: {
        conditions: (node.status?.conditions ?? [])
          .filter((c) => c.type === "Ready")
          .map(({ type, status }) => ({ type, status })),
      },
    };
    return lean;
  };
}

/** Whether a change of a (lean) Node can change a count: anything but its resourceVersion. */
export function readinessChanged(before: Node, after: Node): boolean {
  const fields = (n: Node): string =>
    JSON.stringify([n.metadata.labels, n.metadata.deletionTimestamp, n.spec, n.status]);
  return fields(before) !== fields(after);
}
