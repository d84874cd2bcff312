// Which ResizeRequests the provisioner made are deleted, and when (pure, table-tested), as GKE deletes
// the resize requests of its finished ProvisioningRequests an hour later. A ResizeRequest goes once
//  - it is one the provisioner made (the request of its uid label and that request's owner references,
//    ownership.ts; for a request that is gone, the group's owner reference and the annotation naming
//    the request), never one that merely carries the label or annotation;
//  - the request it serves is finished — Failed, CapacityRevoked or BookingExpired — or gone (deleted,
//    or replaced by a new request of the same name: Kueue's retries);
//  - nothing is held: it is finished as retention counts it (controllers/retention-rule.ts: FAILED,
//    CANCELLED, or SUCCEEDED with its run-duration release applied or without a run duration), since
//    deleting one whose release is still due would keep its instances for good;
// and then after the provisioner's retention (--provisioning-resize-request-retention), counted from
// when it finished. The group's finishedRequestRetention still applies through the retention
// controller, so the shorter of the two wins.
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { API_VERSION, INSTANCE_GROUP_MANAGER } from "../../api/names.js";
import {
  PROVISIONING_REQUEST,
  PROVISIONING_REQUEST_ANNOTATION,
  PROVISIONING_REQUEST_UID_LABEL,
  ProvisioningCondition as C,
  type ProvisioningRequest,
} from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import { retentionDecision, type RetentionDecision } from "../retention-rule.js";
import { humanDuration } from "../retention/controller.js";
import { groupOf, notMadeFor, ownersOf } from "./ownership.js";

/** The conditions after which a ProvisioningRequest holds nothing any more (for its provider). */
const FINISHED: readonly string[] = [C.Failed, C.CapacityRevoked, C.BookingExpired];

/** The condition that finished `pr`, if one did. */
export function finishedBy(pr: ProvisioningRequest): string | undefined {
  return FINISHED.find((type) => pr.status?.conditions?.some((c) => c.type === type && c.status === "True"));
}

/**
 * What becomes of `rr`, a ResizeRequest serving a ProvisioningRequest: `request` is that request as
 * this pass sees it (after its planned status), or undefined when it is gone.
 */
export function cleanupDecision(
  rr: ResizeRequest,
  request: ProvisioningRequest | undefined,
  groups: readonly InstanceGroupManager[],
  retentionMs: number,
  nowMs: number,
): RetentionDecision {
  const uid = rr.metadata.labels?.[PROVISIONING_REQUEST_UID_LABEL] ?? "";
  const serving = request?.metadata.uid === uid ? request : undefined;
  const made = serving
    ? notMadeFor(rr, serving, groupOf(groups, rr)) === undefined
    : madeForGoneRequest(rr, uid, groupOf(groups, rr));
  if (uid === "" || !made) return { action: "keep", why: "not made by the provisioner" };
  if (serving && finishedBy(serving) === undefined)
    return { action: "keep", why: "its ProvisioningRequest is not finished" };
  return retentionDecision(rr, retentionMs, nowMs);
}

/** A ResizeRequest whose retention is over, and the note of its RetentionExpired Event. */
export interface Deletion {
  readonly resizeRequest: ResizeRequest;
  readonly note: string;
}

/**
 * Which of `served`, the ResizeRequests serving one key, are deleted now, and the time until the next
 * one is due (undefined: none waits). `request` is as in `cleanupDecision`.
 */
export function cleanupPlan(
  served: readonly ResizeRequest[],
  request: ProvisioningRequest | undefined,
  s: {
    readonly groups: readonly InstanceGroupManager[];
    readonly retentionMs: number;
    readonly nowMs: number;
  },
): { readonly deletions: readonly Deletion[]; readonly nextMs: number | undefined } {
  const deletions: Deletion[] = [];
  let nextMs: number | undefined;
  for (const rr of served) {
    const decision = cleanupDecision(rr, request, s.groups, s.retentionMs, s.nowMs);
    if (decision.action === "wait") nextMs = Math.min(nextMs ?? Infinity, decision.afterMs);
    if (decision.action === "delete")
      deletions.push({
        resizeRequest: rr,
        note: cleanupNote(rr, request, decision.finishedTime, s.retentionMs),
      });
  }
  return { deletions, nextMs };
}

/** The RetentionExpired note of a ResizeRequest deleted by `cleanupDecision`. */
export function cleanupNote(
  rr: ResizeRequest,
  request: ProvisioningRequest | undefined,
  finishedTime: string,
  retentionMs: number,
): string {
  const serves = request?.metadata.uid === rr.metadata.labels?.[PROVISIONING_REQUEST_UID_LABEL];
  const state = serves && request ? finishedBy(request) : undefined;
  const why = state ? `its ProvisioningRequest is ${state}` : "its ProvisioningRequest is gone";
  return `Deleted: ${rr.status?.state ?? ""} since ${finishedTime} and ${why}, past the provisioner's --provisioning-resize-request-retention of ${humanDuration(retentionMs)}.`;
}

/**
 * Whether `rr` is one the provisioner made for a request that is gone (the one of its uid label, which
 * its annotation names): owned by its group, and by no other request. The garbage collector removed
 * the owner reference to the deleted request (the group's still owns it), so that one cannot be asked.
 */
function madeForGoneRequest(
  rr: ResizeRequest,
  uid: string,
  group: InstanceGroupManager | undefined,
): boolean {
  const owners = ownersOf(rr.metadata);
  const key = rr.metadata.annotations?.[PROVISIONING_REQUEST_ANNOTATION] ?? "";
  return (
    key.indexOf("/") > 0 &&
    owners.some(
      (o) =>
        o.apiVersion === API_VERSION &&
        o.kind === INSTANCE_GROUP_MANAGER.kind &&
        o.name === rr.spec.instanceGroupManager &&
        (group === undefined || o.uid === group.metadata.uid),
    ) &&
    owners.every((o) => o.kind !== PROVISIONING_REQUEST.kind || o.uid === uid)
  );
}
