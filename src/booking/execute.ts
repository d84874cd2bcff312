// Carries out a booking plan: first the delivery requests to create (one the cache has not seen yet
// exists already: made by an earlier pass) and to cancel (a merge patch of spec.cancel, guarded by the
// request's uid), and the succeeded ones to release early (their status.runUntil brought forward,
// guarded by the resourceVersion they were decided on: the resize controller's release takes it from
// there, as at a run's end), then each booking's status written through its status subresource, guarded by the
// resourceVersion it was decided on, in the plan's (FIFO) order, then its events. A request is created
// before the status that says PROVISIONING, so a status never names a request that was not made. A
// conflict stops the pass: what follows was decided on what came before, so the next pass decides it again.
import { FUTURE_RESERVATIONS, RESIZE_REQUESTS } from "../api/kinds.js";
import { INSTANCE_GROUP_MANAGER, API_VERSION } from "../api/names.js";
import type { EventRecorder } from "../events/recorder.js";
import { isAlreadyExists, isConflict, isNotFound } from "../runtime/api-errors.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { BookingPlan } from "./decide.js";

export interface BookingExecuteDeps {
  readonly client: KubeClient;
  readonly recorder: EventRecorder;
}

/** "conflict" when a booking moved on under us (the pass is requeued). */
export async function executeBookingPlan(
  deps: BookingExecuteDeps,
  plan: BookingPlan,
  groupUid: string | undefined,
): Promise<"done" | "conflict"> {
  const requests = deps.client.resource(RESIZE_REQUESTS);
  for (const rr of plan.creates)
    try {
      await requests.create(rr);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  for (const rr of plan.cancels)
    try {
      await requests.mergePatch(
        { namespace: rr.metadata.namespace ?? "", name: rr.metadata.name ?? "" },
        { metadata: { uid: rr.metadata.uid }, spec: { cancel: true } },
      );
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  for (const { request, runUntil } of plan.releases)
    try {
      await requests.updateStatus({ ...request, status: { ...request.status, runUntil } });
    } catch (err) {
      // The request moved on (the resize controller wrote it): decide again on what it is now.
      if (isConflict(err) || isNotFound(err)) return "conflict";
      throw err;
    }
  for (const { booking, status, events } of plan.changes) {
    try {
      await deps.client.resource(FUTURE_RESERVATIONS).updateStatus({ ...booking, status });
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return "conflict";
      throw err;
    }
    const namespace = booking.metadata.namespace ?? "";
    const regarding = {
      apiVersion: booking.apiVersion,
      kind: FUTURE_RESERVATIONS.kind,
      namespace,
      name: booking.metadata.name ?? "",
      uid: booking.metadata.uid ?? "",
    };
    const related =
      groupUid === undefined
        ? undefined
        : {
            apiVersion: API_VERSION,
            kind: INSTANCE_GROUP_MANAGER.kind,
            namespace,
            name: booking.spec.instanceGroupManager,
            uid: groupUid,
          };
    for (const e of events)
      deps.recorder.emit({ ...e.definition, regarding, ...(related && { related }), note: e.note });
  }
  return "done";
}
