// What the booking controller calls on the API server (informer in setup.ts, status writes in
// execute.ts). The groups and requests it reads are the resize controller's caches (granted there);
// its Events go through the shared recorder. The chart's RBAC is generated from this list.
import { FUTURE_RESERVATION, GROUP } from "../api/names.js";
import { permission } from "../rbac/permissions.js";

export const BOOKING_PERMISSIONS = [
  permission({
    apiGroups: [GROUP],
    resources: [FUTURE_RESERVATION.plural],
    verbs: ["list", "watch"],
    why: "booking controller: cache of FutureReservations, decided per group",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [`${FUTURE_RESERVATION.plural}/status`],
    verbs: ["update"],
    why: "booking controller: writes procurementStatus (APPROVED, DECLINED, CANCELLED), the window, the message and the Approved and Cancelled conditions, through the status subresource only",
  }),
];
