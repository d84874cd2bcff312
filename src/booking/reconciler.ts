// The booking controller's reconciler: one key per group ("namespace/name"), so that the bookings of a
// group are decided one pass at a time (two passes deciding at once could each approve a booking the
// other's approval leaves no room for); observe (caches), decide (pure), execute. A pass is also due
// when a delivery starts, a window starts or ends (the plan's requeueAfterMs).
import type { Reconciler } from "../runtime/controller.js";
import { decideBookings } from "./decide.js";
import { executeBookingPlan, type BookingExecuteDeps } from "./execute.js";
import { observeBookings, type BookingObserveDeps } from "./observe.js";

export interface BookingReconcilerDeps extends BookingObserveDeps, BookingExecuteDeps {}

export function bookingReconciler(deps: BookingReconcilerDeps): Reconciler {
  return async (request, { log }) => {
    const snapshot = observeBookings(deps, request.namespace ?? "", request.name);
    const plan = decideBookings(snapshot);
    for (const c of plan.changes)
      log.info(
        { booking: c.booking.metadata.name, procurementStatus: c.status.procurementStatus },
        c.status.message,
      );
    for (const r of plan.creates)
      log.info({ request: r.metadata.name }, "creating a booking's delivery request");
    for (const r of plan.cancels)
      log.info({ request: r.metadata.name }, "cancelling a delivery request no longer wanted");
    for (const { request } of plan.releases)
      log.info({ request: request.metadata.name }, "releasing a cancelled booking's delivered instances now");
    const outcome = await executeBookingPlan(deps, plan, snapshot.group?.metadata.uid);
    if (outcome === "conflict") return { requeue: true };
    // The next delivery due, window starting or ending; one due now (a booking approved this pass whose
    // delivery is due) at once: the runtime takes a delay of 0 for none.
    return plan.requeueAfterMs === undefined
      ? undefined
      : { requeueAfterMs: Math.max(1, plan.requeueAfterMs) };
  };
}
