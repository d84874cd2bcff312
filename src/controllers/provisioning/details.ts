// status.provisioningClassDetails of a ProvisioningRequest of our class (pure): written at acceptance,
// so that tools read where the request is served and when it is expected to be provisioned without
// parsing a message. The names GKE writes for the same facts are GKE's (ResizeRequestName,
// SelectedZone, PodTemplateName); the queue's are ours (QueuePosition, EstimatedProvisioningTime,
// EstimateKind), come from the same rounding as the Provisioned=False message (shownEta) and are
// written with it (when rewrite.ts says), so they say what the message says and cost no write of their
// own.
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { ClassDetail, type ProvisioningRequest } from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import type { RequestInsight } from "../../queue/insight.js";
import { shownEta } from "./conditions.js";
import { groupOf } from "./ownership.js";

export type ClassDetails = Readonly<Record<string, string>>;

export interface DetailsInput {
  readonly request: ProvisioningRequest;
  /** The ResizeRequest's name and the group's key (`namespace/name`). */
  readonly resizeRequestName: string;
  readonly groupKey: string;
  /** The group, for its zone or region; undefined once it is gone (what was recorded stays). */
  readonly group: InstanceGroupManager | undefined;
  /** The queue model's view while the ResizeRequest waits or provisions; undefined otherwise. */
  readonly insight: RequestInsight | undefined;
}

/** The queue's keys: they hold only while the request waits or provisions. */
const QUEUE_KEYS: readonly string[] = [
  ClassDetail.QueuePosition,
  ClassDetail.EstimatedProvisioningTime,
  ClassDetail.EstimateKind,
];

export function classDetails(input: DetailsInput): ClassDetails {
  const { request, group, insight } = input;
  const before = request.status?.provisioningClassDetails ?? {};
  const names = request.spec.podSets.map((s) => s.podTemplateRef.name ?? "").filter((n) => n !== "");
  const zone = group?.spec.zone ?? (group ? undefined : before[ClassDetail.SelectedZone]);
  const region = group?.spec.region ?? (group ? undefined : before[ClassDetail.Region]);
  const eta = insight && insight.eta.basis !== "unknown" ? shownEta(insight.eta) : undefined;
  return {
    [ClassDetail.ResizeRequestName]: input.resizeRequestName,
    [ClassDetail.InstanceGroupManager]: input.groupKey,
    ...(zone !== undefined && { [ClassDetail.SelectedZone]: zone }),
    ...(region !== undefined && { [ClassDetail.Region]: region }),
    ...(names.length > 0 && { [ClassDetail.PodTemplateName]: [...new Set(names)].join(", ") }),
    ...(insight && { [ClassDetail.QueuePosition]: String(insight.position) }),
    ...(eta && { [ClassDetail.EstimatedProvisioningTime]: eta.time, [ClassDetail.EstimateKind]: eta.kind }),
  };
}

/** The details of a request served by `rr`, with the queue's view while it waits. */
export function detailsFor(
  request: ProvisioningRequest,
  groups: readonly InstanceGroupManager[],
  rr: ResizeRequest,
  insight: RequestInsight | undefined,
): ClassDetails {
  return classDetails({
    request,
    resizeRequestName: rr.metadata.name ?? "",
    groupKey: `${rr.metadata.namespace ?? ""}/${rr.spec.instanceGroupManager}`,
    group: groupOf(groups, rr),
    insight,
  });
}

/** The details without the queue's keys: the request no longer waits (provisioned or failed). */
export function withoutQueue(details: ClassDetails | undefined): ClassDetails | undefined {
  if (!details || !QUEUE_KEYS.some((k) => Object.hasOwn(details, k))) return details;
  return Object.fromEntries(Object.entries(details).filter(([k]) => !QUEUE_KEYS.includes(k)));
}

/** Same keys and values, in any order: a status write is due only when a reader would see a change. */
export function sameDetails(a: ClassDetails | undefined, b: ClassDetails | undefined): boolean {
  const ea = Object.entries(a ?? {});
  return ea.length === Object.keys(b ?? {}).length && ea.every(([k, v]) => b?.[k] === v);
}
