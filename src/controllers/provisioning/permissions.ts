// What the ProvisioningRequest provisioner calls on the API server (informer in controller.ts, reads in
// observe.ts, writes in execute.ts). The chart's RBAC is generated from this list.
import {
  FUTURE_RESERVATION,
  GROUP,
  INSTANCE_GROUP_MANAGER,
  RESIZE_REQUEST,
  USE_VERB,
} from "../../api/names.js";
import {
  PROVISIONING_API_GROUP,
  PROVISIONING_CLASS,
  PROVISIONING_REQUEST,
} from "../../api/provisioning-request.js";
import { permission } from "../../rbac/permissions.js";

export const PROVISIONING_PERMISSIONS = [
  permission({
    apiGroups: [PROVISIONING_API_GROUP],
    resources: [PROVISIONING_REQUEST.plural],
    verbs: ["list", "watch"],
    why: `provisioner: cache of ProvisioningRequests (only those of class ${PROVISIONING_CLASS} are served)`,
  }),
  permission({
    apiGroups: [PROVISIONING_API_GROUP],
    resources: [`${PROVISIONING_REQUEST.plural}/status`],
    verbs: ["update"],
    why: "provisioner: writes the Accepted, Provisioned, Failed, BookingExpired and CapacityRevoked conditions and provisioningClassDetails, through the status subresource only",
  }),
  permission({
    apiGroups: [""],
    resources: ["podtemplates"],
    verbs: ["get"],
    why: "provisioner: reads the pod templates a new ProvisioningRequest's pod sets reference, in its namespace, to size its demand",
  }),
  permission({
    apiGroups: [""],
    resources: ["namespaces"],
    verbs: ["get"],
    why: "provisioner: reads a new ProvisioningRequest's namespace labels when a group admits namespaces by selector",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [RESIZE_REQUEST.plural],
    verbs: ["create", "get"],
    why: "provisioner: creates the ResizeRequest serving a ProvisioningRequest (get: reads it at its recorded place when the cache has not seen it yet); cancels it with a patch (granted to the resize controller)",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [FUTURE_RESERVATION.plural],
    verbs: ["list", "watch"],
    why: "provisioner: reads (shared cache) the FutureReservation a ProvisioningRequest's futureReservation parameter names, in the request's namespace, to serve it from that booking's delivery; never writes one",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [INSTANCE_GROUP_MANAGER.plural],
    verbs: [USE_VERB],
    why: "provisioner: the admission policy asks whoever creates a ResizeRequest for verb use on its group; which namespaces may draw on a group is the group's own spec.provisioningRequests",
  }),
];
