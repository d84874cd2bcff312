// Readiness counted from Nodes (docs/lifecycle.md "Readiness counted from Nodes"), pure: a group whose
// target reports no ready count (a Karpenter NodePool counts NodeClaims once launched, Ready or not)
// declares the labels its instances' Nodes carry, and an instance is ready when its Node can take the
// group's pods: Ready, not cordoned, not being deleted, and without a NoSchedule or NoExecute taint
// other than those the group's instances carry by design (spec.instanceShape.taints). A Node still
// tainted karpenter.sh/unregistered (registering) or karpenter.sh/disrupted (being replaced) is not.
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
 * Why a Node selected as one of the group's instances cannot take its pods now, in words a request's
 * condition can quote (docs/karpenter.md "Why a Ready node does not count"); undefined when it can.
 */
export function heldBackReason(node: Node, rule: NodeReadinessRule): string | undefined {
  if (node.metadata.deletionTimestamp !== undefined) return "being deleted";
  if (node.spec?.unschedulable === true) return "cordoned";
  if (node.status?.conditions?.find((c) => c.type === "Ready")?.status !== "True") return "not Ready";
  const held = (node.spec?.taints ?? []).find(
    (taint) => KEEPS_PODS_OFF.has(taint.effect) && !rule.declaredTaints.some((d) => sameTaint(taint, d)),
  );
  if (held === undefined) return undefined;
  const spelled = `${held.key}${held.value === undefined || held.value === "" ? "" : `=${held.value}`}:${held.effect}`;
  if (held.key === "karpenter.sh/unregistered") return `unregistered (taint ${spelled})`;
  return `taint ${spelled} not declared in spec.instanceShape.taints`;
}

/** Whether `node` is one of the group's instances and can take its pods now. */
export function isReadyInstance(node: Node, rule: NodeReadinessRule): boolean {
  return selects(rule.nodeSelector, node.metadata.labels) && heldBackReason(node, rule) === undefined;
}

/** How many of `nodes` are the group's ready instances. */
export function readyNodeCount(nodes: Iterable<Node>, rule: NodeReadinessRule): number {
  let ready = 0;
  for (const node of nodes) if (isReadyInstance(node, rule)) ready++;
  return ready;
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
