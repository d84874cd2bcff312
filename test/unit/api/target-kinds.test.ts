// How a target is named in RBAC terms (api/target-kinds.ts): the resource Kubernetes guesses from a kind
// (apimachinery's meta.UnsafeGuessKindToResource, which the admission policy spells in CEL), its API
// group, and how messages name it. The CEL copy is held to the same answers against the real API server
// in test/integration/api/target-admission.test.ts.
import {
  DEFAULT_CLUSTER_SCOPED_TARGETS,
  GROUP_KIND_PATTERN,
  apiGroupOf,
  groupKindOf,
  guessResource,
  qualifiedResource,
  targetLabel,
} from "../../../src/api/target-kinds.js";

test.each([
  ["Deployment", "deployments"],
  ["StatefulSet", "statefulsets"],
  ["ReplicaSet", "replicasets"],
  ["MachineDeployment", "machinedeployments"],
  ["NodePool", "nodepools"],
  // ends in "s": +es
  ["Ingress", "ingresses"],
  ["Class", "classes"],
  ["Status", "statuses"],
  // ends in "y": y → ies
  ["NetworkPolicy", "networkpolicies"],
  ["Gateway", "gatewaies"],
  // ends in "endpoints": unchanged
  ["Endpoints", "endpoints"],
  ["ServiceEndpoints", "serviceendpoints"],
  // irregular plurals are guessed wrong on purpose: Kubernetes does the same
  ["Person", "persons"],
  ["Octopus", "octopuses"],
  // only ASCII letters are lowered, as CEL's lowerAscii does
  ["ÉCOLE", "Écoles"],
])("guessResource(%s) is %s", (kind, resource) => {
  expect(guessResource(kind)).toBe(resource);
});

test.each([
  ["apps/v1", "apps"],
  ["karpenter.sh/v1", "karpenter.sh"],
  ["cluster.x-k8s.io/v1beta1", "cluster.x-k8s.io"],
  ["v1", ""],
])("apiGroupOf(%s) is %j", (apiVersion, group) => {
  expect(apiGroupOf(apiVersion)).toBe(group);
});

test("Kind.group and resource.group, the core group without a dot", () => {
  expect(groupKindOf("karpenter.sh/v1", "NodePool")).toBe("NodePool.karpenter.sh");
  expect(groupKindOf("v1", "ReplicationController")).toBe("ReplicationController");
  expect(qualifiedResource("nodepools", "karpenter.sh")).toBe("nodepools.karpenter.sh");
  expect(qualifiedResource("replicationcontrollers", "")).toBe("replicationcontrollers");
});

test("a cluster-scoped target is named without a namespace", () => {
  expect(targetLabel("NodePool", "static-gpu", undefined)).toBe("NodePool static-gpu");
  expect(targetLabel("StatefulSet", "web", "team-a")).toBe("StatefulSet team-a/web");
});

test.each([
  ["NodePool.karpenter.sh", true],
  ["ReplicationController", true],
  ["Gadget.test.resize-operator.dev", true],
  ["karpenter.sh/NodePool", false],
  ["NodePool.Karpenter.sh", false],
  [".karpenter.sh", false],
  ["NodePool.", false],
])("GROUP_KIND_PATTERN on %s: %s", (text, ok) => {
  expect(GROUP_KIND_PATTERN.test(text)).toBe(ok);
});

test("the default cluster-scoped targets are Karpenter's NodePool, in the Kind.group form", () => {
  expect(DEFAULT_CLUSTER_SCOPED_TARGETS).toEqual(["NodePool.karpenter.sh"]);
  for (const kind of DEFAULT_CLUSTER_SCOPED_TARGETS) expect(kind).toMatch(GROUP_KIND_PATTERN);
});
