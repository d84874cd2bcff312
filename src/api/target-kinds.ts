// How a group's target (spec.targetRef: apiVersion, kind, name) is named in RBAC terms, written once for
// the operator and for the admission policy that decides who may point a group at a target
// (generate/target-policy.ts spells the same rules in CEL; the integration tests hold the two together).

/** Cluster-scoped kinds a group may target out of the box: Karpenter's NodePool (resource nodepools). */
export const DEFAULT_CLUSTER_SCOPED_TARGETS: readonly string[] = ["NodePool.karpenter.sh"];

/**
 * A kind and its API group as kubectl writes them (`kubectl explain NodePool.karpenter.sh`): `Kind.group`,
 * or `Kind` alone for the core group. The form of --cluster-scoped-targets and the chart's
 * clusterScopedTargets.
 */
export const GROUP_KIND_PATTERN = /^[A-Za-z][A-Za-z0-9]*(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The API group of an apiVersion: `apps` of `apps/v1`, the core group ("") of `v1`. */
export function apiGroupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
}

/** `Kind.group`, or `Kind` in the core group. */
export function groupKindOf(apiVersion: string, kind: string): string {
  const group = apiGroupOf(apiVersion);
  return group === "" ? kind : `${kind}.${group}`;
}

/** `resource.group` (`nodepools.karpenter.sh`), or `resource` in the core group: RBAC's spelling. */
export function qualifiedResource(resource: string, apiGroup: string): string {
  return apiGroup === "" ? resource : `${resource}.${apiGroup}`;
}

/**
 * The resource name Kubernetes guesses from a kind (apimachinery's meta.UnsafeGuessKindToResource):
 * lowercase (ASCII, as CEL's lowerAscii), then a kind ending in "endpoints" stays as it is, "s" takes
 * "es", "y" becomes "ies", anything else takes "s". The admission policy can only guess (CEL has no
 * discovery), so the operator refuses a kind whose served resource differs from this.
 */
export function guessResource(kind: string): string {
  const lower = kind.replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (lower.endsWith("endpoints")) return lower;
  if (lower.endsWith("s")) return `${lower}es`;
  if (lower.endsWith("y")) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** How messages name a target: `StatefulSet team-a/web`, or `NodePool static-gpu` when cluster-scoped. */
export function targetLabel(kind: string, name: string, namespace: string | undefined): string {
  return namespace === undefined ? `${kind} ${name}` : `${kind} ${namespace}/${name}`;
}
