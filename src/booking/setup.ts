// Wires the booking controller into a manager: the shared informer of FutureReservations indexed by
// group (cache/bookings.ts), the resize controller's shared caches of groups and
// ResizeRequests, and a controller keyed by group.
import type { ControllerSettings } from "../controllers/options.js";
import type { FutureReservation } from "../api/future-reservation.js";
import { FUTURE_RESERVATION } from "../api/names.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { bookingInformer } from "../cache/bookings.js";
import { groupOf } from "../cache/indexes.js";
import { resizeInformers } from "../cache/informers.js";
import { Controller } from "../runtime/controller.js";
import type { Manager } from "../runtime/manager.js";
import { generationOrDeletionChanged } from "../runtime/predicates.js";
import { objectKey } from "../runtime/store.js";
import { claimedDelivery } from "../queue/booking-wait.js";
import { BOOKINGS_BY_GROUP, bookingGroupKey } from "./observe.js";
import { bookingReconciler } from "./reconciler.js";

export interface BookingOptions extends ControllerSettings {
  readonly concurrency: number;
}

const pending = (b: FutureReservation): boolean =>
  (b.status?.procurementStatus ?? "PENDING_APPROVAL") === "PENDING_APPROVAL" && !b.spec.cancel;

/** A delivery request moved on (created, a new state, a new attempt): its booking follows it. */
const deliveryMoved = (before: ResizeRequest, after: ResizeRequest): boolean =>
  claimedDelivery(after.metadata) !== undefined &&
  (before.status?.state !== after.status?.state ||
    before.status?.provisioning?.phase !== after.status?.provisioning?.phase ||
    before.status?.reason !== after.status?.reason);

export function addBookingController(mgr: Manager, options: BookingOptions): Controller {
  const bookings = bookingInformer(mgr, options.namespace);
  const { requests, groups } = resizeInformers(mgr, options.namespace);
  const controller = new Controller({
    name: FUTURE_RESERVATION.kind.toLowerCase(),
    concurrency: options.concurrency,
    logger: options.logger,
    ...(options.metrics && { metrics: options.metrics }),
    reconcile: bookingReconciler({
      groups: groups.lister,
      requests: requests.lister,
      bookings: bookings.lister,
      client: mgr.client,
      recorder: options.recorder,
      now: options.now ?? Date.now,
    }),
  });
  // A new booking or a cancel (spec changes bump the generation; our status writes do not).
  controller.watchMapped(bookings, (b) => [bookingGroupKey(b)], generationOrDeletionChanged);
  // A group appearing, or its size becoming known, decides the bookings waiting for it; a group
  // without a pending booking maps to nothing, so its status writes cost no pass.
  controller.watchMapped(groups, (g) => {
    const key = objectKey(g);
    return bookings.lister.byIndex(BOOKINGS_BY_GROUP, key).some(pending) ? [key] : [];
  });
  // A delivery request's progress moves its booking (PROVISIONING, FULFILLED, FAILED); other requests
  // map to nothing.
  controller.watchMapped(
    requests,
    (r) => (claimedDelivery(r.metadata) ? groupOf(r) : []),
    deliveryMoved,
    undefined,
    { skipInitialList: true },
  );
  mgr.addController(controller);
  return controller;
}
