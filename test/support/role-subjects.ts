// The people and clients of the authorization tests, one per documented role (docs/install.md section
// 5): each is a ServiceAccount (a bearer token for REST and a kubeconfig for `kubectl resize`) and a
// dashboard user (`dashboard:<email>` in a users file), both bound to the same role in ONE namespace.
// The user roles are the chart's own ClusterRoles (src/rbac/user-roles.ts rendered by `helm template`,
// aggregated into view/edit/admin), installed under a name of this run and removed afterwards.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../../src/api/names.js";
import { useOneGroupRule } from "../../src/rbac/user-roles.js";
import { writeUsersFile, type TestUser } from "../integration/dashboard/support.js";
import { CHART, helm, kubectl, tokenKubeconfig } from "../integration/packaging/helm.js";
import { CanI, type Identity } from "./can-i.js";
import { eventually, kubeConfig } from "./kube.js";
import { serviceAccountToken, tokenFor } from "./rest.js";

const kc = kubeConfig();
const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
const RBAC_API = "rbac.authorization.k8s.io";

/** One role a subject holds in the bound namespace (and nothing anywhere else). */
export interface RoleSpec {
  readonly name: string;
  /** A user role of the chart, by its suffix (`viewer`, `requester`, `admin`). */
  readonly userRole?: string;
  /** One of Kubernetes' built-in roles the user roles are aggregated into. */
  readonly builtIn?: "view" | "edit" | "admin";
  /** Plus verb `use` on the groups named, by a Role as docs/install.md section 4 writes it. */
  readonly useGroups?: boolean;
}

/** Every documented way to hold a role, and none. */
export const ROLES: readonly RoleSpec[] = [
  { name: "none" },
  { name: "viewer", userRole: "viewer" },
  { name: "requester", userRole: "requester" },
  { name: "requester-use", userRole: "requester", useGroups: true },
  { name: "group-admin", userRole: "admin" },
  { name: "view", builtIn: "view" },
  { name: "edit", builtIn: "edit" },
  { name: "admin", builtIn: "admin" },
];

export interface RoleSubject {
  readonly role: string;
  /** The ServiceAccount's user: REST bearer token (for the operator's audience) and the plugin's kubeconfig (the API server's). */
  readonly serviceAccount: Identity;
  readonly token: string;
  readonly kubeconfig: string;
  readonly login: TestUser;
  /** The dashboard's identity for the user (username and groups with their prefix). */
  readonly dashboard: Identity;
}

export interface RoleSubjects {
  readonly subjects: readonly RoleSubject[];
  /** A token of an admin of both namespaces, for the fixtures. */
  readonly fixturesToken: string;
  readonly usersFile: string;
  remove(): Promise<void>;
}

export interface SubjectOptions {
  /** The namespace every role is bound in. */
  readonly bound: string;
  /** A namespace where nobody holds anything (but the fixtures' admin). */
  readonly other: string;
  /** The groups `requester-use` may use. */
  readonly useGroups: readonly string[];
  /** Where the kubeconfigs, the rendered roles and the users file go (mode 0600). */
  readonly dir: string;
}

const DASHBOARD_GROUP = "matrix";

/** Renders the chart's user roles as `<prefix>-<suffix>`, applies them, and returns the file. */
async function installUserRoles(prefix: string, dir: string): Promise<{ file: string; names: Set<string> }> {
  const rendered = await helm(
    ...["template", "matrix", CHART, "--show-only", "templates/user-roles.yaml"],
    ...["--set", `fullnameOverride=${prefix}`],
  );
  const file = path.join(dir, "user-roles.yaml");
  writeFileSync(file, rendered);
  await kubectl("apply", "-f", file);
  const names = parseAllDocuments(rendered).map(
    (d) => (d.toJS() as { metadata?: { name?: string } } | null)?.metadata?.name ?? "",
  );
  return { file, names: new Set(names) };
}

async function bind(
  namespace: string,
  name: string,
  roleRef: { kind: "Role" | "ClusterRole"; name: string },
  subjects: readonly k8s.RbacV1Subject[],
): Promise<void> {
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: { metadata: { name }, roleRef: { apiGroup: RBAC_API, ...roleRef }, subjects: [...subjects] },
  });
}

/** Creates every subject of ROLES, bound in `options.bound`, and waits until RBAC says so. */
export async function setUpRoleSubjects(options: SubjectOptions): Promise<RoleSubjects> {
  const { bound, other, dir } = options;
  const roles = await installUserRoles(`matrix-${bound.slice(-5)}`, dir);
  const userRole = (suffix: string): string => {
    const name = [...roles.names].find((n) => n.endsWith(`-${suffix}`));
    if (!name) throw new Error(`the chart rendered no user role ${suffix}`);
    return name;
  };
  await rbac.createNamespacedRole({
    namespace: bound,
    body: {
      metadata: { name: "matrix-use-groups" },
      rules: options.useGroups.map((g) => useOneGroupRule(g) as k8s.V1PolicyRule),
    },
  });
  const subjects = await Promise.all(
    ROLES.map(async (spec): Promise<RoleSubject> => {
      const sa = `matrix-${spec.name}`;
      const token = await serviceAccountToken(bound, sa, []);
      const login = {
        username: spec.name,
        password: randomBytes(12).toString("base64url"),
        email: `${spec.name}@matrix.example.com`,
        groups: [DASHBOARD_GROUP],
      };
      const who: k8s.RbacV1Subject[] = [
        { kind: "ServiceAccount", name: sa, namespace: bound },
        { kind: "User", apiGroup: RBAC_API, name: `dashboard:${login.email}` },
      ];
      const clusterRole = spec.builtIn ?? (spec.userRole && userRole(spec.userRole));
      if (clusterRole) await bind(bound, sa, { kind: "ClusterRole", name: clusterRole }, who);
      if (spec.useGroups) await bind(bound, `${sa}-use`, { kind: "Role", name: "matrix-use-groups" }, who);
      return {
        role: spec.name,
        serviceAccount: { user: `system:serviceaccount:${bound}:${sa}`, groups: [] },
        token,
        kubeconfig: tokenKubeconfig(path.join(dir, `kubeconfig-${spec.name}`), await tokenFor(bound, sa)),
        login,
        dashboard: { user: `dashboard:${login.email}`, groups: [`dashboard:${DASHBOARD_GROUP}`] },
      };
    }),
  );
  // The fixtures' admin: everything in both namespaces, through RoleBindings only.
  const fixturesToken = await serviceAccountToken(bound, "matrix-fixtures", []);
  for (const namespace of [bound, other])
    await bind(namespace, "matrix-fixtures", { kind: "ClusterRole", name: "cluster-admin" }, [
      { kind: "ServiceAccount", name: "matrix-fixtures", namespace: bound },
    ]);
  await untilAggregated(subjects, bound);
  return {
    subjects,
    fixturesToken,
    usersFile: await writeUsersFile(dir, [...subjects.map((s) => s.login)]),
    remove: async () => {
      await kubectl("delete", "-f", roles.file, "--ignore-not-found");
    },
  };
}

/** The built-in roles take the user roles in through the aggregation controller: wait for it. */
async function untilAggregated(subjects: readonly RoleSubject[], namespace: string): Promise<void> {
  const checks = [
    { role: "view", verb: "list", resource: RESIZE_REQUEST.plural },
    { role: "admin", verb: "use", resource: INSTANCE_GROUP_MANAGER.plural },
  ];
  for (const { role, verb, resource } of checks) {
    const subject = subjects.find((s) => s.role === role);
    if (!subject) throw new Error(`no subject holds ${role}`);
    // A new oracle each round: its answers are kept, and this one changes once the controller has run.
    await eventually(`${role} aggregating the user roles`, async () =>
      (await new CanI().ask(subject.serviceAccount, { verb, resource, group: GROUP }, namespace))
        ? true
        : undefined,
    );
  }
}
