// A cached ResizeRequest as the readers of the caches see it (the in-play index, the resize decision).
import { FINALIZER } from "../api/names.js";
import type { ResizeRequest, ResizeRequestSpec, ResizeRequestStatus } from "../api/resize-request.js";
import { servedBy } from "../api/served-by.js";
import { claimedDelivery, type Delivery } from "../queue/booking-wait.js";

export interface RequestView {
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
  readonly creationTimestamp: string;
  readonly deleting: boolean;
  readonly hasFinalizer: boolean;
  /** Created for a ProvisioningRequest: its instances also carry GKE's provisioning-request label. */
  readonly forProvisioningRequest: boolean;
  /**
   * The booking its label says it delivers (queue/booking-wait.ts claimedDelivery); decide/bookings.ts
   * holds the claim against the group's bookings before anything trusts it.
   */
  readonly delivery?: Delivery;
  readonly spec: ResizeRequestSpec;
  readonly status: ResizeRequestStatus;
}

/** A cached request as the decision sees it. */
export function requestView(rr: ResizeRequest): RequestView {
  const m = rr.metadata;
  const delivery = claimedDelivery(m);
  return {
    name: m.name ?? "",
    uid: m.uid ?? "",
    generation: m.generation ?? 0,
    creationTimestamp: m.creationTimestamp ?? new Date(0).toISOString(),
    deleting: m.deletionTimestamp !== undefined,
    hasFinalizer: m.finalizers?.includes(FINALIZER) ?? false,
    forProvisioningRequest: servedBy(m.annotations).provisioningRequest !== undefined,
    ...(delivery && { delivery }),
    spec: rr.spec,
    status: rr.status ?? {},
  };
}
