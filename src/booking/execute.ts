// Carries out a booking plan: each booking's status written through its status subresource, guarded
// by the resourceVersion it was decided on, in the plan's (FIFO) order, then its events. A conflict
// stops the pass: what follows was decided on what came before, so the next pass decides it again.
import { FUTURE_RESERVATIONS } from "../api/kinds.js";
import { INSTANCE_GROUP_MANAGER, API_VERSION } from "../api/names.js";
import type { EventRecorder } from "../events/recorder.js";
import { isConflict, isNotFound } from "../runtime/api-errors.js";
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
