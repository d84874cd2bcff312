// Kubernetes reads and writes behind the REST methods, as the operator's identity (callers are
// authorized before any of this runs). Groups and requests are addressed by name or numeric id, and a
// group is only visible in its own zone or region (a zonal path naming a regional group is a 404).
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../api/kinds.js";
import { groupLocation, locationPath, sameLocation, type Location } from "../api/location.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { numericId } from "../api/identity.js";
import { isNotFound } from "../runtime/api-errors.js";
import type { KubeClient, ResourceClient } from "../runtime/resource-client.js";
import type { ObjectKey } from "../runtime/resource-kind.js";
import { NotFoundError } from "./errors.js";

/** Names start with a letter, ids are digits only, so one string is never both. */
const isId = (nameOrId: string): boolean => /^[0-9]+$/.test(nameOrId);

async function getOrUndefined<T extends { metadata?: object }>(
  client: ResourceClient<T>,
  key: ObjectKey,
): Promise<T | undefined> {
  try {
    return await client.get(key);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The group `nameOrId` of namespace `project` in `location`; NotFoundError otherwise. */
export async function findGroup(
  kube: KubeClient,
  project: string,
  location: Location,
  nameOrId: string,
): Promise<InstanceGroupManager> {
  const groups = kube.resource(INSTANCE_GROUP_MANAGERS);
  const group = isId(nameOrId)
    ? (await groups.list({ namespace: project })).items.find(
        (g) => (g.status?.id ?? numericId(g.metadata.uid ?? "")) === nameOrId,
      )
    : await getOrUndefined(groups, { namespace: project, name: nameOrId });
  if (!group || !sameLocation(groupLocation(group.spec), location))
    throw new NotFoundError(
      `The resource 'projects/${project}/${locationPath(location)}/instanceGroupManagers/${nameOrId}' was not found`,
    );
  return group;
}

/** Every request of a group. */
export async function listRequests(
  kube: KubeClient,
  project: string,
  group: string,
): Promise<ResizeRequest[]> {
  const list = await kube
    .resource(RESIZE_REQUESTS)
    .list({ namespace: project, fieldSelector: `spec.instanceGroupManager=${group}` });
  return list.items;
}

/** The request `nameOrId` of a group; NotFoundError otherwise. */
export async function findRequest(
  kube: KubeClient,
  project: string,
  location: Location,
  group: string,
  nameOrId: string,
): Promise<ResizeRequest> {
  const rr = isId(nameOrId)
    ? (await listRequests(kube, project, group)).find(
        (r) => (r.status?.id ?? numericId(r.metadata.uid ?? "")) === nameOrId,
      )
    : await getOrUndefined(kube.resource(RESIZE_REQUESTS), { namespace: project, name: nameOrId });
  if (!rr || rr.spec.instanceGroupManager !== group)
    throw new NotFoundError(
      `The resource 'projects/${project}/${locationPath(location)}/instanceGroupManagers/${group}/resizeRequests/${nameOrId}' was not found`,
    );
  return rr;
}

export async function createRequest(kube: KubeClient, rr: ResizeRequest): Promise<ResizeRequest> {
  return kube.resource(RESIZE_REQUESTS).create(rr);
}

/** Sets spec.cancel, guarded by the uid so that a request re-created under the same name is left alone. */
export async function cancelRequest(kube: KubeClient, rr: ResizeRequest): Promise<void> {
  const { namespace, name = "", uid } = rr.metadata;
  await kube
    .resource(RESIZE_REQUESTS)
    .mergePatch({ namespace: namespace ?? "", name }, { metadata: { uid }, spec: { cancel: true } });
}

/** Deletes the request; true when it is gone at once (no finalizer held it back). */
export async function deleteRequest(kube: KubeClient, rr: ResizeRequest): Promise<boolean> {
  const { namespace, name = "", uid } = rr.metadata;
  const held = await kube
    .resource(RESIZE_REQUESTS)
    .delete({ namespace: namespace ?? "", name }, { preconditions: { ...(uid !== undefined && { uid }) } });
  return held === undefined;
}
