// Who may point a group at a target, with the real API server, its RBAC and the real kubectl: creating an
// InstanceGroupManager, or changing its spec.targetRef, requires that the requesting user may update the
// target's /scale, in the group's namespace and, for a kind listed as a cluster-scoped target,
// cluster-wide. `kubectl auth can-i` agrees with the policy in every case, a user who may scale the target
// gets a working group (a request on it SUCCEEDED), and the policy's guess of the resource from the kind
// is the operator's (api/target-kinds.ts). The policy is the chart's, rendered with a cluster-scoped kind
// of the test's own listed, and the operator gets the same list.
import { guessResource } from "../../../src/api/target-kinds.js";
import { eventually } from "../../support/kube.js";
import { getGroup, untilState } from "../../support/resize.js";
import { helm } from "../packaging/helm.js";
import { installApi, kubectl } from "./install.js";
import * as T from "./scale-targets.js";

const CLUSTER_SCOPED = ["NodePool.karpenter.sh", `${T.GADGET.kind}.${T.TEST_GROUP}`];
let suite: T.TargetSuite | undefined;
let ns: T.TargetSuite["ns"];

/** A patch of each widening field (api/group-widening.ts), with nothing else widened. */
const WIDENING_PATCHES: [string, object][] = [
  ["maxSize", { maxSize: 20 }],
  ["minSize", { minSize: 1 }],
  ["provisioningRequests", { provisioningRequests: { namespaces: "All" } }],
  ["readyReplicasField", { readyReplicasField: "status.replicas" }],
  ["instanceShape", { instanceShape: { allocatable: { cpu: "4" } } }],
];

/** apiVersions that resolve, in a URL, to another group than the one before their first `/`. */
const HOSTILE_API_VERSIONS = [
  `apps/../${T.TEST_GROUP}/v1`,
  `apps/%2e%2e/${T.TEST_GROUP}/v1`,
  `apps/..%2f${T.TEST_GROUP}/v1`,
  `apps\\..\\${T.TEST_GROUP}/v1`,
  "apps/../../api/v1/pods?",
  `${T.TEST_GROUP}/v1#`,
  `${T.TEST_GROUP}/v1?watch=true`,
  `${T.TEST_GROUP}//v1`,
  ` ${T.TEST_GROUP}/v1`,
  `${T.TEST_GROUP}/v1/`,
  `ａpps/v1`,
];
/** Cluster-scoped names of this run: the gadget, the ClusterRole and its binding. */
let gadget: string;

const rbac = "rbac.authorization.k8s.io";
const role = (name: string, rules: object[]) => ({
  apiVersion: `${rbac}/v1`,
  kind: "Role",
  metadata: { name, namespace: ns.name },
  rules,
});
const binding = (
  kind: "RoleBinding" | "ClusterRoleBinding",
  name: string,
  roleKind: string,
  users: string[],
) => ({
  apiVersion: `${rbac}/v1`,
  kind,
  metadata: { name, ...(kind === "RoleBinding" && { namespace: ns.name }) },
  roleRef: { apiGroup: rbac, kind: roleKind, name },
  subjects: users.map((u) => ({ apiGroup: rbac, kind: "User", name: u })),
});
const scaleRule = (plural: string, names?: string[]) => ({
  apiGroups: [T.TEST_GROUP],
  resources: [`${plural}/scale`],
  verbs: ["update"],
  ...(names && { resourceNames: names }),
});

/** `kubectl auth can-i update RESOURCE/NAME --subresource=scale` as `user`: "yes" or "no". */
async function canScale(user: string, plural: string, name: string, where: string[]): Promise<string> {
  const { out } = await T.kubectlAs(
    user,
    "auth",
    "can-i",
    "update",
    `${plural}.${T.TEST_GROUP}/${name}`,
    "--subresource=scale",
    ...where,
  );
  return /\byes\b/.test(out) ? "yes" : /\bno\b/.test(out) ? "no" : out;
}

let attempt = 0;
/**
 * `kubectl create` of a group as `user`, until the policy denies it: a policy just applied takes a
 * moment to reach the admission plugin, and a group created meanwhile is deleted again.
 */
async function denied(user: string, target: { kind: string; name: string }): Promise<string> {
  return eventually(`the policy to deny ${user} a group over ${target.kind} ${target.name}`, async () => {
    const name = `${user}-${++attempt}`;
    const result = await T.kubectlAs(
      user,
      "create",
      "-f",
      T.yamlFile(name, [T.groupOver(name, ns.name, target)]),
    );
    if (!result.ok) return result.out;
    await kubectl("delete", "igm", name, "-n", ns.name);
    return undefined;
  });
}

beforeAll(async () => {
  suite = await T.openTargetSuite("target-admission", [T.WIDGET, T.GADGET]);
  ns = suite.ns;
  gadget = `${ns.name}-g1`;
  suite.clusterObjects.push(
    `${T.GADGET.plural}.${T.TEST_GROUP}/${gadget}`,
    `clusterrole/${gadget}`,
    `clusterrolebinding/${gadget}`,
    `clusterrole/${gadget}-nodes`,
    `clusterrolebinding/${gadget}-nodes`,
  );
  const rendered = await helm(
    "template",
    "resize-operator",
    "charts/resize-operator",
    "--show-only",
    "templates/admission-policy.yaml",
    "--set",
    `clusterScopedTargets={${CLUSTER_SCOPED.join(",")}}`,
  );
  await kubectl("apply", "--server-side", "-f", T.textFile("policies", rendered));
  await T.apply("objects", [
    T.scalable(T.WIDGET, "w1", ns.name, 1),
    T.scalable(T.WIDGET, "w2", ns.name, 1),
    T.scalable(T.GADGET, gadget, undefined, 1),
    // Every user may write groups and requests in the namespace, and `use` its groups.
    role("group-author", [
      {
        apiGroups: ["compute.resize-operator.dev"],
        resources: ["instancegroupmanagers"],
        verbs: ["create", "get", "list", "update", "patch", "use"],
      },
      { apiGroups: ["compute.resize-operator.dev"], resources: ["resizerequests"], verbs: ["create", "get"] },
    ]),
    binding("RoleBinding", "group-author", "Role", ["alice", "bob", "carol", "dave", "erin", "mallory"]),
    // bob and erin may scale the widget w1 only; erin may also list Nodes.
    role("scale-w1", [scaleRule(T.WIDGET.plural, ["w1"])]),
    binding("RoleBinding", "scale-w1", "Role", ["bob", "erin"]),
    {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRole",
      metadata: { name: `${gadget}-nodes` },
      rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["list"] }],
    },
    binding("ClusterRoleBinding", `${gadget}-nodes`, "ClusterRole", ["erin"]),
    // mallory may do anything with the apps group's workloads in the namespace, and nothing else.
    role("apps-all", [{ apiGroups: ["apps"], resources: ["*"], verbs: ["*"] }]),
    binding("RoleBinding", "apps-all", "Role", ["mallory"]),
    // carol may scale gadgets, but only through a RoleBinding in this namespace.
    role("scale-gadgets", [scaleRule(T.GADGET.plural)]),
    binding("RoleBinding", "scale-gadgets", "Role", ["carol"]),
    // dave may scale gadgets cluster-wide.
    {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRole",
      metadata: { name: gadget },
      rules: [scaleRule(T.GADGET.plural)],
    },
    binding("ClusterRoleBinding", gadget, "ClusterRole", ["dave"]),
  ]);
  T.startSuiteOperator(suite, [`--cluster-scoped-targets=${CLUSTER_SCOPED.join(",")}`]);
}, 120_000);

afterAll(async () => {
  await T.closeTargetSuite(suite);
  // The policies as every other file installs them (the default cluster-scoped targets).
  await installApi();
});

/** `kubectl patch igm GROUP --type=merge -p PATCH` as `user`. */
const patchGroup = (user: string, group: string, patch: object) =>
  T.kubectlAs(user, "patch", "igm", group, "-n", ns.name, "--type=merge", "-p", JSON.stringify(patch));

describe("a namespaced target", () => {
  test("a user who may not scale it cannot point a group at it, and can-i says no", async () => {
    const message = await denied("alice", { kind: T.WIDGET.kind, name: "w1" });
    expect(message).toContain(
      `creating an InstanceGroupManager over Widget w1 requires permission to scale it: alice lacks verb "update" on widgets.${T.TEST_GROUP}/scale "w1" in namespace ${ns.name}`,
    );
    expect(await canScale("alice", T.WIDGET.plural, "w1", ["-n", ns.name])).toBe("no");
  });

  test("a user who may scale it creates the group, and a request on it SUCCEEDED", async () => {
    expect(await canScale("bob", T.WIDGET.plural, "w1", ["-n", ns.name])).toBe("yes");
    const created = await T.kubectlAs(
      "bob",
      "create",
      "-f",
      T.yamlFile("bob", [T.groupOver("bob", ns.name, { kind: T.WIDGET.kind, name: "w1" })]),
    );
    expect(created).toMatchObject({ ok: true });
    const request = await T.kubectlAs(
      "bob",
      "create",
      "-f",
      T.yamlFile("bob-rr", [T.requestFor("bob-two", ns.name, "bob", 2)]),
    );
    expect(request).toMatchObject({ ok: true });
    expect((await untilState(ns.name, "bob-two", ["SUCCEEDED", "FAILED"])).status?.state).toBe("SUCCEEDED");
    expect(await T.replicasOf(T.WIDGET, "w1", ns.name)).toBe(3);
  });

  test("changing spec.targetRef is checked again", async () => {
    expect(await canScale("bob", T.WIDGET.plural, "w2", ["-n", ns.name])).toBe("no");
    const retarget = await patchGroup("bob", "bob", { spec: { targetRef: { name: "w2" } } });
    expect(retarget.ok).toBe(false);
    expect(retarget.out).toContain(
      `pointing InstanceGroupManager bob at Widget w2 requires permission to scale it: bob lacks verb "update" on widgets.${T.TEST_GROUP}/scale "w2" in namespace ${ns.name}`,
    );
  });

  // Every field that lets the group take more from its target needs the target's scale right; one that
  // widens nothing does not. alice may write groups in the namespace but not scale w1.
  test.each(WIDENING_PATCHES)(
    "changing spec.%s needs permission to scale the target",
    async (field, spec) => {
      const refused = await patchGroup("alice", "bob", { spec });
      expect(refused.ok).toBe(false);
      expect(refused.out).toContain(`changing spec.${field}`);
      expect(refused.out).toContain(
        `of InstanceGroupManager bob over Widget w1 requires permission to scale it: alice lacks verb "update" on widgets.${T.TEST_GROUP}/scale "w1" in namespace ${ns.name}`,
      );
      // bob, who may scale w1, may make the same change.
      const allowed = await patchGroup("bob", "bob", { spec });
      expect(allowed.out).not.toContain("requires permission to scale");
    },
  );

  test("changes that widen nothing are not checked", async () => {
    const timeout = await patchGroup("alice", "bob", {
      spec: { provisioningTimeout: "7m", maxQueueDuration: "1h" },
    });
    expect(timeout).toMatchObject({ ok: true });
    expect((await getGroup(ns.name, "bob")).spec.provisioningTimeout).toBe("7m");
  });

  test("a node selector needs permission to list Nodes, besides the target's scale", async () => {
    const selector = {
      readyReplicasField: null,
      readiness: { nodeSelector: { "kubernetes.io/hostname": "kwok-node-0" } },
    };
    const refused = await patchGroup("bob", "bob", { spec: selector });
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain(
      'setting spec.readiness.nodeSelector of InstanceGroupManager bob requires permission to list Nodes (the group counts and reports the Nodes it selects): bob lacks verb "list" on nodes at the cluster scope',
    );
    // erin may scale w1 and list Nodes.
    expect(await patchGroup("erin", "bob", { spec: selector })).toMatchObject({ ok: true });
  });

  // Finding: an apiVersion such as `apps/../GROUP/v1` was authorized as `apps` and called as GROUP.
  test("an apiVersion that is not GROUP/VERSION is refused, whatever the author may scale", async () => {
    for (const apiVersion of HOSTILE_API_VERSIONS) {
      const group = T.groupOver("mallory", ns.name, { kind: T.WIDGET.kind, name: "w1" });
      group.spec.targetRef.apiVersion = apiVersion;
      const created = await T.kubectlAs("mallory", "create", "-f", T.yamlFile("mallory", [group]));
      expect({ apiVersion, ok: created.ok }).toEqual({ apiVersion, ok: false });
      expect(created.out).toContain("spec.targetRef.apiVersion");
    }
    expect(await T.replicasOf(T.WIDGET, "w1", ns.name)).toBe(3);
  });
});

describe("a cluster-scoped target of a listed kind", () => {
  test("a user who may scale it in the namespace only cannot point a group at it; can-i agrees", async () => {
    const message = await denied("carol", { kind: T.GADGET.kind, name: gadget });
    expect(message).toContain(
      `creating an InstanceGroupManager over Gadget ${gadget} requires permission to scale it cluster-wide (Gadget.${T.TEST_GROUP} is listed as a cluster-scoped target kind): carol lacks verb "update" on gadgets.${T.TEST_GROUP}/scale "${gadget}" at the cluster scope`,
    );
    // The namespaced check (a RoleBinding) passes, the cluster-wide one does not.
    expect(await canScale("carol", T.GADGET.plural, gadget, ["-n", ns.name])).toBe("yes");
    expect(await canScale("carol", T.GADGET.plural, gadget, ["--all-namespaces"])).toBe("no");
  });

  test("a user who may scale it cluster-wide creates the group; the operator scales it without a namespace", async () => {
    expect(await canScale("dave", T.GADGET.plural, gadget, ["--all-namespaces"])).toBe("yes");
    const target = { kind: T.GADGET.kind, name: gadget };
    expect(
      await T.kubectlAs("dave", "create", "-f", T.yamlFile("dave", [T.groupOver("dave", ns.name, target)])),
    ).toMatchObject({ ok: true });
    expect(
      await T.kubectlAs(
        "dave",
        "create",
        "-f",
        T.yamlFile("dave-rr", [T.requestFor("dave-three", ns.name, "dave", 3)]),
      ),
    ).toMatchObject({ ok: true });
    expect((await untilState(ns.name, "dave-three", ["SUCCEEDED", "FAILED"])).status?.state).toBe(
      "SUCCEEDED",
    );
    expect(await T.replicasOf(T.GADGET, gadget)).toBe(4);
    // The group's status is written at most once a second: it follows the target shortly after.
    const group = await eventually("the group's status to show the new size", async () => {
      const g = await getGroup(ns.name, "dave");
      return g.status?.targetSize === 4 ? g : undefined;
    });
    expect(group.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({
      status: "True",
      message: `Gadget/${gadget} can be scaled through /scale.`,
    });
    // As it is: its name and kind, no namespace (no region, no maxSize: empty columns).
    const wide = await kubectl("get", "igm", "dave", "-n", ns.name, "-o", "wide", "--no-headers");
    expect(wide).toMatch(new RegExp(`^dave\\s+local-a\\s+${gadget}\\s+4\\s+4\\s+0\\s+Gadget\\s`));
  });
});

test("the policy guesses a kind's resource as the operator does", async () => {
  for (const kind of ["Class", "Policy", "Endpoints", "Person", "Box"]) {
    const message = await denied("alice", { kind, name: "x" });
    expect(message).toContain(
      `alice lacks verb "update" on ${guessResource(kind)}.${T.TEST_GROUP}/scale "x"`,
    );
  }
});
