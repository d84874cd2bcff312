// Which group serves a request: the named one (if its owner allows the namespace), else the first
// allowed group whose instances every pod set fits; and the request's size in its instances.
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import {
  allows,
  needsNamespaceLabels,
  place,
  selects,
  type PlacementInput,
} from "../../../src/controllers/provisioning/placement.js";
import { gpuPod, group, POLICY_DEFAULTS } from "./fixtures.js";

const input = (o: Partial<PlacementInput> = {}): PlacementInput => ({
  namespace: "team-a",
  namespaceLabels: undefined,
  parameters: {},
  podSets: [{ name: "main", count: 4, spec: gpuPod(8) }],
  groups: [group()],
  ...o,
});
const cpuGroup = (name: string, namespace = "team-a"): InstanceGroupManager =>
  group(name, namespace, {
    instanceShape: { allocatable: { cpu: "16", memory: "64Gi" }, labels: { pool: "cpu" } },
  });
const shared = (namespaces: "None" | "Same" | "All" | "Selector", selector?: object): InstanceGroupManager =>
  group("shared", "infra", {
    provisioningRequests: {
      namespaces,
      ...POLICY_DEFAULTS,
      ...(selector && { namespaceSelector: selector }),
    },
  });

test.each<[string, object, Record<string, string>, boolean]>([
  ["matchLabels", { matchLabels: { team: "a" } }, { team: "a" }, true],
  ["matchLabels, other value", { matchLabels: { team: "a" } }, { team: "b" }, false],
  [
    "In",
    { matchExpressions: [{ key: "tier", operator: "In", values: ["batch", "ml"] }] },
    { tier: "ml" },
    true,
  ],
  [
    "NotIn, absent key",
    { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["web"] }] },
    {},
    true,
  ],
  ["Exists", { matchExpressions: [{ key: "gpu", operator: "Exists" }] }, { gpu: "" }, true],
  ["DoesNotExist", { matchExpressions: [{ key: "gpu", operator: "DoesNotExist" }] }, { gpu: "yes" }, false],
  ["empty selects everything", {}, {}, true],
])("selects: %s", (_, selector, labels, expected) => {
  expect(selects(selector, labels)).toBe(expected);
});

test.each<[string, InstanceGroupManager, string, Record<string, string> | undefined, boolean]>([
  [
    "no policy (the default, None): not even its own namespace",
    group("g", "team-a", { provisioningRequests: undefined }),
    "team-a",
    undefined,
    false,
  ],
  ["Same: its own namespace", group("g", "team-a"), "team-a", undefined, true],
  ["Same: not another", group("g", "infra"), "team-a", undefined, false],
  ["None", shared("None"), "infra", undefined, false],
  ["All", shared("All"), "team-a", undefined, true],
  [
    "Selector, matching labels",
    shared("Selector", { matchLabels: { gpu: "yes" } }),
    "team-a",
    { gpu: "yes" },
    true,
  ],
  ["Selector, other labels", shared("Selector", { matchLabels: { gpu: "yes" } }), "team-a", {}, false],
])("allows: %s", (_, g, ns, labels, expected) => {
  expect(allows(g, ns, labels)).toBe(expected);
});

test("without a parameter: the first allowed group whose instances fit, own namespace first", () => {
  const got = place(input({ groups: [shared("All"), cpuGroup("cpu"), group("gpu")] }));
  expect(got).toMatchObject({
    ok: true,
    instances: 4,
    pods: 4,
    group: { metadata: { name: "gpu", namespace: "team-a" } },
  });
  const other = place(input({ groups: [cpuGroup("cpu"), shared("All")] }));
  expect(other).toMatchObject({ ok: true, group: { metadata: { name: "shared", namespace: "infra" } } });
});

test("the parameter names a group, in the request's namespace or another", () => {
  expect(place(input({ parameters: { group: { namespace: undefined, name: "gpu" } } }))).toMatchObject({
    ok: true,
  });
  expect(
    place(input({ groups: [shared("All")], parameters: { group: { namespace: "infra", name: "shared" } } })),
  ).toMatchObject({
    ok: true,
    group: { metadata: { namespace: "infra" } },
  });
});

test.each<[string, Partial<PlacementInput>, string, RegExp]>([
  [
    "a named group that does not exist",
    { parameters: { group: { namespace: undefined, name: "nope" } } },
    "GroupNotFound",
    /InstanceGroupManager team-a\/nope \(parameter instanceGroupManager\) does not exist/,
  ],
  [
    "a named group whose owner does not allow the namespace",
    { groups: [shared("Same")], parameters: { group: { namespace: "infra", name: "shared" } } },
    "NotAllowed",
    /InstanceGroupManager infra\/shared \(parameter instanceGroupManager\) does not exist or does not serve ProvisioningRequests of namespace team-a/,
  ],
  [
    "a named group without an instance shape",
    {
      groups: [group("g", "team-a", { instanceShape: undefined })],
      parameters: { group: { namespace: undefined, name: "g" } },
    },
    "NoInstanceShape",
    /team-a\/g declares no spec.instanceShape/,
  ],
  [
    "no group serves the namespace",
    { groups: [shared("Same")] },
    "NoQueuedNodepoolAvailable",
    /No InstanceGroupManager with a spec.instanceShape serves ProvisioningRequests of namespace team-a/,
  ],
  [
    "no group's instances fit",
    { groups: [cpuGroup("cpu")] },
    "ProvisioningRequestNotSchedulableInNodepool",
    /team-a\/cpu: a pod of main does not fit, its nodeSelector pool=gpu/,
  ],
  [
    "pods that fit no instance of the named group",
    {
      podSets: [{ name: "main", count: 1, spec: gpuPod(12) }],
      parameters: { group: { namespace: undefined, name: "gpu" } },
    },
    "ProvisioningRequestNotSchedulableInNodepool",
    /A pod of pod set main fits no instance of InstanceGroupManager team-a\/gpu: one pod requests 12 nvidia.com\/gpu and an instance has 8 \(4 short\)/,
  ],
  [
    "more instances than maxSize, by how much",
    { podSets: [{ name: "main", count: 10, spec: gpuPod(8) }] },
    "NodepoolSizeReached",
    /needs 10 instances of InstanceGroupManager team-a\/gpu for 10 pods; its maxSize is 8: 2 over/,
  ],
])("fails: %s", (_, o, reason, message) => {
  const got = place(input(o));
  expect(got).toMatchObject({ ok: false, reason });
  if (!got.ok) expect(got.message).toMatch(message);
});

test("a named group of the request's own namespace says what its owner allows", () => {
  const got = place(
    input({
      groups: [group("own", "team-a", { provisioningRequests: { namespaces: "None", ...POLICY_DEFAULTS } })],
      parameters: { group: { namespace: undefined, name: "own" } },
    }),
  );
  expect(got).toMatchObject({ ok: false, reason: "NotAllowed" });
  if (!got.ok) expect(got.message).toContain("allows no namespace (None, the default");
});

test("another namespace's group: missing and not allowing the namespace answer one and the same", () => {
  const named = { parameters: { group: { namespace: "infra", name: "shared" } } };
  const missing = place(input({ ...named, groups: [] }));
  const answers = [
    missing,
    ...(["None", "Same"] as const).map((p) => place(input({ ...named, groups: [shared(p)] }))),
    place(
      input({
        ...named,
        groups: [shared("Selector", { matchLabels: { gpu: "yes" } })],
        namespaceLabels: { gpu: "no" },
      }),
    ),
  ];
  expect(missing).toMatchObject({ ok: false, reason: "NotAllowed" });
  for (const answer of answers) expect(answer).toEqual(missing);
});

test("reading namespace labels is needed only when a group selects namespaces", () => {
  const selecting = shared("Selector", { matchLabels: { gpu: "yes" } });
  expect(needsNamespaceLabels([group()])).toBe(false);
  expect(needsNamespaceLabels([group(), selecting])).toBe(true);
  const got = place(
    input({
      groups: [selecting],
      namespaceLabels: {},
      parameters: { group: { namespace: "infra", name: "shared" } },
    }),
  );
  expect(got).toMatchObject({ ok: false, reason: "NotAllowed" });
  // Without the labels (not read), a selecting group allows nobody.
  expect(allows(selecting, "team-a", undefined)).toBe(false);
});

test("groups being deleted, or without a shape, are no candidates; more than three misfits are counted", () => {
  const deleting = group("gpu");
  const gone = { ...deleting, metadata: { ...deleting.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
  expect(
    place(input({ groups: [gone, group("plain", "team-a", { instanceShape: undefined })] })),
  ).toMatchObject({
    reason: "NoQueuedNodepoolAvailable",
  });
  const misfits = ["a", "b", "c", "d", "e"].map((n) => cpuGroup(n));
  const got = place(input({ groups: misfits }));
  if (!got.ok) expect(got.message).toMatch(/; and 2 more\)\.$/);
});
