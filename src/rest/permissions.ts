// What the compute REST API calls on the API server as the operator's own identity (auth.ts,
// cluster.ts). Callers are authorized first, with their own identity (SubjectAccessReview); these
// rules only let the operator carry out what a caller was allowed to do.
import { FUTURE_RESERVATION, GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST, USE_VERB } from "../api/names.js";
import { permission } from "../rbac/permissions.js";

export const REST_PERMISSIONS = [
  permission({
    apiGroups: ["authentication.k8s.io"],
    resources: ["tokenreviews"],
    verbs: ["create"],
    why: "REST API: checks callers' bearer tokens with TokenReview",
  }),
  permission({
    apiGroups: ["authorization.k8s.io"],
    resources: ["subjectaccessreviews"],
    verbs: ["create"],
    why: "REST API: authorizes every call with a SubjectAccessReview of the caller against Kubernetes RBAC",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [RESIZE_REQUEST.plural],
    verbs: ["get", "list", "create", "patch", "delete"],
    why: "REST API: resizeRequests get/list (get, list), insert (create), cancel (merge patch of spec.cancel), delete (delete)",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [FUTURE_RESERVATION.plural],
    verbs: ["get", "list", "create", "patch", "delete"],
    why: "REST API: futureReservations get/list (get, list), insert (create), cancel (merge patch of spec.cancel), delete (delete)",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [INSTANCE_GROUP_MANAGER.plural],
    verbs: ["get", "list", USE_VERB],
    why: `REST API: finds the group a call names, by name (get) or numeric id (list); the admission policy requires verb ${USE_VERB} on the group of whoever creates a ResizeRequest, and the operator creates them for REST callers`,
  }),
];
