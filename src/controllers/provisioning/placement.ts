// Which group serves a ProvisioningRequest, and how many of its instances it takes (pure). The group
// is the one the `instanceGroupManager` parameter names, or else every group whose owner lets the
// request's namespace draw on it and whose instances every pod set fits; several candidates are
// ordered by namespace (the request's own first), then name, so the choice is stable and explainable.
// With capacitySearchStrategy OBTAINABILITY the candidate whose queue gives the earliest ETA is chosen
// instead, among those that can take the request (obtainability.ts).
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import type { LabelSelector } from "../../api/instance-shape.js";
import { everFits } from "../../api/lifecycle.js";
import type { Eta } from "../../queue/insight.js";
import { misfit, sizeDemand, type PodSetDemand } from "./demand.js";
import { unavailableGroupMessage, Reason } from "./conditions.js";
import { earliest } from "./obtainability.js";
import type { Parameters } from "./parameters.js";

export type FailureReason = Extract<
  Reason,
  | "GroupNotFound"
  | "NotAllowed"
  | "NoInstanceShape"
  | "NoQueuedNodepoolAvailable"
  | "ProvisioningRequestNotSchedulableInNodepool"
  | "NodepoolSizeReached"
>;

export type Placement =
  | {
      readonly ok: true;
      readonly group: InstanceGroupManager;
      readonly instances: number;
      readonly pods: number;
      /** With OBTAINABILITY: how many groups could take it (the chosen one had the earliest ETA). */
      readonly competing?: number;
    }
  | { readonly ok: false; readonly reason: FailureReason; readonly message: string };

export interface PlacementInput {
  readonly namespace: string;
  /** Labels of the request's namespace; undefined when not read (no group selects namespaces). */
  readonly namespaceLabels: Readonly<Record<string, string>> | undefined;
  readonly parameters: Parameters;
  readonly podSets: readonly PodSetDemand[];
  readonly groups: readonly InstanceGroupManager[];
  /**
   * The ETA the request would get in a group's queue with this many instances; given when the request
   * asks for capacitySearchStrategy OBTAINABILITY.
   */
  readonly etaOf?: (group: InstanceGroupManager, instances: number) => Eta;
}

/** metav1.LabelSelector semantics: every matchLabels pair and every requirement holds. */
export function selects(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  return (selector.matchExpressions ?? []).every((e) => {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    switch (e.operator) {
      case "In":
        return has && (e.values ?? []).includes(value ?? "");
      case "NotIn":
        return !has || !(e.values ?? []).includes(value ?? "");
      case "Exists":
        return has;
      case "DoesNotExist":
        return !has;
    }
    return false;
  });
}

const keyOf = (g: InstanceGroupManager): string => `${g.metadata.namespace ?? ""}/${g.metadata.name ?? ""}`;

/**
 * Whether the group's owner lets ProvisioningRequests of `namespace` draw on it. Nobody may until the
 * owner says so: the provisioner creates the ResizeRequest with its own `use` on every group, so this
 * consent is the only check between a request's author and the group.
 */
export function allows(
  group: InstanceGroupManager,
  namespace: string,
  namespaceLabels: Readonly<Record<string, string>> | undefined,
): boolean {
  const policy = group.spec.provisioningRequests;
  switch (policy?.namespaces ?? "None") {
    case "None":
      return false;
    case "Same":
      return group.metadata.namespace === namespace;
    case "All":
      return true;
    case "Selector":
      return (
        policy?.namespaceSelector !== undefined &&
        namespaceLabels !== undefined &&
        selects(policy.namespaceSelector, namespaceLabels)
      );
  }
}

/** Whether placing this request needs its namespace's labels (some group selects namespaces). */
export function needsNamespaceLabels(groups: readonly InstanceGroupManager[]): boolean {
  return groups.some((g) => g.spec.provisioningRequests?.namespaces === "Selector");
}

function policyText(group: InstanceGroupManager): string {
  const p = group.spec.provisioningRequests;
  switch (p?.namespaces ?? "None") {
    case "None":
      return "no namespace (None, the default: its owner has not allowed any)";
    case "Same":
      return `its own namespace ${group.metadata.namespace ?? ""} only`;
    case "All":
      return "every namespace";
    case "Selector":
      return `namespaces selected by ${JSON.stringify(p?.namespaceSelector ?? {})}`;
  }
}

function size(input: PlacementInput, group: InstanceGroupManager): Placement {
  const shape = group.spec.instanceShape;
  if (!shape)
    return {
      ok: false,
      reason: Reason.NoInstanceShape,
      message: `InstanceGroupManager ${keyOf(group)} declares no spec.instanceShape, so its instances cannot be sized.`,
    };
  const sizing = sizeDemand(input.podSets, shape);
  if (!sizing.fits)
    return {
      ok: false,
      reason: Reason.NotSchedulableInGroup,
      message: sizing.message.replace("the group", `InstanceGroupManager ${keyOf(group)}`),
    };
  const maxSize = group.spec.maxSize;
  if (!everFits(sizing.instances, maxSize))
    return {
      ok: false,
      reason: Reason.NodepoolSizeReached,
      message: `The request needs ${sizing.instances} instances of InstanceGroupManager ${keyOf(group)} for ${sizing.pods} pods; its maxSize is ${maxSize ?? 0}: ${sizing.instances - (maxSize ?? 0)} over.`,
    };
  return { ok: true, group, instances: sizing.instances, pods: sizing.pods };
}

export function place(input: PlacementInput): Placement {
  const { namespace, namespaceLabels, parameters } = input;
  const wanted = parameters.group;
  if (wanted) {
    const key = `${wanted.namespace ?? namespace}/${wanted.name}`;
    const group = input.groups.find((g) => keyOf(g) === key);
    const allowed = group !== undefined && allows(group, namespace, namespaceLabels);
    // Another namespace's group: whether it exists and what its owner allows are not the request
    // author's to learn, so a missing group and one that does not allow the namespace answer alike.
    if (!allowed && (wanted.namespace ?? namespace) !== namespace)
      return { ok: false, reason: Reason.NotAllowed, message: unavailableGroupMessage(key, namespace) };
    if (!group)
      return {
        ok: false,
        reason: Reason.GroupNotFound,
        message: `InstanceGroupManager ${key} (parameter instanceGroupManager) does not exist.`,
      };
    if (!allowed)
      return {
        ok: false,
        reason: Reason.NotAllowed,
        message: `InstanceGroupManager ${key} does not serve ProvisioningRequests of namespace ${namespace}: its spec.provisioningRequests.namespaces allows ${policyText(group)}.`,
      };
    return size(input, group);
  }
  const candidates = input.groups
    .filter(
      (g) =>
        g.spec.instanceShape !== undefined &&
        g.metadata.deletionTimestamp === undefined &&
        allows(g, namespace, namespaceLabels),
    )
    .sort((a, b) => {
      const own = Number(b.metadata.namespace === namespace) - Number(a.metadata.namespace === namespace);
      return own !== 0 ? own : keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0;
    });
  const fitting = candidates.filter((g) =>
    input.podSets.every((s) => g.spec.instanceShape && misfit(s.spec, g.spec.instanceShape) === undefined),
  );
  const first = fitting[0];
  const etaOf = input.etaOf;
  if (first && etaOf && parameters.capacitySearchStrategy === "OBTAINABILITY") {
    // Only groups that can take it compete; when none can, the first one's refusal says why.
    const able = fitting.flatMap((g) => {
      const sized = size(input, g);
      return sized.ok ? [{ option: sized, eta: etaOf(g, sized.instances) }] : [];
    });
    const best = earliest(able);
    return best ? { ...best, competing: able.length } : size(input, first);
  }
  if (first) return size(input, first);
  if (candidates.length === 0) {
    // Groups of the request's own namespace are the ones its author can see; others' stay unnamed.
    const unconsented = input.groups
      .filter((g) => g.metadata.namespace === namespace && g.spec.instanceShape !== undefined)
      .map((g) => `${keyOf(g)} allows ${policyText(g)}`);
    return {
      ok: false,
      reason: Reason.NoGroupAvailable,
      message: `No InstanceGroupManager with a spec.instanceShape serves ProvisioningRequests of namespace ${namespace}: a group serves them only once its owner allows the namespace in spec.provisioningRequests.namespaces (the default, None, allows none)${unconsented.length > 0 ? `; InstanceGroupManager ${unconsented.slice(0, 3).join("; ")}` : ""}.`,
    };
  }
  const why = candidates.slice(0, 3).map((g) => {
    const set = input.podSets.find(
      (s) => g.spec.instanceShape && misfit(s.spec, g.spec.instanceShape) !== undefined,
    );
    const reason = set && g.spec.instanceShape ? misfit(set.spec, g.spec.instanceShape) : undefined;
    return `${keyOf(g)}: a pod of ${set?.name ?? "?"} does not fit, ${reason ?? "?"}`;
  });
  return {
    ok: false,
    reason: Reason.NotSchedulableInGroup,
    message: `No InstanceGroupManager's instances fit every pod set (${why.join("; ")}${candidates.length > 3 ? `; and ${candidates.length - 3} more` : ""}).`,
  };
}
