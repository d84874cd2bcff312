// Every permission the operator declares, and the RBAC rules generated from them.
import { BOOKING_PERMISSIONS } from "../booking/permissions.js";
import { CONTROLLER_PERMISSIONS } from "../controllers/resize/permissions.js";
import { DASHBOARD_PERMISSIONS } from "../dashboard/permissions.js";
import { EVENTS_PERMISSIONS } from "../events/permissions.js";
import { OPERATIONS_PERMISSIONS } from "../operations/permissions.js";
import { PROVISIONING_PERMISSIONS } from "../controllers/provisioning/permissions.js";
import { REST_PERMISSIONS } from "../rest/permissions.js";
import { RUNTIME_PERMISSIONS } from "../runtime/permissions.js";
import type { Permission } from "./permissions.js";

export const ALL_PERMISSIONS: readonly Permission[] = [
  ...CONTROLLER_PERMISSIONS,
  ...PROVISIONING_PERMISSIONS,
  ...BOOKING_PERMISSIONS,
  ...OPERATIONS_PERMISSIONS,
  ...REST_PERMISSIONS,
  ...DASHBOARD_PERMISSIONS,
  ...EVENTS_PERMISSIONS,
  ...RUNTIME_PERMISSIONS,
];
