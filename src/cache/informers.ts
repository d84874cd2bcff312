// The shared informers of the controllers' own kinds, ResizeRequests and InstanceGroupManagers (the
// manager hands every caller of a collection the same one): the resize, retention, provisioning and
// booking controllers all read them.
import type { KubernetesObject } from "@kubernetes/client-node";
import { InstanceGroupManager } from "../api/instance-group-manager.js";
import { INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../api/kinds.js";
import { INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../api/names.js";
import { ResizeRequest } from "../api/resize-request.js";
import type { Informer } from "../runtime/informer.js";
import { internStrings, perObjectKeys, StringTable } from "../runtime/intern.js";
import type { Manager } from "../runtime/manager.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { stripUnreadMetadata } from "../runtime/transform.js";
import { GROUP_INDEXERS, REQUEST_COUNTERS, REQUEST_INDEXERS } from "./indexes.js";

/**
 * The cached requests' shared strings (runtime/intern.ts): at 100,000 requests, one copy of each
 * namespace, group, zone, condition and reason instead of one per request. Links and ids are per request.
 */
const requestStrings = new StringTable();
const perRequest = perObjectKeys(["selfLink", "selfLinkWithId", "id"]);

/** The shared informers of both kinds (the manager hands every caller of a collection the same one). */
export function resizeInformers(
  mgr: Manager,
  namespace: string | undefined,
): { requests: Informer<ResizeRequest>; groups: Informer<InstanceGroupManager> } {
  // An empty namespace means all namespaces, as in the Manager's other options.
  const scope = { namespace: namespace || undefined };
  const requests = mgr.informer<ResizeRequest>({
    name: RESIZE_REQUEST.plural,
    path: resourcePath(RESIZE_REQUESTS, scope),
    decode: (raw: KubernetesObject) => internStrings(ResizeRequest.parse(raw), requestStrings, perRequest),
    transform: stripUnreadMetadata,
    indexers: REQUEST_INDEXERS,
    counters: REQUEST_COUNTERS,
  });
  const groups = mgr.informer<InstanceGroupManager>({
    name: INSTANCE_GROUP_MANAGER.plural,
    path: resourcePath(INSTANCE_GROUP_MANAGERS, scope),
    decode: (raw: KubernetesObject) => InstanceGroupManager.parse(raw),
    transform: stripUnreadMetadata,
    indexers: GROUP_INDEXERS,
  });
  return { requests, groups };
}
