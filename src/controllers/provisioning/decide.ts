// The provisioner's decision for one pass (pure, table-tested): from the snapshot (snapshot.ts) alone,
// the plan — for a request of our class, the conditions it should carry, the ResizeRequest to create
// or cancel and the events of each condition change; for every key, the ResizeRequests a deleted
// request left that are cancelled, and those whose retention is over that are deleted (cleanup.ts),
// decided on the request as this pass leaves it; and when to look again, the soonest of every wait.
// The I/O lives in observe.ts and execute.ts; the rules of the queue itself stay in the resize
// controller and the queue model, which this only reads.
import { isFinalState } from "../../api/lifecycle.js";
import {
  ProvisioningCondition as C,
  type PrCondition,
  type ProvisioningRequest,
} from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import { rfc3339 } from "../../api/time.js";
import type { EventDefinition } from "../../events/catalog.js";
import { provisioningEvents as E, failureOf, waitingMessage, Reason } from "./conditions.js";
import { decideBooked } from "./booked.js";
import { cleanupPlan, type Deletion } from "./cleanup.js";
import { classDetails, detailsFor } from "./details.js";
import { accept, ProvisioningDraft, fail, find, isTrue } from "./draft.js";
import { acceptedMessage, groupOf, notMadeFor } from "./ownership.js";
import { podSetDemands } from "./pod-sets.js";
import { insightIfQueued, queuedEta } from "./obtainability.js";
import { unknownParametersMessage, type ParsedParameters } from "./parameters.js";
import { place } from "./placement.js";
import { waitingRewriteDue } from "./rewrite.js";
import { resizeRequestFor } from "./resize-request.js";
import type { ProvisioningSnapshot, RequestSnapshot } from "./snapshot.js";

/** How often a waiting request is looked at again (its ETA; written only as rewrite.ts says). */
export const REFRESH_MS = 10_000;

export interface ProvisioningPlan {
  readonly create?: ResizeRequest;
  /** Cancel this ResizeRequest (spec.cancel: a queued one leaves the queue, a partial scale-up rolls back). */
  readonly cancel?: ResizeRequest;
  /** The request's next status, when it changes. */
  readonly status?: {
    readonly conditions: PrCondition[];
    readonly provisioningClassDetails?: Readonly<Record<string, string>>;
  };
  readonly events: readonly { readonly definition: EventDefinition; readonly note: string }[];
  /**
   * ResizeRequests a deleted request left still queued or provisioning: cancelled (once provisioned,
   * capacity is released by its run duration, never pulled from under running pods).
   */
  readonly cancelOrphans?: readonly ResizeRequest[];
  /** ResizeRequests whose retention is over (cleanup.ts), deleted last, each with its Event's note. */
  readonly delete?: readonly Deletion[];
  /** When to look again: the soonest of every wait (the request's, each ResizeRequest's retention). */
  readonly requeueAfterMs?: number;
}

export function decideProvisioning(s: ProvisioningSnapshot): ProvisioningPlan {
  const cancelOrphans = s.orphans.filter((rr) => !isFinalState(rr.status?.state) && !rr.spec.cancel);
  const { requeueAfterMs: wait, ...own } = s.request ? decideRequest(s) : { events: [] };
  // Decided on the request as this pass leaves it: the pass that finishes it schedules the cleanup.
  const left = s.request && leftBy(s.request, own);
  const served = [...s.orphans, ...(s.request && s.resizeRequest ? [s.resizeRequest] : [])];
  const cleanup = cleanupPlan(served, left, s);
  const requeueAfterMs = Math.min(wait ?? Infinity, cleanup.nextMs ?? Infinity);
  return {
    ...own,
    ...(cancelOrphans.length > 0 && { cancelOrphans }),
    ...(cleanup.deletions.length > 0 && { delete: cleanup.deletions }),
    ...(requeueAfterMs !== Infinity && { requeueAfterMs }),
  };
}

/** The request as a pass carrying out `plan` leaves it. */
function leftBy(pr: ProvisioningRequest, plan: ProvisioningPlan): ProvisioningRequest {
  return plan.status ? { ...pr, status: { ...pr.status, ...plan.status } } : pr;
}

/** The request's own part of the plan: its status, its events, its ResizeRequest created or cancelled. */
function decideRequest(s: RequestSnapshot): ProvisioningPlan {
  const pr = s.request;
  const conditions = pr.status?.conditions;
  const d = new ProvisioningDraft(pr, rfc3339(s.nowMs));
  const rr = s.resizeRequest;
  const provisioned = isTrue(conditions, C.Provisioned);
  const failed = isTrue(conditions, C.Failed);
  let create: ResizeRequest | undefined;
  let cancel: ResizeRequest | undefined;
  let requeueAfterMs: number | undefined;
  // GKE's ValidUntilSeconds holds in every state before Provisioned=True (a ResizeRequest that reached a
  // final state is reported as such instead).
  const deadline =
    failed || provisioned || isFinalState(rr?.status?.state) ? undefined : waitDeadline(pr, s.parameters);

  if (failed) {
    // Final for us. A ResizeRequest still in the queue goes too (nothing will consume it).
    cancel = rr && cancellable(s, rr);
  } else if (deadline !== undefined && s.nowMs >= deadline) {
    fail(
      d,
      Reason.WaitTimeExceeded,
      `Not provisioned by ${rfc3339(deadline)}: the ValidUntilSeconds parameter (${pr.spec.parameters?.ValidUntilSeconds ?? ""}) counts from the request's creation.`,
    );
    cancel = rr ? cancellable(s, rr) : s.namesakes.find((x) => cancellable(s, x));
  } else if (s.parameters.ok && s.parameters.value.futureReservation !== undefined) {
    // Served from the booking's delivery request: nothing of ours to create, cancel or follow.
    decideBooked(s, d, s.parameters.value.futureReservation);
  } else if (!provisioned && !isTrue(conditions, C.Accepted)) {
    ({ create, requeueAfterMs } = admit(s, d));
    // One made before a crash, for a request that fails now: nothing will consume it.
    if (isTrue(d.conditions, C.Failed)) cancel = s.namesakes.find((x) => cancellable(s, x));
  } else if (!rr) {
    // Accepted before, and its ResizeRequest is gone: deleted under it (after Provisioned, retention may
    // have removed it once released — nothing is left to do then).
    if (!provisioned)
      fail(
        d,
        Reason.MissingResizeRequest,
        "The ResizeRequest serving this request was deleted before its capacity was provisioned.",
      );
  } else {
    const foreign = notMadeFor(rr, pr, groupOf(s.groups, rr));
    if (foreign) fail(d, Reason.ResizeRequestNotOwned, foreign);
    else requeueAfterMs = follow(s, rr, d, provisioned);
  }
  if (cancel)
    d.events.push({
      definition: E.ResizeRequestCancelled,
      note: `Cancelled ResizeRequest ${cancel.metadata.namespace ?? ""}/${cancel.metadata.name ?? ""}: the request failed before it was provisioned.`,
    });
  // Looked at again at the deadline, through the same requeue as every other wait (no polling).
  if (deadline !== undefined && s.nowMs < deadline && !isTrue(d.conditions, C.Failed))
    requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, deadline - s.nowMs);
  return {
    ...(create && { create }),
    ...(cancel && { cancel }),
    ...(d.changed() && {
      status: { conditions: d.conditions, ...(d.details && { provisioningClassDetails: d.details }) },
    }),
    events: d.events,
    ...(requeueAfterMs !== undefined && { requeueAfterMs }),
  };
}

/** When a request with GKE's ValidUntilSeconds fails unless provisioned: that long after its creation. */
function waitDeadline(pr: ProvisioningRequest, parameters: ParsedParameters): number | undefined {
  const created = Date.parse(pr.metadata.creationTimestamp ?? "");
  if (!parameters.ok || parameters.value.validUntilSeconds === undefined || Number.isNaN(created))
    return undefined;
  return created + parameters.value.validUntilSeconds * 1000;
}

/** A ResizeRequest the provisioner made for the request and that still holds or waits for capacity. */
function cancellable(s: RequestSnapshot, rr: ResizeRequest): ResizeRequest | undefined {
  return !isFinalState(rr.status?.state) &&
    !rr.spec.cancel &&
    notMadeFor(rr, s.request, groupOf(s.groups, rr)) === undefined
    ? rr
    : undefined;
}

/**
 * A new request: parameters, templates, placement, the group owner's consent; the ResizeRequest to
 * create (or the one made before a crash, adopted), or Failed.
 */
function admit(
  s: RequestSnapshot,
  d: ProvisioningDraft,
): { create: ResizeRequest | undefined; requeueAfterMs: number | undefined } {
  const none = { create: undefined, requeueAfterMs: undefined };
  const pr = s.request;
  const parameters = s.parameters;
  if (!parameters.ok) {
    fail(d, Reason.InvalidParameters, parameters.message);
    return none;
  }
  const read = podSetDemands(pr, s.templates);
  if (!read.ok) {
    fail(d, read.reason, read.message);
    return none;
  }
  const podSets = read.podSets;
  const placement = place({
    namespace: pr.metadata.namespace ?? "",
    namespaceLabels: s.namespaceLabels,
    parameters: parameters.value,
    podSets,
    groups: s.groups,
    ...(s.queues && { etaOf: queuedEta(pr, parameters.value, s.queues, s.nowMs) }),
  });
  if (!placement.ok) {
    fail(d, placement.reason, placement.message);
    return none;
  }
  const unknown = parameters.unknown;
  const groupKey = `${placement.group.metadata.namespace ?? ""}/${placement.group.metadata.name ?? ""}`;
  if (unknown.length > 0 && placement.group.spec.provisioningRequests?.strictParameters) {
    fail(
      d,
      Reason.InvalidParameters,
      `Invalid parameters: ${unknownParametersMessage(unknown)}; InstanceGroupManager ${groupKey} sets provisioningRequests.strictParameters.`,
    );
    return none;
  }
  const rr = resizeRequestFor(pr, placement.group, placement.instances, parameters.value);
  const existing = s.namesakes.find((x) => x.metadata.namespace === rr.metadata.namespace);
  const foreign = existing && notMadeFor(existing, pr, placement.group);
  if (foreign) {
    fail(d, Reason.ResizeRequestNotOwned, foreign);
    return none;
  }
  const accepted = `${acceptedMessage(rr, placement.instances, placement.pods)}${
    placement.competing === undefined
      ? ""
      : ` Chosen by capacitySearchStrategy OBTAINABILITY: the earliest ETA of ${placement.competing} groups.`
  }`;
  // Its place at the back of the group's queue: the acceptance's write says the position and ETA.
  const joining = s.queues && insightIfQueued(placement.group, s.queues.get(groupKey), rr, s.nowMs);
  // Where its ResizeRequest lives is recorded with the acceptance: later passes look there only.
  d.details = classDetails({
    request: pr,
    resizeRequestName: rr.metadata.name ?? "",
    groupKey,
    group: placement.group,
    insight: joining?.insight,
  });
  accept(d, accepted, unknown);
  d.set({
    type: C.Provisioned,
    status: "False",
    reason: Reason.Queued,
    message: joining?.insight
      ? waitingMessage(rr, joining.insight, joining.queueLength).message
      : `Queued: ${accepted}`,
  });
  if (existing) return { create: undefined, requeueAfterMs: follow(s, existing, d, false) };
  return { create: rr, requeueAfterMs: undefined };
}

/** The request follows its ResizeRequest; returns when to look again. */
function follow(
  s: RequestSnapshot,
  rr: ResizeRequest,
  d: ProvisioningDraft,
  provisioned: boolean,
): number | undefined {
  const state = rr.status?.state;
  if (provisioned || state === "SUCCEEDED") return afterSuccess(s, rr, d, provisioned);
  if (state === "FAILED" || state === "CANCELLED") {
    const failure = failureOf(rr);
    fail(d, failure.reason, failure.message);
    return undefined;
  }
  const waiting = waitingMessage(rr, s.insight, s.queueLength);
  const details = detailsFor(s.request, s.groups, rr, s.insight);
  // Written on a transition or a material ETA move, not at every queue move (rewrite.ts).
  const previous = { condition: find(d.conditions, C.Provisioned), details: d.details };
  if (!waitingRewriteDue(previous, { ...waiting, details }, s.nowMs)) return REFRESH_MS;
  d.details = details;
  d.set(
    { type: C.Provisioned, status: "False", reason: waiting.reason, message: waiting.message },
    waiting.reason === Reason.Provisioning ? E.ProvisioningStarted : undefined,
  );
  return REFRESH_MS;
}

function afterSuccess(
  s: RequestSnapshot,
  rr: ResizeRequest,
  d: ProvisioningDraft,
  provisioned: boolean,
): number | undefined {
  const group = rr.spec.instanceGroupManager;
  const ns = rr.metadata.namespace ?? "";
  if (!provisioned) {
    const size = rr.spec.resizeBy ?? 0;
    d.details = detailsFor(s.request, s.groups, rr, undefined);
    d.set(
      {
        type: C.Provisioned,
        status: "True",
        reason: Reason.Provisioned,
        message: `${size} instances of InstanceGroupManager ${ns}/${group} are ready (ResizeRequest ${ns}/${rr.metadata.name ?? ""}).`,
      },
      E.Provisioned,
    );
  }
  if (rr.status?.release !== undefined && !isTrue(s.request.status?.conditions, C.CapacityRevoked)) {
    d.set(
      {
        type: C.CapacityRevoked,
        status: "True",
        reason: Reason.CapacityRevoked,
        message: `The run duration ended at ${rr.status.runUntil ?? "its end"}: the ${rr.spec.resizeBy ?? 0} instances of InstanceGroupManager ${ns}/${group} were released.`,
      },
      E.CapacityRevoked,
    );
    return undefined;
  }
  const expires = s.bookingEndsAt;
  if (expires === undefined || s.consumed) return undefined;
  if (s.nowMs < expires) return expires - s.nowMs;
  d.set(
    {
      type: C.BookingExpired,
      status: "True",
      reason: Reason.BookingExpired,
      message: `No pod consumed the capacity within the booking window (until ${rfc3339(expires)}).`,
    },
    E.BookingExpired,
  );
  return undefined;
}
