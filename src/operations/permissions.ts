// What the operations controller calls on the API server (controller.ts): it only reads, and writes
// to Redis. Its informers are the resize controller's (the manager shares them by path).
import { GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../api/names.js";
import { permission } from "../rbac/permissions.js";

export const OPERATIONS_PERMISSIONS = [
  permission({
    apiGroups: [GROUP],
    resources: [RESIZE_REQUEST.plural, INSTANCE_GROUP_MANAGER.plural],
    verbs: ["list", "watch"],
    why: "operations controller: follows requests (and their groups' zones) to advance their Operations",
  }),
  permission({
    apiGroups: [GROUP],
    resources: [RESIZE_REQUEST.plural],
    verbs: ["get"],
    why: "operations controller: asks the API server what became of a cancel's or delete's request its cache has not seen",
  }),
];
