// Numeric ids and URLs the compute API exposes for Kubernetes objects. Ids are derived from the uid,
// so they are stable across restarts and replicas without being stored anywhere else.
import { createHash } from "node:crypto";
import { locationPath, type Location } from "./location.js";
import type { ResizeRequest } from "./resize-request.js";

/** The cache key (`namespace/name`) of the group a request names: a request's group is in its namespace. */
export const groupKeyOf = (rr: ResizeRequest): string =>
  `${rr.metadata.namespace ?? ""}/${rr.spec.instanceGroupManager}`;

/** A uint64 (decimal string) derived from a Kubernetes uid: the first 8 bytes of its SHA-256. */
export function numericId(uid: string): string {
  return BigInt("0x" + createHash("sha256").update(uid).digest("hex").slice(0, 16)).toString(10);
}

export interface ResourceLinks {
  /** URL of the zone or region. */
  readonly location: string;
  readonly selfLink: string;
  readonly selfLinkWithId: string;
}

/** URL of a zone or region of a project: `…/compute/v1/projects/{project}/zones/{zone}`. */
export function locationUrl(publicUrl: string, project: string, location: Location): string {
  return `${publicUrl}/compute/v1/projects/${project}/${locationPath(location)}`;
}

/** URL of the resize-request collection of a group. */
export function resizeRequestsUrl(publicUrl: string, project: string, location: Location, group: string) {
  return `${locationUrl(publicUrl, project, location)}/instanceGroupManagers/${group}/resizeRequests`;
}

export function resizeRequestLinks(
  publicUrl: string,
  project: string,
  location: Location,
  group: string,
  name: string,
  id: string,
): ResourceLinks {
  const base = resizeRequestsUrl(publicUrl, project, location, group);
  return {
    location: locationUrl(publicUrl, project, location),
    selfLink: `${base}/${name}`,
    selfLinkWithId: `${base}/${id}`,
  };
}
