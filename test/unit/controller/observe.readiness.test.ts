// observeGroup() for groups whose ready count comes from Nodes and for Karpenter NodePool targets,
// against the in-memory API server: the count replaces the target's own field, a refusal becomes
// readinessUnavailable, and Karpenter's objects are read only while an attempt waits for instances.
import { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../../../src/api/kinds.js";
import { API_VERSION } from "../../../src/api/names.js";
import { ResizeRequest } from "../../../src/api/resize-request.js";
import { NODE_CLAIMS } from "../../../src/targets/karpenter/launches.js";
import { readKarpenter } from "../../../src/targets/karpenter/read.js";
import type { NodeCount, NodeCounter } from "../../../src/targets/node-informers.js";
import type { HeldBack, NodeReadinessRule } from "../../../src/targets/node-readiness.js";
import { observeGroup } from "../../../src/controllers/resize/observe.js";
import { DEFAULT_DECIDE_CONFIG } from "../../../src/controllers/resize/snapshot.js";
import { BY_NODE_SELECTOR, GROUP_INDEXERS, REQUEST_INDEXERS } from "../../../src/cache/indexes.js";
import { ScaleClient } from "../../../src/targets/scale-client.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { CORE_EVENTS, type Node } from "../../../src/runtime/builtin-kinds.js";
import type { ResourceLocation } from "../../../src/runtime/resource-kind.js";
import { Store } from "../../../src/runtime/store.js";
import { FakeKube } from "../../support/fake-kube.js";

const NS = "team-a";
const NOW = Date.parse("2025-01-01T00:10:00Z");
const DEPLOYMENTS: ResourceLocation = { apiVersion: "apps/v1", resource: "deployments", namespaced: true };
const NODE_POOLS: ResourceLocation = {
  apiVersion: "karpenter.sh/v1",
  resource: "nodepools",
  namespaced: false,
};

/** A count of `ready` Nodes, with `heldBack` the selected ones that do not count (none by default). */
const counted = (ready: number, heldBack: HeldBack = { total: 0, nodes: [] }): NodeCount => ({
  ready,
  heldBack,
});

class FakeCounter implements NodeCounter {
  readonly asked: NodeReadinessRule[] = [];
  constructor(private readonly answer: NodeCount) {}
  count(rule: NodeReadinessRule): Promise<NodeCount> {
    this.asked.push(rule);
    return Promise.resolve(this.answer);
  }
  selected(): readonly Node[] {
    return [];
  }
}

function groupObject(spec: Record<string, unknown>): InstanceGroupManager {
  return InstanceGroupManager.parse({
    apiVersion: API_VERSION,
    kind: "InstanceGroupManager",
    metadata: { name: "pool", namespace: NS, uid: "uid-pool", generation: 1 },
    spec: { zone: "local-a", ...spec },
  });
}

function appliedRequest(phase: "Applying" | "Applied" | "RollingBack" = "Applied"): ResizeRequest {
  return ResizeRequest.parse({
    apiVersion: API_VERSION,
    kind: "ResizeRequest",
    metadata: {
      name: "a",
      namespace: NS,
      uid: "uid-a",
      generation: 1,
      creationTimestamp: "2025-01-01T00:00:00Z",
    },
    spec: { instanceGroupManager: "pool", resizeBy: 3 },
    status: {
      state: "ACCEPTED",
      provisioning: {
        attempt: 1,
        phase,
        baseReplicas: 2,
        targetReplicas: 5,
        startedTime: "2025-01-01T00:09:00Z",
        appliedTime: "2025-01-01T00:09:30Z",
        deadline: "2025-01-01T00:19:30Z",
      },
    },
  });
}

async function observe(
  fake: FakeKube,
  group: InstanceGroupManager,
  nodes: NodeCounter,
  requests: readonly ResizeRequest[] = [],
) {
  const groups = new Store<InstanceGroupManager>(GROUP_INDEXERS);
  groups.set(group);
  const cached = new Store<ResizeRequest>(REQUEST_INDEXERS);
  for (const r of requests) cached.set(r);
  fake.seed(INSTANCE_GROUP_MANAGERS, group);
  for (const r of requests) fake.seed(RESIZE_REQUESTS, r);
  return observeGroup(
    { groups, requests: cached, scale: new ScaleClient(fake), client: fake, nodes, now: () => NOW },
    NS,
    "pool",
    DEFAULT_DECIDE_CONFIG,
  );
}

function withDeployment(readyReplicas: number): FakeKube {
  const fake = new FakeKube(() => NOW);
  fake.serve("apps/v1", [
    { name: "deployments", kind: "Deployment", namespaced: true },
    { name: "deployments/scale", kind: "Scale", namespaced: true },
  ]);
  fake.seed(DEPLOYMENTS, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "workers", namespace: NS },
    spec: { replicas: 5 },
    status: { replicas: 5, readyReplicas },
  });
  return fake;
}

const deploymentGroup = (extra: Record<string, unknown> = {}) =>
  groupObject({ targetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "workers" }, ...extra });
const SELECTOR = { "example.com/pool": "gpu" };
const TAINT = { key: "nvidia.com/gpu", effect: "NoSchedule" as const };

describe("the ready count", () => {
  test("from Nodes: the selector and the shape's taints are asked for, the target's own field is not used", async () => {
    const nodes = new FakeCounter(counted(1));
    const obs = await observe(
      withDeployment(5),
      deploymentGroup({
        readiness: { nodeSelector: SELECTOR },
        instanceShape: { allocatable: { cpu: "8" }, taints: [TAINT] },
      }),
      nodes,
    );
    expect(obs.snapshot.target).toEqual({
      found: true,
      replicas: 5,
      readyReplicas: 1,
      settled: true,
      heldBack: { total: 0, nodes: [] },
    });
    expect(nodes.asked).toEqual([{ nodeSelector: SELECTOR, declaredTaints: [TAINT] }]);
  });

  test("from Nodes: the Nodes that do not count are carried to the decision", async () => {
    const heldBack: HeldBack = {
      total: 2,
      nodes: [
        { node: "gpu-a", reason: "UndeclaredTaint", taint: "example.com/t=x:NoSchedule" },
        { node: "gpu-b", reason: "Cordoned" },
      ],
    };
    const obs = await observe(
      withDeployment(5),
      deploymentGroup({ readiness: { nodeSelector: SELECTOR } }),
      new FakeCounter(counted(0, heldBack)),
    );
    expect(obs.snapshot.target).toMatchObject({ found: true, readyReplicas: 0, heldBack });
  });

  test("from Nodes the operator may not read: unavailable, counted 0", async () => {
    const obs = await observe(
      withDeployment(5),
      deploymentGroup({ readiness: { nodeSelector: SELECTOR } }),
      new FakeCounter({ forbidden: "no" }),
    );
    expect(obs.snapshot.target).toMatchObject({
      found: true,
      readyReplicas: 0,
      readinessUnavailable: { reason: "NodeReadinessForbidden", message: "no" },
    });
  });

  test("from the target's field: Nodes are not asked", async () => {
    const nodes = new FakeCounter(counted(0));
    const obs = await observe(withDeployment(4), deploymentGroup(), nodes);
    expect(obs.snapshot.target).toMatchObject({ readyReplicas: 4 });
    expect(obs.snapshot.target).not.toHaveProperty("readinessUnavailable");
    expect(nodes.asked).toEqual([]);
  });
});

describe("a Karpenter NodePool target", () => {
  function withNodePool(): FakeKube {
    const fake = new FakeKube(() => NOW);
    fake.serve("karpenter.sh/v1", [
      { name: "nodepools", kind: "NodePool", namespaced: false },
      { name: "nodepools/scale", kind: "Scale", namespaced: false },
      { name: "nodeclaims", kind: "NodeClaim", namespaced: false },
    ]);
    fake.seed(NODE_POOLS, {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name: "gpu" },
      spec: { replicas: 5, limits: { nodes: "8" } },
      status: { nodes: 5 },
    });
    fake.seed(NODE_CLAIMS, {
      apiVersion: "karpenter.sh/v1",
      kind: "NodeClaim",
      metadata: { name: "gpu-abcde", labels: { "karpenter.sh/nodepool": "gpu" } },
      status: {
        conditions: [
          {
            type: "Launched",
            status: "Unknown",
            reason: "LaunchFailed",
            message: "no capacity",
            lastTransitionTime: "2025-01-01T00:09:40Z",
          },
        ],
      },
    });
    fake.seed(NODE_CLAIMS, {
      apiVersion: "karpenter.sh/v1",
      kind: "NodeClaim",
      metadata: { name: "cpu-abcde", labels: { "karpenter.sh/nodepool": "cpu" } },
      status: { conditions: [{ type: "Launched", status: "False", reason: "LaunchFailed" }] },
    });
    fake.seed(CORE_EVENTS, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "gpu-fghij.1", namespace: "default" },
      involvedObject: { kind: "NodeClaim", name: "gpu-fghij" },
      reason: "InsufficientCapacityError",
      message: "NodeClaim gpu-fghij event: no GPUs",
      lastTimestamp: "2025-01-01T00:09:50Z",
    });
    return fake;
  }
  /** The NodePool as seeded, for reading Karpenter's view of it directly. */
  const NODE_POOL = { metadata: { name: "gpu" }, spec: { replicas: 5, limits: { nodes: "8" } } };
  const karpenterGroup = groupObject({
    targetRef: { apiVersion: "karpenter.sh/v1", kind: "NodePool", name: "gpu" },
    readiness: { nodeSelector: { "karpenter.sh/nodepool": "gpu" } },
  });

  test("while an attempt waits: its NodeClaims, Karpenter's Events and its limits.nodes", async () => {
    const fake = withNodePool();
    const obs = await observe(fake, karpenterGroup, new FakeCounter(counted(2)), [appliedRequest()]);
    // What the NodePool's kind reads (targets/karpenter/read.ts) ...
    expect(await readKarpenter(fake, "gpu", NODE_POOL)).toEqual({
      pool: "gpu",
      failures: [
        {
          nodeClaim: "gpu-abcde",
          atMs: Date.parse("2025-01-01T00:09:40Z"),
          reason: "LaunchFailed",
          message: "no capacity",
        },
        {
          nodeClaim: "gpu-fghij",
          atMs: Date.parse("2025-01-01T00:09:50Z"),
          reason: "InsufficientCapacityError",
          message: "NodeClaim gpu-fghij event: no GPUs",
        },
      ],
      lastLaunchMs: 0,
      nodeLimit: 8,
      launching: [],
      active: 1,
      deleting: 0,
    });
    // ... and what the decision sees of it: launches failed since the attempt was applied (00:09:30).
    expect(obs.snapshot.shortfall).toEqual({
      message: "2 launch(es) of NodePool gpu failed: LaunchFailed: no capacity",
      cause: "new Nodes could not be launched",
      blocked: {
        sinceMs: Date.parse("2025-01-01T00:09:40Z"),
        why: "Karpenter will not add capacity (NodeClaim gpu-abcde of NodePool gpu was not launched: LaunchFailed: no capacity)",
      },
    });
  });

  test("while a rollback is recorded: whether Karpenter is still launching, ready or not", async () => {
    const fake = withNodePool();
    await observe(fake, karpenterGroup, new FakeCounter(counted(5)), [appliedRequest("RollingBack")]);
    // Listed twice: for what lowering the pool waits for, and for the pool's instances (a rollback removes some).
    expect(fake.calls.filter((c) => c.resource === "nodeclaims" && c.verb === "list")).toHaveLength(2);
    expect(await readKarpenter(fake, "gpu", NODE_POOL)).toMatchObject({
      pool: "gpu",
      launching: [],
      active: 1,
      nodeLimit: 8,
    });
  });

  test("without permission on NodeClaims: the view says so, the Events and the limit still count", async () => {
    const forbidden = (): FakeKube =>
      withNodePool().inject({
        match: (c) => c.verb === "list" && c.resource === "nodeclaims",
        when: "before",
        error: () => new ApiError(403, "Forbidden", "nodeclaims.karpenter.sh is forbidden"),
      });
    const obs = await observe(forbidden(), karpenterGroup, new FakeCounter(counted(2)), [appliedRequest()]);
    const view = await readKarpenter(forbidden(), "gpu", NODE_POOL);
    expect(view.unreadable).toMatch(
      /^the operator may not list NodeClaims \(install the chart with rbac\.karpenter=true\)/,
    );
    expect(view.failures.map((f) => f.nodeClaim)).toEqual(["gpu-fghij"]);
    expect(view.nodeLimit).toBe(8);
    expect(obs.snapshot.shortfall?.unreadable).toMatch(
      /^Karpenter's failed launches cannot be seen \(the operator may not list NodeClaims \(install the chart with rbac\.karpenter=true\)/,
    );
    expect(obs.snapshot.shortfall?.message).toBe(
      "1 launch(es) of NodePool gpu failed: InsufficientCapacityError: NodeClaim gpu-fghij event: no GPUs",
    );
  });

  test("another error reading NodeClaims fails the pass (retried)", async () => {
    const fake = withNodePool().inject({
      match: (c) => c.verb === "list" && c.resource === "nodeclaims",
      when: "before",
      error: () => new ApiError(500, "InternalError", "etcd is down"),
    });
    await expect(
      observe(fake, karpenterGroup, new FakeCounter(counted(2)), [appliedRequest()]),
    ).rejects.toThrow("etcd is down");
  });

  test("the pool's instances are read once an attempt may succeed (Applying or Applied, all ready), not while it waits", async () => {
    const waiting = await observe(withNodePool(), karpenterGroup, new FakeCounter(counted(2)), [
      appliedRequest(),
    ]);
    expect(waiting.snapshot.instances).toBeUndefined();
    // The increase seen applied and every instance ready in the same pass: it succeeds from Applying.
    const fromApplying = await observe(withNodePool(), karpenterGroup, new FakeCounter(counted(5)), [
      appliedRequest("Applying"),
    ]);
    expect(fromApplying.snapshot.instances?.mechanism).toBe("DeleteNodeClaims");
  });

  test("not read when no attempt waits, nor once all instances are ready (then only the pool's instances are)", async () => {
    const idleFake = withNodePool();
    const idle = await observe(idleFake, karpenterGroup, new FakeCounter(counted(2)));
    expect(idle.snapshot.shortfall).toBeUndefined();
    expect(idle.snapshot.lowering).toBeUndefined();
    expect(idle.snapshot.instances).toBeUndefined();
    expect(idleFake.calls.filter((c) => c.resource === "nodeclaims")).toEqual([]);
    const fake = withNodePool();
    const ready = await observe(fake, karpenterGroup, new FakeCounter(counted(5)), [appliedRequest()]);
    expect(ready.snapshot.shortfall).toBeUndefined();
    expect(ready.snapshot.lowering).toBeUndefined();
    // The attempt may succeed in this pass: the pool's NodeClaims are listed once, to claim its own.
    expect(ready.snapshot.instances?.mechanism).toBe("DeleteNodeClaims");
    expect(fake.calls.filter((c) => c.resource === "nodeclaims")).toHaveLength(1);
  });
});

test("the group cache indexes groups by their node selector: a Node change reaches exactly those", () => {
  const groups = new Store<InstanceGroupManager>(GROUP_INDEXERS);
  const named = (name: string, spec: Record<string, unknown>) => {
    const g = deploymentGroup(spec);
    return { ...g, metadata: { ...g.metadata, name } };
  };
  groups.set(named("a", { readiness: { nodeSelector: { zone: "x", "example.com/pool": "gpu" } } }));
  groups.set(named("b", { readiness: { nodeSelector: { "example.com/pool": "gpu", zone: "x" } } }));
  groups.set(named("c", { readiness: { nodeSelector: SELECTOR } }));
  groups.set(named("d", {}));
  const keys = (selector: string) => groups.byIndex(BY_NODE_SELECTOR, selector).map((g) => g.metadata.name);
  expect(keys("example.com/pool=gpu,zone=x").sort()).toEqual(["a", "b"]);
  expect(keys("example.com/pool=gpu")).toEqual(["c"]);
});
