// Wires the booking controller into a manager: an informer of FutureReservations indexed by group, the
// resize controller's shared caches of groups and ResizeRequests, and a controller keyed by group.
import type { KubernetesObject } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { FutureReservation } from "../api/future-reservation.js";
import { FUTURE_RESERVATIONS } from "../api/kinds.js";
import { FUTURE_RESERVATION } from "../api/names.js";
import { resizeInformers } from "../controller/setup.js";
import type { EventRecorder } from "../events/recorder.js";
import { Controller } from "../runtime/controller.js";
import type { Manager } from "../runtime/manager.js";
import type { MetricsSink } from "../runtime/metrics.js";
import { generationOrDeletionChanged } from "../runtime/predicates.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { objectKey } from "../runtime/store.js";
import { stripUnreadMetadata } from "../runtime/transform.js";
import { BOOKINGS_BY_GROUP, bookingGroupKey } from "./observe.js";
import { bookingReconciler } from "./reconciler.js";

export interface BookingOptions {
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly concurrency: number;
  readonly metrics?: MetricsSink;
  /** Watch one namespace only; all namespaces when undefined. */
  readonly namespace?: string;
  readonly now?: () => number;
}

const pending = (b: FutureReservation): boolean =>
  (b.status?.procurementStatus ?? "PENDING_APPROVAL") === "PENDING_APPROVAL" && !b.spec.cancel;

export function addBookingController(mgr: Manager, options: BookingOptions): Controller {
  const scope = { namespace: options.namespace || undefined };
  const bookings = mgr.informer<FutureReservation>({
    name: FUTURE_RESERVATION.plural,
    path: resourcePath(FUTURE_RESERVATIONS, scope),
    decode: (raw: KubernetesObject) => FutureReservation.parse(raw),
    transform: stripUnreadMetadata,
    indexers: { [BOOKINGS_BY_GROUP]: (b) => [bookingGroupKey(b)] },
  });
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
  mgr.addController(controller);
  return controller;
}
