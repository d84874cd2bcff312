// What the dashboard calls on the API server as the operator's identity (besides the REST API's
// SubjectAccessReviews and resize request writes, which it reuses): the events informer behind the
// request timelines and the live events stream.
import { permission } from "../rbac/permissions.js";

export const DASHBOARD_PERMISSIONS = [
  permission({
    apiGroups: ["events.k8s.io"],
    resources: ["events"],
    verbs: ["list", "watch"],
    why: "dashboard: an informer on events.k8s.io/v1 Events feeds the request detail and the live events stream",
  }),
];
