// The indexes and counters of the shared ResizeRequest and group caches, each name next to its
// function: the informers are built with them (setup.ts), and whoever queries one — the group's pass,
// retention, the queue on the caches, the ProvisioningRequest provisioner, the metrics — imports its
// name from here, as does a watch that maps objects the same way.
import { groupKeyOf } from "../api/identity.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { PROVISIONING_REQUEST_ANNOTATION } from "../api/provisioning-request.js";
import { readinessSource } from "../api/readiness.js";
import { apiGroupOf } from "../api/target-kinds.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { IndexFunc, Lister } from "../runtime/store.js";
import { inPlay } from "./in-play.js";
import { selectorString } from "../targets/node-readiness.js";
import { requestView } from "./request-view.js";

/** Index of the request cache: "namespace/group" of the group a request names (all of them). */
export const BY_GROUP = "byGroup";

/** Index of the request cache: "namespace/group" of the group, for requests in play only (in-play.ts). */
export const IN_PLAY_BY_GROUP = "inPlayByGroup";

/** Index of the request cache: the ProvisioningRequest (`namespace/name`) a request was created for. */
export const BY_PROVISIONING_REQUEST = "byProvisioningRequest";

/** Index of the group cache: the node selector (selectorString) of each group counting ready Nodes. */
export const BY_NODE_SELECTOR = "byNodeSelector";

/**
 * Index of the group cache: the target of each group, `apiGroup/Kind/name` (targetIndexKey). Without
 * the namespace: a cluster-scoped target (a NodePool) may be the target of groups in any namespace, so
 * a namespaced target's groups are those of this key in its namespace.
 */
export const BY_TARGET = "byTarget";

/** The BY_TARGET value of a target: its kind's API group (any version), kind and name. */
export const targetIndexKey = (apiGroup: string, kind: string, name: string): string =>
  `${apiGroup}/${kind}/${name}`;

/** The groups whose target is `target` (a namespaced one's: of its namespace; a cluster-scoped one's: all). */
export function groupsOfTarget(
  groups: Lister<InstanceGroupManager>,
  target: { apiGroup: string; kind: string; namespace: string | undefined; name: string },
): InstanceGroupManager[] {
  return groups
    .byIndex(BY_TARGET, targetIndexKey(target.apiGroup, target.kind, target.name))
    .filter((group) => target.namespace === undefined || group.metadata.namespace === target.namespace);
}

/** Counter of the request cache: requests by `namespace/state` (read back with splitKey). */
export const BY_NAMESPACE_AND_STATE = "byNamespaceAndState";

/** The group a request names, `namespace/group`. */
export const groupOf: IndexFunc<ResizeRequest> = (rr) => [groupKeyOf(rr)];

/** The ProvisioningRequest a request serves, `namespace/name`; none for a request made by a user. */
export const provisioningRequestOf: IndexFunc<ResizeRequest> = (rr) => {
  const key = rr.metadata.annotations?.[PROVISIONING_REQUEST_ANNOTATION];
  return key ? [key] : [];
};

/** The request cache's indexes (one cache for every controller). */
export const REQUEST_INDEXERS: Readonly<Record<string, IndexFunc<ResizeRequest>>> = {
  [BY_GROUP]: groupOf,
  [IN_PLAY_BY_GROUP]: (rr) => (inPlay(requestView(rr)) ? groupOf(rr) : []),
  [BY_PROVISIONING_REQUEST]: provisioningRequestOf,
};

/** The group cache's indexes: a Node or target change reaches exactly the groups it concerns. */
export const GROUP_INDEXERS: Readonly<Record<string, IndexFunc<InstanceGroupManager>>> = {
  [BY_TARGET]: ({ spec: { targetRef: t } }) => [targetIndexKey(apiGroupOf(t.apiVersion), t.kind, t.name)],
  [BY_NODE_SELECTOR]: (group) => {
    const source = readinessSource(group.spec);
    return source.kind === "nodes" ? [selectorString(source.nodeSelector)] : [];
  },
};

/** The request cache's counters: what a metric scrape reads without visiting every request. */
export const REQUEST_COUNTERS: Readonly<Record<string, IndexFunc<ResizeRequest>>> = {
  // A request the controller has not written yet is, by the API's definition, CREATING.
  [BY_NAMESPACE_AND_STATE]: (rr) => [`${rr.metadata.namespace ?? ""}/${rr.status?.state ?? "CREATING"}`],
};
