// Why a selected Node does not count, in words (docs/lifecycle.md "Readiness counted from Nodes"), pure:
// a request waiting on its instances quotes the sentence, and the group carries it in its
// InstancesHeldBack condition. Without them a Ready Node held back by a taint the group does not declare
// looked like a Node that was never there: "Waiting for 2 instances to be ready (0 are)" for minutes.
import { InstanceGroupManagerCondition as GC } from "../../api/conditions.js";
import type { ConditionInput } from "../conditions.js";
import type { HeldBack, HeldBackNode, HeldBackReason } from "../../targets/node-readiness.js";

/** The condition's reason when no Ready Node is held back (those not Ready are simply not ready yet). */
export const NONE_HELD_BACK = "NoneHeldBack";

/** Held-back reasons a person must act on: the group tells them with a Warning Event, once. */
export const NEEDS_ACTION: ReadonlySet<string> = new Set<HeldBackReason>(["UndeclaredTaint", "Cordoned"]);

function describe(reason: HeldBackReason, names: readonly string[], taint: string | undefined): string {
  const list = names.join(", ");
  const one = names.length === 1;
  const is = one ? "is" : "are";
  const carry = one ? "carries" : "carry";
  switch (reason) {
    case "UndeclaredTaint":
      return `${list} ${carry} the taint ${taint ?? ""} that spec.instanceShape.taints does not declare`;
    case "Cordoned":
      return `${list} ${is} cordoned`;
    case "NotRegistered":
      return `${list} ${is} not registered yet (taint ${taint ?? ""})`;
    case "SystemTaint":
      return `${list} ${carry} the taint ${taint ?? ""}, which the cluster sets while a Node cannot take pods`;
    case "BeingDeleted":
      return `${list} ${is} being deleted`;
    case "NotReady":
      return `${list} ${is} not Ready`;
  }
}

/**
 * One sentence naming the held-back Nodes and why, Nodes of the same reason (and taint) together, in
 * the order countNodes lists them; undefined when none is held back. For example "2 selected Nodes do
 * not count: a, b carry the taint t=x:NoSchedule that spec.instanceShape.taints does not declare."
 */
export function heldBackSentence(heldBack: HeldBack): string | undefined {
  if (heldBack.total === 0) return undefined;
  const groups = new Map<string, { first: HeldBackNode; names: string[] }>();
  for (const n of heldBack.nodes) {
    const key = `${n.reason}\u0000${n.taint ?? ""}`;
    const group = groups.get(key);
    if (group) group.names.push(n.node);
    else groups.set(key, { first: n, names: [n.node] });
  }
  const parts = [...groups.values()].map((g) => describe(g.first.reason, g.names, g.first.taint));
  const more = heldBack.total - heldBack.nodes.length;
  if (more > 0) parts.push(`and ${String(more)} more`);
  const nodes = heldBack.total === 1 ? "Node does" : "Nodes do";
  return `${String(heldBack.total)} selected ${nodes} not count: ${parts.join("; ")}.`;
}

/**
 * The group's InstancesHeldBack condition: True, with the most actionable reason, while a Ready Node its
 * selector selects does not count; False otherwise.
 */
export function heldBackCondition(heldBack: HeldBack): ConditionInput {
  const first = heldBack.nodes[0];
  if (first === undefined || first.reason === "NotReady")
    return {
      type: GC.InstancesHeldBack,
      status: "False",
      reason: NONE_HELD_BACK,
      message: "Every Ready Node that spec.readiness.nodeSelector selects counts as an instance.",
    };
  return {
    type: GC.InstancesHeldBack,
    status: "True",
    reason: first.reason,
    message: heldBackSentence(heldBack) ?? "",
  };
}
