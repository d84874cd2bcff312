// What the booking controller calls on the API server (informer in setup.ts, status writes in
// execute.ts). The groups and requests it reads are the resize controller's caches (granted there);
// its Events go through the shared recorder. The chart's RBAC is generated from this list.
import { FUTURE_RESERVATION, GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST, USE_VERB } from "../api/names.js";
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
    why: "booking controller: writes procurementStatus, the window, the message and the Approved, Cancelled, Delivered and Ended conditions, through the status subresource only",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [RESIZE_REQUEST.plural],
    verbs: ["create", "patch"],
    why: "booking controller: creates a booking's delivery ResizeRequest at its window's start minus the lead time, and cancels it (a merge patch of spec.cancel) when the booking is cancelled, fails or ends",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [`${RESIZE_REQUEST.plural}/status`],
    verbs: ["update"],
    why: "booking controller: brings a succeeded delivery request's status.runUntil forward to now when its booking is cancelled, so that its instances are released then",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [INSTANCE_GROUP_MANAGER.plural],
    verbs: [USE_VERB],
    why: "booking controller: the admission policy asks whoever creates a ResizeRequest for verb use on its group; the booking was approved against that group",
  }),
];
