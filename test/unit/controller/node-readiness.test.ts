// Readiness counted from Nodes (src/controller/node-readiness.ts): which Nodes are a group's ready
// instances, the selector the informer lists with, and what its transform keeps.
import type { Taint } from "../../../src/api/instance-shape.js";
import type { Node } from "../../../src/runtime/builtin-kinds.js";
import {
  heldBackReason,
  isReadyInstance,
  leanNode,
  readinessChanged,
  readyNodeCount,
  selectorString,
  type NodeReadinessRule,
} from "../../../src/controller/node-readiness.js";

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
  test.each<[string, NodeOptions, string | undefined]>([
    ["ready, declared taint only", { taints: [GPU_TAINT] }, undefined],
    [
      "undeclared NoSchedule taint",
      { taints: [{ key: "team", value: "a", effect: "NoSchedule" }] },
      "taint team=a:NoSchedule not declared in spec.instanceShape.taints",
    ],
    [
      "undeclared taint without a value",
      { taints: [{ key: "dedicated", effect: "NoExecute" }] },
      "taint dedicated:NoExecute not declared in spec.instanceShape.taints",
    ],
    [
      "registering",
      { taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] },
      "unregistered (taint karpenter.sh/unregistered:NoExecute)",
    ],
    ["cordoned", { unschedulable: true }, "cordoned"],
    ["being deleted", { deleting: true }, "being deleted"],
    ["not Ready", { ready: "False" }, "not Ready"],
    [
      "PreferNoSchedule only discourages",
      { taints: [{ key: "soft", effect: "PreferNoSchedule" }] },
      undefined,
    ],
  ])("%s", (_name, options, reason) => {
    expect(heldBackReason(node("n", options), rule)).toBe(reason);
    expect(isReadyInstance(node("n", options), rule)).toBe(reason === undefined);
  });
});
