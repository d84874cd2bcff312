// Numeric ids and URLs the compute API exposes for Kubernetes objects. Ids are derived from the uid,
// so they are stable across restarts and replicas without being stored anywhere else.
import { createHash } from "node:crypto";

/** A uint64 (decimal string) derived from a Kubernetes uid: the first 8 bytes of its SHA-256. */
export function numericId(uid: string): string {
  return BigInt("0x" + createHash("sha256").update(uid).digest("hex").slice(0, 16)).toString(10);
}

export interface ResourceLinks {
  readonly zone: string;
  readonly selfLink: string;
  readonly selfLinkWithId: string;
}

export function zoneUrl(publicUrl: string, project: string, zone: string): string {
  return `${publicUrl}/compute/v1/projects/${project}/zones/${zone}`;
}

export function resizeRequestLinks(
  publicUrl: string,
  project: string,
  zone: string,
  group: string,
  name: string,
  id: string,
): ResourceLinks {
  const base = `${zoneUrl(publicUrl, project, zone)}/instanceGroupManagers/${group}/resizeRequests`;
  return {
    zone: zoneUrl(publicUrl, project, zone),
    selfLink: `${base}/${name}`,
    selfLinkWithId: `${base}/${id}`,
  };
}
