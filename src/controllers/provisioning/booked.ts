// A ProvisioningRequest that names a FutureReservation (parameter futureReservation) is served from
// that booking's delivered instances, never by a ResizeRequest of its own (pure, table-tested). The
// booking's delivery request fr-<booking> (src/booking/deliver.ts) is the booking's: the provisioner
// reads the booking and publishes that request's name in provisioningClassDetails, so Kueue's
// podSetUpdates pin the pods to its instances, and never creates, cancels, adopts or deletes it.
//
// - The booking missing, of another group than instanceGroupManager names, DECLINED, CANCELLED, FAILED
//   or past its window, or too small for the pods: Failed.
// - PENDING_APPROVAL, APPROVED, PROVISIONING: Accepted=True, Provisioned=False naming the booking and
//   its window's start.
// - FULFILLED: Provisioned=True. Its window's end (or an early release on cancel): CapacityRevoked.
// - No BookingExpired: the booking holds its instances for its window whether pods consume them or not,
//   so there is nothing for an unconsumed request to give back.
import {
  FutureReservationCondition as FC,
  windowLengthMs,
  type FutureReservation,
} from "../../api/future-reservation.js";
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { ClassDetail, ProvisioningCondition as C } from "../../api/provisioning-request.js";
import { rfc3339 } from "../../api/time.js";
import { deliveryName } from "../../queue/booking-wait.js";
import { sizeDemand } from "./demand.js";
import { classDetails } from "./details.js";
import { accept, fail, isTrue, type ProvisioningDraft } from "./draft.js";
import { provisioningEvents as E, Reason } from "./conditions.js";
import { unknownParametersMessage, type ParsedParameters } from "./parameters.js";
import { podSetDemands } from "./pod-sets.js";
import type { RequestSnapshot } from "./snapshot.js";

/** The booking's window as resolved: its status's, else computed from its spec. */
export function windowOf(b: FutureReservation): { readonly start: string; readonly end: string } {
  const w = b.spec.timeWindow;
  const start = b.status?.startTime ?? w.startTime;
  const length = windowLengthMs(w);
  const end =
    b.status?.endTime ?? w.endTime ?? (length === undefined ? "" : rfc3339(Date.parse(start) + length));
  return { start, end };
}

/** Why the booking can serve no request now (undefined when it can). */
function unusable(b: FutureReservation, key: string): string | undefined {
  const status = b.status?.procurementStatus;
  if (status === "DECLINED" || status === "CANCELLED" || status === "FAILED")
    return `FutureReservation ${key} is ${status}${b.status?.message ? `: ${b.status.message}` : ""}`;
  if (isTrue(b.status?.conditions, FC.Ended))
    return `The window of FutureReservation ${key} ended at ${windowOf(b).end}: its instances were released`;
  return undefined;
}

/** Where the request is served, recorded at acceptance: the delivery request, its group, the booking. */
function details(s: RequestSnapshot, b: FutureReservation, group: InstanceGroupManager) {
  const ns = s.request.metadata.namespace ?? "";
  const name = b.metadata.name ?? "";
  return {
    ...classDetails({
      request: s.request,
      resizeRequestName: deliveryName(name),
      groupKey: `${ns}/${b.spec.instanceGroupManager}`,
      group,
      insight: undefined,
    }),
    [ClassDetail.FutureReservation]: name,
  };
}

/** Admission of a request naming booking `b`: the same pod-set checks as any, then the booking's size. */
function admitBooked(
  s: RequestSnapshot,
  d: ProvisioningDraft,
  b: FutureReservation,
  parameters: Extract<ParsedParameters, { ok: true }>,
): boolean {
  const pr = s.request;
  const ns = pr.metadata.namespace ?? "";
  const key = `${ns}/${b.metadata.name ?? ""}`;
  const groupKey = `${ns}/${b.spec.instanceGroupManager}`;
  const named = parameters.value.group;
  if (named && ((named.namespace ?? ns) !== ns || named.name !== b.spec.instanceGroupManager)) {
    fail(
      d,
      Reason.FutureReservationGroupMismatch,
      `FutureReservation ${key} books InstanceGroupManager ${groupKey}, not ${named.namespace ?? ns}/${named.name} (parameter instanceGroupManager): name the booking's group or leave the parameter out.`,
    );
    return false;
  }
  const read = podSetDemands(pr, s.templates);
  if (!read.ok) {
    fail(d, read.reason, read.message);
    return false;
  }
  const group = s.groups.find((g) => `${g.metadata.namespace ?? ""}/${g.metadata.name ?? ""}` === groupKey);
  const shape = group?.spec.instanceShape;
  if (!group || !shape) {
    fail(
      d,
      group ? Reason.NoInstanceShape : Reason.GroupNotFound,
      `InstanceGroupManager ${groupKey}, booked by FutureReservation ${key}, ${group ? "declares no spec.instanceShape, so the request's pods cannot be sized in its instances" : "does not exist"}.`,
    );
    return false;
  }
  const sizing = sizeDemand(read.podSets, shape);
  if (!sizing.fits) {
    fail(
      d,
      Reason.NotSchedulableInGroup,
      sizing.message.replace("the group", `InstanceGroupManager ${groupKey}`),
    );
    return false;
  }
  if (sizing.instances > b.spec.totalCount) {
    fail(
      d,
      Reason.FutureReservationTooSmall,
      `The request's ${sizing.pods} pods need ${sizing.instances} instances of InstanceGroupManager ${groupKey}; FutureReservation ${key} books ${b.spec.totalCount}: ${sizing.instances - b.spec.totalCount} over.`,
    );
    return false;
  }
  const unknown = parameters.unknown;
  if (unknown.length > 0 && group.spec.provisioningRequests?.strictParameters) {
    fail(
      d,
      Reason.InvalidParameters,
      `Invalid parameters: ${unknownParametersMessage(unknown)}; InstanceGroupManager ${groupKey} sets provisioningRequests.strictParameters.`,
    );
    return false;
  }
  const { start, end } = windowOf(b);
  const accepted = `Served by FutureReservation ${key}: ResizeRequest ${ns}/${deliveryName(b.metadata.name ?? "")} delivers its ${b.spec.totalCount} instances of InstanceGroupManager ${groupKey} for the window ${start} to ${end}; this request's ${sizing.pods} pods need ${sizing.instances}. No ResizeRequest of its own.`;
  d.details = details(s, b, group);
  accept(d, accepted, unknown);
  return true;
}

/** Provisioned=False's message while the booking is not FULFILLED yet. */
function waitingMessage(b: FutureReservation, key: string, delivery: string): string {
  const { start } = windowOf(b);
  switch (b.status?.procurementStatus) {
    case "PROVISIONING":
      return `Waiting for FutureReservation ${key}, whose window starts at ${start}: its delivery ResizeRequest ${delivery} is provisioning its ${b.spec.totalCount} instances.`;
    case "APPROVED":
      return `Waiting for FutureReservation ${key} (APPROVED), whose window starts at ${start}: its delivery ResizeRequest ${delivery} is created the lead time before then.`;
    default:
      return `Waiting for FutureReservation ${key} (not approved yet), whose window starts at ${start}.`;
  }
}

/** The conditions of a request served from the booking the `futureReservation` parameter names. */
export function decideBooked(s: RequestSnapshot, d: ProvisioningDraft, name: string): void {
  const pr = s.request;
  const ns = pr.metadata.namespace ?? "";
  const key = `${ns}/${name}`;
  const b = s.futureReservation;
  const provisioned = isTrue(pr.status?.conditions, C.Provisioned);
  const parameters = s.parameters;
  if (!parameters.ok) {
    fail(d, Reason.InvalidParameters, parameters.message);
    return;
  }
  if (!b) {
    // Deleted after it delivered: its instances stay (as any deleted request's), nothing to revoke.
    if (provisioned) return;
    const accepted = isTrue(pr.status?.conditions, C.Accepted);
    fail(
      d,
      Reason.FutureReservationNotFound,
      accepted
        ? `FutureReservation ${key} (parameter futureReservation) was deleted before it delivered.`
        : `FutureReservation ${key} (parameter futureReservation) does not exist${s.futureReservationsServed === false ? " (this operator does not serve FutureReservations: their CRD was not installed when it started)" : ""}. A request is served only from a booking of its own namespace.`,
    );
    return;
  }
  const delivery = `${ns}/${deliveryName(name)}`;
  if (provisioned) {
    const ended = b.status?.conditions?.find((c) => c.type === FC.Ended && c.status === "True");
    if (ended && !isTrue(pr.status?.conditions, C.CapacityRevoked))
      d.set(
        {
          type: C.CapacityRevoked,
          status: "True",
          reason: Reason.CapacityRevoked,
          message: `FutureReservation ${key} ended (${ended.reason}): the ${b.spec.totalCount} instances of ResizeRequest ${delivery} were released.`,
        },
        E.CapacityRevoked,
      );
    return;
  }
  const why = unusable(b, key);
  if (why) {
    fail(d, Reason.FutureReservationNotUsable, `${why}; it cannot serve this request.`);
    return;
  }
  if (!isTrue(pr.status?.conditions, C.Accepted) && !admitBooked(s, d, b, parameters)) return;
  if (b.status?.procurementStatus === "FULFILLED") {
    d.set(
      {
        type: C.Provisioned,
        status: "True",
        reason: Reason.Provisioned,
        message: `The ${b.spec.totalCount} instances of FutureReservation ${key} are ready (ResizeRequest ${delivery}, InstanceGroupManager ${ns}/${b.spec.instanceGroupManager}) until its window ends at ${windowOf(b).end}.`,
      },
      E.Provisioned,
    );
    return;
  }
  d.set({
    type: C.Provisioned,
    status: "False",
    reason: Reason.WaitingForFutureReservationWindow,
    message: waitingMessage(b, key, delivery),
  });
}
