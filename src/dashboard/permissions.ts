// What the dashboard calls on the API server as the operator (index.ts). Its reads of groups and
// requests share the resize controller's informers, its writes go through the REST handlers, and it
// authorizes each user with SubjectAccessReview (all declared there).
import { permission } from "../rbac/permissions.js";

export const DASHBOARD_PERMISSIONS = [
  permission({
    apiGroups: ["events.k8s.io"],
    resources: ["events"],
    verbs: ["list", "watch"],
    why: "dashboard: cache of events shown live next to requests and groups (each user sees only namespaces RBAC lets them)",
  }),
];
