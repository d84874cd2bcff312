// Kubernetes reads and writes behind the REST methods, as the operator's identity (callers are
// authorized before any of this runs). Groups and requests are addressed by name or numeric id, and a
// group is only visible in its own zone or region (a zonal path naming a regional group is a 404).
import { InstanceGroupManager } from "../api/instance-group-manager.js";
import { groupLocation, locationPath, sameLocation, type Location } from "../api/location.js";
import { API_VERSION, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../api/names.js";
import { ResizeRequest } from "../api/resize-request.js";
import { numericId } from "../controller/identity.js";
import { ApiError, type KubeHttp } from "../runtime/kube-http.js";
import { NotFoundError } from "./errors.js";

/** Names start with a letter, ids are digits only, so one string is never both. */
const isId = (nameOrId: string): boolean => /^[0-9]+$/.test(nameOrId);

function collection(namespace: string, plural: string): string {
  return `/apis/${API_VERSION}/namespaces/${namespace}/${plural}`;
}

async function getOrUndefined(kube: KubeHttp, path: string): Promise<unknown> {
  try {
    return await kube.request("GET", path);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/** The group `nameOrId` of namespace `project` in `location`; NotFoundError otherwise. */
export async function findGroup(
  kube: KubeHttp,
  project: string,
  location: Location,
  nameOrId: string,
): Promise<InstanceGroupManager> {
  const path = collection(project, INSTANCE_GROUP_MANAGER.plural);
  let group: InstanceGroupManager | undefined;
  if (isId(nameOrId)) {
    const list = (await kube.request("GET", path)) as { items?: unknown[] };
    group = (list.items ?? [])
      .map((raw) => InstanceGroupManager.parse(raw))
      .find((g) => (g.status?.id ?? numericId(g.metadata.uid ?? "")) === nameOrId);
  } else {
    const raw = await getOrUndefined(kube, `${path}/${nameOrId}`);
    group = raw === undefined ? undefined : InstanceGroupManager.parse(raw);
  }
  if (!group || !sameLocation(groupLocation(group.spec), location))
    throw new NotFoundError(
      `The resource 'projects/${project}/${locationPath(location)}/instanceGroupManagers/${nameOrId}' was not found`,
    );
  return group;
}

/** Every request of a group. */
export async function listRequests(kube: KubeHttp, project: string, group: string): Promise<ResizeRequest[]> {
  const list = (await kube.request("GET", collection(project, RESIZE_REQUEST.plural), {
    query: { fieldSelector: `spec.instanceGroupManager=${group}` },
  })) as { items?: unknown[] };
  return (list.items ?? []).map((raw) => ResizeRequest.parse(raw));
}

/** The request `nameOrId` of a group; NotFoundError otherwise. */
export async function findRequest(
  kube: KubeHttp,
  project: string,
  location: Location,
  group: string,
  nameOrId: string,
): Promise<ResizeRequest> {
  let rr: ResizeRequest | undefined;
  if (isId(nameOrId)) {
    rr = (await listRequests(kube, project, group)).find(
      (r) => (r.status?.id ?? numericId(r.metadata.uid ?? "")) === nameOrId,
    );
  } else {
    const raw = await getOrUndefined(kube, `${collection(project, RESIZE_REQUEST.plural)}/${nameOrId}`);
    rr = raw === undefined ? undefined : ResizeRequest.parse(raw);
  }
  if (!rr || rr.spec.instanceGroupManager !== group)
    throw new NotFoundError(
      `The resource 'projects/${project}/${locationPath(location)}/instanceGroupManagers/${group}/resizeRequests/${nameOrId}' was not found`,
    );
  return rr;
}

export async function createRequest(kube: KubeHttp, rr: ResizeRequest): Promise<ResizeRequest> {
  const namespace = rr.metadata.namespace ?? "";
  return ResizeRequest.parse(
    await kube.request("POST", collection(namespace, RESIZE_REQUEST.plural), { body: rr }),
  );
}

/** Sets spec.cancel, guarded by the uid so that a request re-created under the same name is left alone. */
export async function cancelRequest(kube: KubeHttp, rr: ResizeRequest): Promise<void> {
  const { namespace = "", name = "", uid } = rr.metadata;
  await kube.request("PATCH", `${collection(namespace, RESIZE_REQUEST.plural)}/${name}`, {
    body: { metadata: { uid }, spec: { cancel: true } },
    contentType: "application/merge-patch+json",
  });
}

/** Deletes the request; true when it is gone at once (no finalizer held it back). */
export async function deleteRequest(kube: KubeHttp, rr: ResizeRequest): Promise<boolean> {
  const { namespace = "", name = "", uid } = rr.metadata;
  const reply = (await kube.request("DELETE", `${collection(namespace, RESIZE_REQUEST.plural)}/${name}`, {
    body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid } },
  })) as { metadata?: { deletionTimestamp?: string; finalizers?: string[] } } | undefined;
  return !(reply?.metadata?.deletionTimestamp && (reply.metadata.finalizers ?? []).length > 0);
}
