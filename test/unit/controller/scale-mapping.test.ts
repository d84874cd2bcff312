// The /scale fields of a kind (src/targets/scale-mapping.ts), as a table: the kinds the operator knows,
// a CRD's declaration, the selector string the API server writes into a Scale, and the Scale built from
// an object, which must equal what a GET of /scale answers for it.
import {
  countAt,
  crdScalePaths,
  knownScalePaths,
  labelSelectorString,
  scaleOfObject,
} from "../../../src/targets/scale-mapping.js";

test.each([
  ["apps/v1", "Deployment", "status.replicas", "spec.selector"],
  ["apps/v1", "StatefulSet", "status.replicas", "spec.selector"],
  ["apps/v1", "ReplicaSet", "status.replicas", "spec.selector"],
  ["cluster.x-k8s.io/v1beta1", "MachineDeployment", "status.replicas", undefined],
  ["cluster.x-k8s.io/v1beta2", "MachineSet", "status.replicas", undefined],
  ["cluster.x-k8s.io/v1beta1", "MachinePool", "status.replicas", undefined],
  ["karpenter.sh/v1", "NodePool", "status.nodes", undefined],
])("%s %s: spec.replicas and %s", (apiVersion, kind, statusReplicas, labelSelector) => {
  const paths = knownScalePaths(apiVersion, kind);
  expect(paths).toMatchObject({ specReplicas: "spec.replicas", statusReplicas });
  expect(paths?.labelSelector).toBe(labelSelector);
});

test.each([
  ["apps/v1", "DaemonSet"],
  ["v1", "ReplicationController"],
  ["test.example.com/v1", "Widget"],
  ["example.com/v1", "Deployment"],
])("%s %s is not in the table (its CRD, or a GET, tells)", (apiVersion, kind) => {
  expect(knownScalePaths(apiVersion, kind)).toBeUndefined();
});

const crd = (versions: readonly object[]) => ({ spec: { versions } });
const scale = (s: object) => ({ name: "v1", subresources: { scale: s } });

test.each([
  [
    "the version's scale paths, trimmed of the leading dot",
    crd([scale({ specReplicasPath: ".spec.size", statusReplicasPath: ".status.count" })]),
    { specReplicas: "spec.size", statusReplicas: "status.count" },
  ],
  [
    "with its label selector path",
    crd([
      scale({
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.replicas",
        labelSelectorPath: ".status.selector",
      }),
    ]),
    { specReplicas: "spec.replicas", statusReplicas: "status.replicas", selector: "status.selector" },
  ],
  [
    "another version only",
    crd([{ ...scale({ specReplicasPath: ".spec.r", statusReplicasPath: ".status.r" }), name: "v2" }]),
    undefined,
  ],
  ["no scale subresource", crd([{ name: "v1", subresources: { status: {} } }]), undefined],
  [
    "a JSONPath beyond dotted fields",
    crd([scale({ specReplicasPath: ".spec.items[0].n", statusReplicasPath: ".status.n" })]),
    undefined,
  ],
  [
    "a selector path beyond dotted fields",
    crd([scale({ specReplicasPath: ".spec.n", statusReplicasPath: ".status.n", labelSelectorPath: "{.x}" })]),
    undefined,
  ],
  ["not a CRD", { kind: "ConfigMap" }, undefined],
])("a CRD's /scale fields: %s", (_, object, expected) => {
  expect(crdScalePaths(object, "v1")).toEqual(expected);
});

test.each([
  [{ matchLabels: { app: "web" } }, "app=web"],
  [{ matchLabels: { b: "2", a: "1" } }, "a=1,b=2"],
  [
    {
      matchLabels: { tier: "gpu" },
      matchExpressions: [
        { key: "zone", operator: "In", values: ["b", "a"] },
        { key: "arch", operator: "NotIn", values: ["arm"] },
        { key: "spot", operator: "Exists" },
        { key: "old", operator: "DoesNotExist" },
      ],
    },
    "arch notin (arm),!old,spot,tier=gpu,zone in (a,b)",
  ],
  [{}, ""],
  [{ matchExpressions: [{ key: "x", operator: "Gt", values: ["1"] }] }, undefined],
  [undefined, undefined],
])("label selector %j is written %j", (selector, expected) => {
  expect(labelSelectorString(selector)).toBe(expected);
});

test("counts at dotted paths: anything but a finite number is 0", () => {
  const o = { status: { a: 3, b: "3", c: Number.NaN }, spec: null };
  expect([
    countAt(o, "status.a"),
    countAt(o, "status.b"),
    countAt(o, "status.c"),
    countAt(o, "spec.x"),
  ]).toEqual([3, 0, 0, 0]);
});

test("the Scale of a cached Deployment is the one its /scale serves", () => {
  const deployment = {
    metadata: { name: "web", namespace: "team-a", resourceVersion: "42", uid: "u1" },
    spec: { replicas: 3, selector: { matchLabels: { app: "web" } } },
    status: { replicas: 4, readyReplicas: 2 },
  };
  const paths = knownScalePaths("apps/v1", "Deployment");
  if (!paths) throw new Error("no paths");
  expect(scaleOfObject(deployment, paths)).toEqual({
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: { name: "web", namespace: "team-a", resourceVersion: "42" },
    spec: { replicas: 3 },
    status: { replicas: 4, selector: "app=web" },
  });
});

test("the Scale of a NodePool counts its NodeClaims and has no selector; a missing count is 0", () => {
  const paths = knownScalePaths("karpenter.sh/v1", "NodePool");
  if (!paths) throw new Error("no paths");
  expect(scaleOfObject({ metadata: { name: "gpu", resourceVersion: "7" }, spec: {} }, paths)).toEqual({
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: { name: "gpu", resourceVersion: "7" },
    spec: { replicas: 0 },
    status: { replicas: 0 },
  });
});
