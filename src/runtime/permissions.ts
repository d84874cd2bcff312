// What the manager's leader election calls on the API server (lease-client.ts).
import { permission } from "../rbac/permissions.js";

export const RUNTIME_PERMISSIONS = [
  permission({
    scope: "operator-namespace",
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["get", "create", "update"],
    why: "leader election: reads, creates and renews the Lease in the operator's own namespace (a Role, not cluster-wide)",
  }),
];
