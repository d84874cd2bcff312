// The shared cache of FutureReservations, indexed by their group: the resize controller reads a
// group's approved bookings from it (a queued request may not take their capacity, decide/bookings.ts)
// and the booking controller (src/booking/) decides them from it. Built here, below both, so the
// manager hands each the same informer. Only where the API server serves the kind (operator.ts).
import type { KubernetesObject } from "@kubernetes/client-node";
import { FutureReservation } from "../api/future-reservation.js";
import { FUTURE_RESERVATIONS } from "../api/kinds.js";
import { FUTURE_RESERVATION } from "../api/names.js";
import type { Informer } from "../runtime/informer.js";
import type { Manager } from "../runtime/manager.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { stripUnreadMetadata } from "../runtime/transform.js";

/** Index of the booking cache: "namespace/group" of the group a booking names. */
export const BOOKINGS_BY_GROUP = "byGroup";

/** The cache key of the group a booking names (in its own namespace). */
export const bookingGroupKey = (b: FutureReservation): string =>
  `${b.metadata.namespace ?? ""}/${b.spec.instanceGroupManager}`;

/** The shared informer of FutureReservations (one namespace, or all when undefined or empty). */
export function bookingInformer(mgr: Manager, namespace: string | undefined): Informer<FutureReservation> {
  return mgr.informer<FutureReservation>({
    name: FUTURE_RESERVATION.plural,
    path: resourcePath(FUTURE_RESERVATIONS, { namespace: namespace || undefined }),
    decode: (raw: KubernetesObject) => FutureReservation.parse(raw),
    transform: stripUnreadMetadata,
    indexers: { [BOOKINGS_BY_GROUP]: (b) => [bookingGroupKey(b)] },
  });
}
