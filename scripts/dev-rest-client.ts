// `npm run dev`'s ready-to-paste REST example: a ServiceAccount bound to the requester ClusterRole and
// to `use` on the sample group (the same rules the chart and docs/install.md grant), and the text that
// shows how to call the API with a fresh token, with curl and with Google's official Node.js client.
import { stringify } from "yaml";
import { useOneGroupRule } from "../src/rbac/user-roles.js";

export interface RestClientTarget {
  readonly namespace: string;
  readonly zone: string;
  readonly group: string;
  /** The ServiceAccount's name. */
  readonly account: string;
  /** The requester ClusterRole (manifests/install/user-roles.yaml). */
  readonly requesterRole: string;
}

/** The ServiceAccount, its RoleBindings and the use-one-group Role, as YAML for `kubectl apply`. */
export function restClientManifest(t: RestClientTarget): string {
  const subject = { kind: "ServiceAccount", name: t.account, namespace: t.namespace };
  const useRole = `${t.account}-use-${t.group}`;
  const objects = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: t.account, namespace: t.namespace } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: `${t.account}-requester`, namespace: t.namespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: t.requesterRole },
      subjects: [subject],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: useRole, namespace: t.namespace },
      rules: [useOneGroupRule(t.group)],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: useRole, namespace: t.namespace },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: useRole },
      subjects: [subject],
    },
  ];
  return objects.map((o) => stringify(o)).join("---\n");
}

/** What to paste: the token, a curl list and insert, and the official Node.js client. */
export function restExample(t: RestClientTarget, baseUrl: string, token: string): string {
  const requests = `${baseUrl}/compute/v1/projects/${t.namespace}/zones/${t.zone}/instanceGroupManagers/${t.group}/resizeRequests`;
  return [
    `REST API as ServiceAccount ${t.namespace}/${t.account} (requester, and use on ${t.group} only); token valid 8h:`,
    "",
    `  export TOKEN='${token}'`,
    `  curl -sS -H "Authorization: Bearer $TOKEN" ${requests}`,
    `  curl -sS -X POST -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\`,
    `    -d '{"name":"from-curl","resizeBy":1}' ${requests}`,
    "",
    "Node.js, with Google's official client (npm install @googleapis/compute; run as an ES module):",
    "",
    '  import { auth, compute } from "@googleapis/compute";',
    "  const oauth = new auth.OAuth2();",
    "  oauth.setCredentials({ access_token: process.env.TOKEN });",
    `  const client = compute({ version: "v1", rootUrl: "${baseUrl}/", auth: oauth });`,
    "  const { data } = await client.instanceGroupManagerResizeRequests.list({",
    `    project: "${t.namespace}", zone: "${t.zone}", instanceGroupManager: "${t.group}",`,
    "  });",
    "  console.log(data.items?.map((r) => `${r.name} ${r.state}`));",
    "",
  ].join("\n");
}
