// Which objects the provisioner trusts as part of a ProvisioningRequest (pure). Labels and names can be
// written by anyone who may create an object, so they only find candidates; owner references decide:
// - its ResizeRequest lives in the namespace of the group it was placed on (recorded in the request's
//   status at acceptance) under the name derived from the request, and is owned by that group and —
//   when both share a namespace — by the request itself, as `resizeRequestFor` made it;
// - a PodTemplate its pod sets reference is sized only when nothing owns it, or the request or the
//   request's controller does (Kueue creates each one owned by the Workload that owns the request, then
//   hands it to the request), never when it belongs to something else.
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { API_VERSION, INSTANCE_GROUP_MANAGER } from "../../api/names.js";
import {
  ClassDetail,
  PROVISIONING_API_VERSION,
  PROVISIONING_REQUEST,
  PROVISIONING_REQUEST_UID_LABEL,
  ProvisioningCondition,
  type PodTemplate,
  type ProvisioningRequest,
} from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
}

/** The owner references of an object whose metadata is loosely typed (malformed entries are skipped). */
export function ownersOf(metadata: Readonly<Record<string, unknown>>): OwnerReference[] {
  const refs = metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.flatMap((r: unknown) => {
    if (typeof r !== "object" || r === null) return [];
    const { apiVersion, kind, name, uid, controller } = r as Record<string, unknown>;
    return typeof apiVersion === "string" &&
      typeof kind === "string" &&
      typeof name === "string" &&
      typeof uid === "string"
      ? [{ apiVersion, kind, name, uid, ...(controller === true && { controller }) }]
      : [];
  });
}

const describe = (owners: readonly OwnerReference[]): string =>
  owners.length === 0 ? "none" : owners.map((o) => `${o.kind} ${o.name} (uid ${o.uid})`).join(", ");

/**
 * The owners of the ResizeRequest serving `pr` on `group`: the group, and the request when both live in
 * one namespace (owner references cannot cross namespaces). The garbage collector deletes a dependent
 * only once every owner is gone, so a provisioned request's ResizeRequest — and its due release —
 * outlives the ProvisioningRequest.
 */
export function resizeRequestOwners(
  pr: Pick<ProvisioningRequest, "metadata">,
  group: Pick<InstanceGroupManager, "metadata">,
): OwnerReference[] {
  return [
    ...(pr.metadata.namespace === group.metadata.namespace
      ? [
          {
            apiVersion: PROVISIONING_API_VERSION,
            kind: PROVISIONING_REQUEST.kind,
            name: pr.metadata.name ?? "",
            uid: pr.metadata.uid ?? "",
          },
        ]
      : []),
    {
      apiVersion: API_VERSION,
      kind: INSTANCE_GROUP_MANAGER.kind,
      name: group.metadata.name ?? "",
      uid: group.metadata.uid ?? "",
    },
  ];
}

/**
 * Why `rr` is not the ResizeRequest the provisioner made for `pr` on its group (undefined when it is):
 * it must carry the request's uid label and every expected owner reference. `group` is the group it
 * names, from the cache; when the cache no longer has it (deleted), its owner reference is matched by
 * kind and name.
 */
export function notMadeFor(
  rr: ResizeRequest,
  pr: Pick<ProvisioningRequest, "metadata">,
  group: Pick<InstanceGroupManager, "metadata"> | undefined,
): string | undefined {
  const where = `ResizeRequest ${rr.metadata.namespace ?? ""}/${rr.metadata.name ?? ""}`;
  if (rr.metadata.labels?.[PROVISIONING_REQUEST_UID_LABEL] !== (pr.metadata.uid ?? ""))
    return `${where} was not made for this ProvisioningRequest (its ${PROVISIONING_REQUEST_UID_LABEL} label names another request).`;
  const expected = resizeRequestOwners(pr, {
    metadata: group?.metadata ?? {
      namespace: rr.metadata.namespace ?? "",
      name: rr.spec.instanceGroupManager,
    },
  });
  const owners = ownersOf(rr.metadata);
  const missing = expected.filter(
    (e) =>
      !owners.some(
        (o) =>
          o.apiVersion === e.apiVersion &&
          o.kind === e.kind &&
          o.name === e.name &&
          (e.uid === "" || o.uid === e.uid),
      ),
  );
  if (missing.length === 0) return undefined;
  return `${where} is not the one the provisioner created for this request: it must be owned by ${describe(expected)}, and its owners are ${describe(owners)}. It is left alone; create the ProvisioningRequest again to be served.`;
}

/**
 * Why a PodTemplate a pod set references may not size `pr` (undefined when it may): owned by something
 * else than the request or its controller (Kueue's Workload), it describes another workload's pods.
 */
export function foreignTemplate(template: PodTemplate, pr: ProvisioningRequest): string | undefined {
  const trusted = new Set([
    pr.metadata.uid ?? "",
    ...ownersOf(pr.metadata)
      .filter((o) => o.controller === true)
      .map((o) => o.uid),
  ]);
  const owners = ownersOf(template.metadata);
  if (owners.every((o) => trusted.has(o.uid))) return undefined;
  return `PodTemplate ${template.metadata.namespace ?? ""}/${template.metadata.name ?? ""} of a pod set is owned by ${describe(owners)}, not by this ProvisioningRequest or its controller: a request is sized only from templates it owns (Kueue creates them owned by the request's Workload, then by the request) or that nothing owns.`;
}

/** Accepted=True's message: which ResizeRequest asks which group for how much. */
export function acceptedMessage(rr: ResizeRequest, instances: number, pods: number): string {
  const ns = rr.metadata.namespace ?? "";
  return `ResizeRequest ${ns}/${rr.metadata.name ?? ""} asks InstanceGroupManager ${ns}/${rr.spec.instanceGroupManager} for ${instances} instances (${pods} pods).`;
}

const ACCEPTED_MESSAGE = /^ResizeRequest ([a-z0-9-]+)\/[a-z0-9-]+ asks InstanceGroupManager /;

/**
 * The namespace of the request's ResizeRequest, as the provisioner recorded it at acceptance in
 * provisioningClassDetails; for a request accepted by a release that did not record it there, as its
 * Accepted=True message names it. Both live in the status, which only the provisioner writes.
 */
export function recordedNamespace(pr: ProvisioningRequest): string | undefined {
  const group = pr.status?.provisioningClassDetails?.[ClassDetail.InstanceGroupManager];
  const slash = group?.indexOf("/") ?? -1;
  if (group !== undefined) return slash > 0 ? group.slice(0, slash) : undefined;
  const accepted = pr.status?.conditions?.find((c) => c.type === ProvisioningCondition.Accepted);
  return accepted?.status === "True" ? ACCEPTED_MESSAGE.exec(accepted.message)?.[1] : undefined;
}

/** The group a ResizeRequest names, from `groups` (the cache). */
export function groupOf(
  groups: readonly InstanceGroupManager[],
  rr: ResizeRequest,
): InstanceGroupManager | undefined {
  return groups.find(
    (g) => g.metadata.namespace === rr.metadata.namespace && g.metadata.name === rr.spec.instanceGroupManager,
  );
}
