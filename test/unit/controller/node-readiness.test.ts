// Readiness counted from Nodes (src/targets/node-readiness.ts): which Nodes are a group's ready
// instances, the selector the informer lists with, and what its transform keeps.
import type { Taint } from "../../../src/api/instance-shape.js";
import type { Node } from "../../../src/runtime/builtin-kinds.js";
import {
  countNodes,
  HELD_BACK_LISTED,
  heldBackReason,
  isReadyInstance,
  leanNode,
  readinessChanged,
  readyNodeCount,
  selectorString,
  type HeldBackNode,
  type NodeReadinessRule,
} from "../../../src/targets/node-readiness.js";

const POOL = { "karpenter.sh/nodepool": "gpu" };
const GPU_TAINT: Taint = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" };
const rule: NodeReadinessRule = { nodeSelector: POOL, declaredTaints: [GPU_TAINT] };

interface NodeOptions {
  readonly labels?: Record<string, string>;
  readonly ready?: "True" | "False" | "Unknown" | "absent";
  readonly unschedulable?: boolean;
  readonly taints?: readonly { key: string; value?: string; effect: string }[];
  readonly deleting?: boolean;
}

function node(name: string, o: NodeOptions = {}): Node {
  const ready = o.ready ?? "True";
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      resourceVersion: "1",
      labels: o.labels ?? { ...POOL, "kubernetes.io/hostname": name },
      ...(o.deleting && { deletionTimestamp: "2026-01-01T00:00:00Z" }),
    },
    spec: {
      ...(o.unschedulable !== undefined && { unschedulable: o.unschedulable }),
      ...(o.taints && { taints: [...o.taints] }),
    },
    status: {
      conditions: [
        { type: "MemoryPressure", status: "False" },
        ...(ready === "absent"
          ? []
          : [{ type: "Ready", status: ready, lastTransitionTime: "2026-01-01T00:00:00Z" }]),
      ],
    },
  };
}

describe("a Node is one of the group's ready instances", () => {
  test.each<[string, NodeOptions, boolean]>([
    ["Ready, untainted, schedulable", {}, true],
    ["NotReady", { ready: "False" }, false],
    ["Ready Unknown (its kubelet stopped posting)", { ready: "Unknown" }, false],
    ["without a Ready condition (never registered)", { ready: "absent" }, false],
    ["cordoned", { unschedulable: true }, false],
    ["explicitly schedulable", { unschedulable: false }, true],
    ["being deleted", { deleting: true }, false],
    ["of another pool", { labels: { "karpenter.sh/nodepool": "cpu" } }, false],
    ["without the pool's label", { labels: { "kubernetes.io/hostname": "x" } }, false],
    [
      "still registering (karpenter.sh/unregistered:NoExecute)",
      { taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] },
      false,
    ],
    [
      "being replaced (karpenter.sh/disrupted:NoSchedule)",
      { taints: [{ key: "karpenter.sh/disrupted", effect: "NoSchedule" }] },
      false,
    ],
    [
      "NotReady taint (node.kubernetes.io/not-ready:NoExecute)",
      { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoExecute" }] },
      false,
    ],
    ["carrying the taint its shape declares", { taints: [GPU_TAINT] }, true],
    [
      "carrying the declared taint's key with another value",
      { taints: [{ ...GPU_TAINT, value: "absent" }] },
      false,
    ],
    [
      "carrying the declared taint's key with another effect",
      { taints: [{ ...GPU_TAINT, effect: "NoExecute" }] },
      false,
    ],
    [
      "carrying only a PreferNoSchedule taint",
      { taints: [{ key: "spot", effect: "PreferNoSchedule" }] },
      true,
    ],
    [
      "carrying the declared taint and an undeclared one",
      { taints: [GPU_TAINT, { key: "maintenance", effect: "NoSchedule" }] },
      false,
    ],
  ])("%s: %s", (_title, options, expected) => {
    expect(isReadyInstance(node("n", options), rule)).toBe(expected);
  });

  test("with no declared taints, any NoSchedule or NoExecute taint holds a Node back", () => {
    const bare = { nodeSelector: POOL, declaredTaints: [] };
    expect(isReadyInstance(node("n", { taints: [GPU_TAINT] }), bare)).toBe(false);
    expect(isReadyInstance(node("n", { taints: [{ key: "a", effect: "PreferNoSchedule" }] }), bare)).toBe(
      true,
    );
  });

  test("a declared taint without a value matches a Node's taint without a value, not one with", () => {
    const valueless: NodeReadinessRule = {
      nodeSelector: POOL,
      declaredTaints: [{ key: "dedicated", effect: "NoSchedule" }],
    };
    expect(
      isReadyInstance(node("n", { taints: [{ key: "dedicated", effect: "NoSchedule" }] }), valueless),
    ).toBe(true);
    expect(
      isReadyInstance(
        node("n", { taints: [{ key: "dedicated", value: "", effect: "NoSchedule" }] }),
        valueless,
      ),
    ).toBe(true);
    expect(
      isReadyInstance(
        node("n", { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] }),
        valueless,
      ),
    ).toBe(false);
  });

  test("every label of a multi-label selector must match", () => {
    const two: NodeReadinessRule = { nodeSelector: { ...POOL, zone: "a" }, declaredTaints: [] };
    expect(isReadyInstance(node("n", { labels: { ...POOL, zone: "a" } }), two)).toBe(true);
    expect(isReadyInstance(node("n", { labels: { ...POOL, zone: "b" } }), two)).toBe(false);
    expect(isReadyInstance(node("n", { labels: POOL }), two)).toBe(false);
  });
});

test("the count: ready instances of this pool only", () => {
  const nodes = [
    node("ready-1"),
    node("ready-2", { taints: [GPU_TAINT] }),
    node("not-ready", { ready: "False" }),
    node("cordoned", { unschedulable: true }),
    node("registering", { taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] }),
    node("leaving", { deleting: true }),
    node("other-pool", { labels: { "karpenter.sh/nodepool": "cpu" } }),
  ];
  expect(readyNodeCount(nodes, rule)).toBe(2);
  expect(readyNodeCount([], rule)).toBe(0);
});

test("the selector string is canonical: keys sorted, so one informer serves both spellings", () => {
  expect(selectorString({ zone: "a", "karpenter.sh/nodepool": "gpu" })).toBe(
    "karpenter.sh/nodepool=gpu,zone=a",
  );
  expect(selectorString({ "karpenter.sh/nodepool": "gpu", zone: "a" })).toBe(
    "karpenter.sh/nodepool=gpu,zone=a",
  );
});

test("the transform keeps what the count reads, and of the labels only the selector's", () => {
  const raw = {
    ...node("n", { taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }], deleting: true }),
    metadata: {
      ...node("n").metadata,
      deletionTimestamp: "2026-01-01T00:00:00Z",
      annotations: { big: "x".repeat(1000) },
      managedFields: [{ manager: "kubelet" }],
    },
    status: {
      ...node("n").status,
      images: [{ names: ["registry/image:1"], sizeBytes: 1 }],
      addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
    },
  } as Node;
  const lean = leanNode(POOL)(raw) as Node;
  expect(lean).toEqual({
    metadata: {
      name: "n",
      resourceVersion: "1",
      labels: POOL,
      deletionTimestamp: "2026-01-01T00:00:00Z",
    },
    spec: { taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] },
    status: { conditions: [{ type: "Ready", status: "True" }] },
  });
  // What it keeps counts the same as the whole Node.
  for (const n of [node("a"), node("b", { ready: "False" }), node("c", { unschedulable: true })])
    expect(isReadyInstance(leanNode(POOL)(n) as Node, rule)).toBe(isReadyInstance(n, rule));
});

test("a change matters only when it can change a count, not a heartbeat's new resourceVersion", () => {
  const lean = (n: Node): Node => leanNode(POOL)(n) as Node;
  const before = lean(node("n"));
  const heartbeat = lean({ ...node("n"), metadata: { ...node("n").metadata, resourceVersion: "2" } });
  expect(readinessChanged(before, heartbeat)).toBe(false);
  expect(readinessChanged(before, lean(node("n", { ready: "False" })))).toBe(true);
  expect(readinessChanged(before, lean(node("n", { unschedulable: true })))).toBe(true);
  expect(readinessChanged(before, lean(node("n", { taints: [GPU_TAINT] })))).toBe(true);
  expect(readinessChanged(before, lean(node("n", { deleting: true })))).toBe(true);
});

describe("why a selected Node is held back", () => {
  const UNREGISTERED = { key: "karpenter.sh/unregistered", effect: "NoExecute" };
  const TEAM = { key: "team", value: "a", effect: "NoSchedule" };
  test.each<[string, NodeOptions, Omit<HeldBackNode, "node"> | undefined]>([
    ["ready, declared taint only", { taints: [GPU_TAINT] }, undefined],
    [
      "undeclared NoSchedule taint",
      { taints: [TEAM] },
      { reason: "UndeclaredTaint", taint: "team=a:NoSchedule" },
    ],
    [
      "undeclared taint without a value",
      { taints: [{ key: "dedicated", effect: "NoExecute" }] },
      { reason: "UndeclaredTaint", taint: "dedicated:NoExecute" },
    ],
    [
      "declared key with another value is not declared",
      { taints: [{ ...GPU_TAINT, value: "absent" }] },
      { reason: "UndeclaredTaint", taint: "nvidia.com/gpu=absent:NoSchedule" },
    ],
    [
      "registering (Karpenter)",
      { taints: [UNREGISTERED] },
      { reason: "NotRegistered", taint: "karpenter.sh/unregistered:NoExecute" },
    ],
    [
      "not initialised by the cloud provider",
      {
        taints: [
          { key: "node.cloudprovider.kubernetes.io/uninitialized", value: "true", effect: "NoSchedule" },
        ],
      },
      { reason: "NotRegistered", taint: "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule" },
    ],
    [
      "a taint Karpenter sets while it disrupts the Node: not one to declare",
      { taints: [{ key: "karpenter.sh/disrupted", effect: "NoSchedule" }] },
      { reason: "SystemTaint", taint: "karpenter.sh/disrupted:NoSchedule" },
    ],
    [
      "a node condition's taint",
      { taints: [{ key: "node.kubernetes.io/memory-pressure", effect: "NoSchedule" }] },
      { reason: "SystemTaint", taint: "node.kubernetes.io/memory-pressure:NoSchedule" },
    ],
    [
      "of several taints, the one to declare is named",
      { taints: [UNREGISTERED, TEAM] },
      { reason: "UndeclaredTaint", taint: "team=a:NoSchedule" },
    ],
    ["cordoned", { unschedulable: true }, { reason: "Cordoned" }],
    ["being deleted", { deleting: true }, { reason: "BeingDeleted" }],
    ["not Ready", { ready: "False" }, { reason: "NotReady" }],
    ["not Ready, whatever its taints", { ready: "Unknown", taints: [TEAM] }, { reason: "NotReady" }],
    [
      "PreferNoSchedule only discourages",
      { taints: [{ key: "soft", effect: "PreferNoSchedule" }] },
      undefined,
    ],
  ])("%s", (_name, options, why) => {
    expect(heldBackReason(node("n", options), rule)).toEqual(why);
    expect(isReadyInstance(node("n", options), rule)).toBe(why === undefined);
  });
});

describe("the count names the selected Nodes that do not count", () => {
  const TEAM = { key: "team", value: "a", effect: "NoSchedule" };

  test("ready ones are counted, Nodes of another pool are neither counted nor named", () => {
    const counted = countNodes(
      [
        node("ready-1"),
        node("tainted", { taints: [TEAM] }),
        node("other-pool", { labels: { "karpenter.sh/nodepool": "cpu" }, taints: [TEAM] }),
      ],
      rule,
    );
    expect(counted).toEqual({
      ready: 1,
      heldBack: {
        total: 1,
        nodes: [{ node: "tainted", reason: "UndeclaredTaint", taint: "team=a:NoSchedule" }],
      },
    });
  });

  test("the most actionable reason first, then by name, whatever the order of the cache", () => {
    const nodes = [
      node("b-not-ready", { ready: "False" }),
      node("z-tainted", { taints: [TEAM] }),
      node("c-cordoned", { unschedulable: true }),
      node("a-tainted", { taints: [TEAM] }),
      node("d-leaving", { deleting: true }),
    ];
    const expected = ["a-tainted", "z-tainted", "c-cordoned", "d-leaving", "b-not-ready"];
    expect(countNodes(nodes, rule).heldBack.nodes.map((n) => n.node)).toEqual(expected);
    expect(countNodes([...nodes].reverse(), rule).heldBack.nodes.map((n) => n.node)).toEqual(expected);
  });

  test(`bounded: at most ${String(HELD_BACK_LISTED)} named, all of them counted`, () => {
    const nodes = Array.from({ length: 40 }, (_, i) =>
      node(`n-${String(i).padStart(2, "0")}`, { ready: "False" }),
    );
    // An undeclared taint is never hidden behind many Nodes that are merely not Ready yet.
    nodes.push(node("z-tainted", { taints: [TEAM] }));
    const { ready, heldBack } = countNodes(nodes, rule);
    expect(ready).toBe(0);
    expect(heldBack.total).toBe(41);
    expect(heldBack.nodes.map((n) => n.node)).toEqual(["z-tainted", "n-00", "n-01", "n-02", "n-03"]);
  });

  test("none held back", () => {
    expect(countNodes([node("a"), node("b")], rule)).toEqual({ ready: 2, heldBack: { total: 0, nodes: [] } });
    expect(countNodes([], rule)).toEqual({ ready: 0, heldBack: { total: 0, nodes: [] } });
  });
});
