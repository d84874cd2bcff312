// RBAC declared beside the code that needs it. Each area of the operator lists what it calls in a
// `permissions.ts` next to that code; the chart's ClusterRole and Role are generated from these
// declarations (src/generate/rbac.ts), so the installed rules can neither lag behind the code nor
// grant what no code uses.

/**
 * Where a permission applies: `cluster` goes into the ClusterRole (the operator works in every
 * namespace it watches), `operator-namespace` into a Role in the namespace the operator is
 * installed in (e.g. its leader-election Lease).
 */
export type PermissionScope = "cluster" | "operator-namespace";

/**
 * A chart value under `rbac.` that grants a permission only when set (least privilege for features a
 * cluster may not use): `nodeReadiness` (groups counting ready Nodes) and `karpenter` (Karpenter
 * NodePool targets; implies nodeReadiness, which every such group needs).
 */
export type OptIn = "nodeReadiness" | "karpenter";
export const OPT_INS: readonly OptIn[] = ["nodeReadiness", "karpenter"];

interface Common {
  readonly verbs: readonly string[];
  /** Why the operator needs it: rendered as a comment above the rule in the chart. */
  readonly why: string;
  readonly scope: PermissionScope;
  /** Granted only when the chart value rbac.<optIn> is true; always when undefined. */
  readonly optIn?: OptIn;
}

export interface ResourcePermission extends Common {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  /** Restricts the rule to these object names. */
  readonly resourceNames?: readonly string[];
}

/** Plain URL paths of the API server (e.g. discovery); ClusterRole only. */
export interface NonResourcePermission extends Common {
  readonly nonResourceURLs: readonly string[];
  readonly scope: "cluster";
}

export type Permission = ResourcePermission | NonResourcePermission;

type Declaration =
  | (Omit<ResourcePermission, "scope"> & { readonly scope?: PermissionScope })
  | (Omit<NonResourcePermission, "scope"> & { readonly scope?: "cluster" });

/** Declares one permission; `scope` defaults to `cluster`. */
export function permission(declaration: Declaration): Permission {
  const { why, verbs } = declaration;
  if (why.trim() === "") throw new Error("a permission must say why it is needed");
  if (verbs.length === 0) throw new Error(`permission without verbs: ${why}`);
  return { ...declaration, scope: declaration.scope ?? "cluster" } as Permission;
}

/** A Kubernetes PolicyRule, fields in the order `kubectl get -o yaml` prints them. */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly verbs: readonly string[];
}

/** The PolicyRule a declaration stands for (one rule per declaration, so each keeps its reason). */
export function ruleOf(p: Permission): PolicyRule {
  if ("nonResourceURLs" in p) return { nonResourceURLs: p.nonResourceURLs, verbs: p.verbs };
  return {
    apiGroups: p.apiGroups,
    resources: p.resources,
    ...(p.resourceNames && { resourceNames: p.resourceNames }),
    verbs: p.verbs,
  };
}
