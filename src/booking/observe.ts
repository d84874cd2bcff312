// What one pass of the booking controller reads for a group key ("namespace/name"), all from caches:
// the group, its ResizeRequests and its FutureReservations.
import type { FutureReservation } from "../api/future-reservation.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { BOOKINGS_BY_GROUP } from "../cache/bookings.js";
import { BY_GROUP } from "../cache/indexes.js";
import type { Lister } from "../runtime/store.js";
import type { BookingSnapshot } from "./decide.js";

export { BOOKINGS_BY_GROUP, bookingGroupKey } from "../cache/bookings.js";

export interface BookingObserveDeps {
  readonly groups: Lister<InstanceGroupManager>;
  readonly requests: Lister<ResizeRequest>;
  readonly bookings: Lister<FutureReservation>;
  readonly now: () => number;
}

export function observeBookings(
  deps: BookingObserveDeps,
  namespace: string,
  groupName: string,
): BookingSnapshot {
  const key = `${namespace}/${groupName}`;
  return {
    namespace,
    groupName,
    group: deps.groups.get(key),
    requests: deps.requests.byIndex(BY_GROUP, key),
    bookings: deps.bookings.byIndex(BOOKINGS_BY_GROUP, key),
    now: deps.now(),
  };
}
