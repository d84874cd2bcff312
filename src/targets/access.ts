// Which targets the operator scales, decided from what discovery says about the target's kind (pure).
// The admission policy (generate/target-policy.ts) checked, when the group was created or retargeted,
// that its author may update the target's /scale: in the group's namespace always, and cluster-wide for
// the kinds listed as cluster-scoped targets. CEL has no discovery, so the policy guessed the resource
// from the kind; the operator, which knows better, refuses what that check did not cover.
import { apiGroupOf, groupKindOf, guessResource, qualifiedResource } from "../api/target-kinds.js";
import { isForbidden } from "../runtime/api-errors.js";
import type { TargetUnavailable, TargetUnavailableReason } from "./view.js";

/** What discovery serves for the target's kind. */
export interface ServedKind {
  readonly resource: string;
  readonly namespaced: boolean;
}

export interface TargetOf {
  readonly apiVersion: string;
  readonly kind: string;
}

/**
 * Undefined when the operator may scale a target of this kind; otherwise why not, in words that say what
 * to do. `clusterScopedTargets` holds the `Kind.group` names of --cluster-scoped-targets.
 */
export function scopeRefusal(
  ref: TargetOf,
  served: ServedKind,
  clusterScopedTargets: ReadonlySet<string>,
): TargetUnavailable | undefined {
  const apiGroup = apiGroupOf(ref.apiVersion);
  const guessed = guessResource(ref.kind);
  if (served.resource !== guessed) {
    return {
      found: false,
      reason: "TargetResourceMismatch",
      message: `The API server serves kind ${ref.kind} as resource ${qualifiedResource(served.resource, apiGroup)}, but the admission policy checked the group's author's permission on ${qualifiedResource(guessed, apiGroup)}/scale (the resource Kubernetes guesses from a kind), so the operator does not scale it. Point the group at a workload whose kind has the usual plural resource name.`,
    };
  }
  const groupKind = groupKindOf(ref.apiVersion, ref.kind);
  if (!served.namespaced && !clusterScopedTargets.has(groupKind)) {
    return {
      found: false,
      reason: "ClusterScopedTargetNotAllowed",
      message: `${groupKind} is cluster-scoped but not listed as a cluster-scoped target kind (chart value clusterScopedTargets, operator flag --cluster-scoped-targets), so admission did not check that the group's author may scale it cluster-wide. To allow it, add ${groupKind} to clusterScopedTargets, then delete and re-create this group so that admission checks its author.`,
    };
  }
  return undefined;
}

/**
 * Refusals that the cluster's administrator can lift (a grant, a listed kind): the group's requests
 * wait for it, new ones stay CREATING and queued ones keep their place, instead of failing.
 */
export function waitsForAccess(reason: TargetUnavailableReason): boolean {
  return (
    reason === "TargetForbidden" ||
    reason === "ClusterScopedTargetNotAllowed" ||
    reason === "AdmissionPolicyMissing"
  );
}

/** One call the operator made on a group's target. */
export interface TargetAccess {
  readonly verb: "get" | "update";
  /** The resource as discovery serves it, e.g. `widgets`. */
  readonly resource: string;
  /** Its API group; "" for the core group. */
  readonly apiGroup: string;
  /** Set for the call on /scale; the object itself otherwise. */
  readonly subresource?: "scale";
  readonly name: string;
  /** The target's namespace; undefined for a cluster-scoped kind. */
  readonly namespace: string | undefined;
}

/**
 * An error of a call on the target, as the group shows it: a 403 becomes TargetForbidden with what the
 * operator's ServiceAccount lacks and how to grant it; anything else is not a refusal (undefined), and
 * the caller lets it fail the pass as before.
 */
export function targetAccessRefusal(err: unknown, access: TargetAccess): TargetUnavailable | undefined {
  if (!isForbidden(err)) return undefined;
  const { verb, resource, apiGroup, subresource, name, namespace } = access;
  const what = `${qualifiedResource(resource, apiGroup)}${subresource ? `/${subresource}` : ""} "${name}"`;
  const where = namespace === undefined ? "(cluster-scoped)" : `in namespace ${namespace}`;
  const group = JSON.stringify(apiGroup);
  const grant =
    subresource === undefined
      ? `Grant the operator's ServiceAccount get on ${resource} in API group ${group}: with the chart, add {apiGroups: [${group}], resources: [${resource}]} to rbac.extraTargetRules.`
      : `Grant the operator's ServiceAccount get and update on ${resource}/scale in API group ${group} (the chart's ClusterRole grants */scale in every group: check that it is bound and that no policy denies it).`;
  const said = err instanceof Error ? ` (${err.message})` : "";
  return {
    found: false,
    reason: "TargetForbidden",
    message: `The operator may not ${verb} ${what} ${where}${said}. ${grant} Requests of this group wait until then.`,
  };
}
