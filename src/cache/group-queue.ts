// A group's queue as readers outside the controller see it: the queue model (src/queue/insight.ts) run
// on the informer caches at the moment of the read — the group, all of its requests (BY_GROUP index,
// finished ones give the attempt history) and the target counts of the group's status. Used by the
// dashboard, the metrics and the ProvisioningRequest provisioner; nothing of it is stored. Given the
// FutureReservations cache (cache/bookings.ts), the ETAs count approved bookings' windows, as the
// controller's admission does (docs/booking.md "Queue holds"); without it they leave them out.
import type { FutureReservation } from "../api/future-reservation.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { queueInsight, type QueueInsight, type TargetCounts } from "../queue/insight.js";
import type { Lister } from "../runtime/store.js";
import { BOOKINGS_BY_GROUP } from "./bookings.js";
import { BY_GROUP } from "./indexes.js";

/** The target's counts as the controller last wrote them on the group; undefined before it has. */
export function statusTarget(group: InstanceGroupManager): TargetCounts | undefined {
  const status = group.status;
  return status?.targetSize === undefined
    ? undefined
    : { replicas: status.targetSize, readyReplicas: status.readyInstances ?? 0 };
}

/** A group's queue as the model reads it: every request naming it, and its target's counts. */
export interface CachedQueue {
  readonly requests: ResizeRequest[];
  readonly target: TargetCounts | undefined;
  /** The group's FutureReservations, when the reader has their cache. */
  readonly bookings?: FutureReservation[];
}

/** The group's queue on the caches (the requests of the BY_GROUP index `key`, the status's counts). */
export function cachedQueue(
  group: InstanceGroupManager | undefined,
  requests: Lister<ResizeRequest>,
  key: string,
  bookings?: Lister<FutureReservation>,
): CachedQueue {
  return {
    requests: requests.byIndex(BY_GROUP, key),
    target: group && statusTarget(group),
    ...(bookings && { bookings: bookings.byIndex(BOOKINGS_BY_GROUP, key) }),
  };
}

/** The queue model on the caches: the group `namespace/name` and every request naming it. */
export function groupQueue(
  groups: Lister<InstanceGroupManager>,
  requests: Lister<ResizeRequest>,
  key: string,
  now: number,
  bookings?: Lister<FutureReservation>,
): {
  readonly group: InstanceGroupManager | undefined;
  readonly requests: ResizeRequest[];
  readonly insight: QueueInsight;
} {
  const group = groups.get(key);
  const queue = cachedQueue(group, requests, key, bookings);
  return { group, requests: queue.requests, insight: queueInsight({ group, ...queue, now }) };
}
