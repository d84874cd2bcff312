// The ClusterRoles the chart ships for people (and clients) using resize-operator, declared with the
// same `permission()` model as the operator's own RBAC and generated into the chart by
// src/generate/rbac.ts. They are aggregated into Kubernetes' user-facing roles, so a RoleBinding to
// `view`, `edit` or `admin` in a namespace covers resize requests there too.
//
// `use` on a group (needed to create a ResizeRequest for it: the admission policy and the REST API
// check it) is deliberately not part of `requester`: it is granted per group (useOneGroupRule), or on
// every group of a namespace through `admin`, whose holders may then grant it to others (RBAC lets a
// user grant only permissions they hold).
import { FUTURE_RESERVATION, GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST, USE_VERB } from "../api/names.js";
import { permission, ruleOf, type Permission, type PolicyRule } from "./permissions.js";

/** Kubernetes' user-facing ClusterRoles that aggregate rules by label. */
export type AggregateTarget = "view" | "edit" | "admin";

export interface UserRole {
  /** The ClusterRole is named `<release fullname>-<suffix>` (`resize-operator-viewer` for release resize-operator). */
  readonly suffix: string;
  /** The built-in roles it is aggregated into (labels rbac.authorization.k8s.io/aggregate-to-<target>). */
  readonly aggregateTo: readonly AggregateTarget[];
  readonly description: string;
  readonly permissions: readonly Permission[];
}

const READ = ["get", "list", "watch"];

export const USER_ROLES: readonly UserRole[] = [
  {
    suffix: "viewer",
    aggregateTo: ["view", "edit", "admin"],
    description:
      "Read InstanceGroupManagers and ResizeRequests: kubectl get/describe/events, the dashboard, REST get and list",
    permissions: [
      permission({
        apiGroups: [GROUP],
        resources: [
          INSTANCE_GROUP_MANAGER.plural,
          `${INSTANCE_GROUP_MANAGER.plural}/status`,
          RESIZE_REQUEST.plural,
          `${RESIZE_REQUEST.plural}/status`,
          FUTURE_RESERVATION.plural,
          `${FUTURE_RESERVATION.plural}/status`,
        ],
        verbs: READ,
        why: "viewers: groups, requests and future reservations with their status (kubectl get, dashboard, REST get/list and operations)",
      }),
    ],
  },
  {
    suffix: "requester",
    aggregateTo: ["edit", "admin"],
    description:
      "Create, cancel and delete ResizeRequests (also needs verb use on the group: bind a Role as in docs/install.md)",
    permissions: [
      permission({
        apiGroups: [GROUP],
        resources: [RESIZE_REQUEST.plural],
        verbs: [...READ, "create", "update", "patch", "delete"],
        why: "requesters: REST insert (create), cancel (update; kubectl patch of spec.cancel), delete",
      }),
      permission({
        apiGroups: [GROUP],
        resources: [INSTANCE_GROUP_MANAGER.plural],
        verbs: READ,
        why: "requesters: the groups they request for, and their queues",
      }),
    ],
  },
  {
    suffix: "admin",
    aggregateTo: ["admin"],
    description:
      "Manage InstanceGroupManagers, request for every group of the namespace (verb use), and book them (FutureReservations)",
    permissions: [
      permission({
        apiGroups: [GROUP],
        resources: [INSTANCE_GROUP_MANAGER.plural],
        verbs: [...READ, "create", "update", "patch", "delete", USE_VERB],
        why: `group admins: create and change groups; ${USE_VERB} on every group, which also lets them grant ${USE_VERB} on one group to others`,
      }),
      // Only admins book: a booking asks for no `use` on its group yet (docs/booking.md), and an admin
      // has `use` on every group of the namespace anyway.
      permission({
        apiGroups: [GROUP],
        resources: [FUTURE_RESERVATION.plural],
        verbs: ["create", "update", "patch", "delete"],
        why: "group admins: book any group of the namespace (REST futureReservations insert, cancel, delete; kubectl)",
      }),
    ],
  },
];

/** The rule that lets a subject create ResizeRequests for exactly one group (a Role in its namespace). */
export function useOneGroupRule(group: string): PolicyRule {
  return ruleOf(
    permission({
      apiGroups: [GROUP],
      resources: [INSTANCE_GROUP_MANAGER.plural],
      resourceNames: [group],
      verbs: [USE_VERB],
      why: `create ResizeRequests for group ${group}`,
    }),
  );
}
