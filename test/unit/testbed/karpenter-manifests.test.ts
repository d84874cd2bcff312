import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { NODE_ALLOCATABLE, ZONE } from "../../../testbed/cluster.js";
import {
  FEATURE_GATES,
  INSTANCE_TYPES,
  instanceTypesFile,
  karpenterEnvironment,
  kwokNodeClass,
  NODE_CLASS,
  staticNodePool,
} from "../../../testbed/karpenter-manifests.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

interface Offering {
  Price: number;
  Available: boolean;
  Requirements: { key: string; operator: string; values: string[] }[];
}
interface InstanceTypeEntry {
  name: string;
  architecture: string;
  operatingSystems: string[];
  resources: Record<string, string>;
  offerings: Offering[];
}

describe("the instance types file", () => {
  const entries = JSON.parse(instanceTypesFile()) as InstanceTypeEntry[];

  test("offers the fixed nodes' GPU shape as gpu-8x, 8 nvidia.com/gpu, and a CPU-only shape", () => {
    expect(entries.map((e) => e.name)).toEqual(["gpu-8x", "cpu-32x"]);
    expect(entries[0]?.resources).toEqual(NODE_ALLOCATABLE);
    expect(entries[0]?.resources["nvidia.com/gpu"]).toBe("8");
    expect(entries[1]?.resources).not.toHaveProperty("nvidia.com/gpu");
    for (const e of entries) expect(e.resources).toMatchObject({ cpu: "32", pods: "110" });
  });

  test("offers each shape on demand, on linux/amd64, in the testbed's zone only", () => {
    for (const e of entries) {
      expect([e.architecture, e.operatingSystems]).toEqual(["amd64", ["linux"]]);
      expect(e.offerings).toEqual([
        {
          Price: 1,
          Available: true,
          Requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            { key: "topology.kubernetes.io/zone", operator: "In", values: [ZONE] },
          ],
        },
      ]);
    }
  });

  test("writes exactly the shapes it is given", () => {
    const one = JSON.parse(instanceTypesFile([{ name: "tiny", resources: { cpu: "1" } }])) as {
      name: string;
    }[];
    expect(one.map((e) => e.name)).toEqual(["tiny"]);
  });
});

test("Karpenter's settings: static capacity on, no leader election, the given ports, file and kubeconfig", () => {
  expect(karpenterEnvironment("/k/kubeconfig", { metrics: 4001, health: 4002 }, "/k/types.json")).toEqual({
    KUBECONFIG: "/k/kubeconfig",
    FEATURE_GATES: "StaticCapacity=true",
    DISABLE_LEADER_ELECTION: "true",
    METRICS_PORT: "4001",
    HEALTH_PROBE_PORT: "4002",
    INSTANCE_TYPES_FILE_PATH: "/k/types.json",
  });
  expect(FEATURE_GATES).toBe("StaticCapacity=true");
});

test("the KWOKNodeClass is the one every NodePool names", () => {
  expect(kwokNodeClass()).toEqual({
    apiVersion: "karpenter.kwok.sh/v1alpha1",
    kind: "KWOKNodeClass",
    metadata: { name: NODE_CLASS.name },
    spec: {},
  });
});

describe("staticNodePool", () => {
  test("sets replicas (0 by default) and selects one instance type through the testbed's node class", () => {
    expect(staticNodePool("p", { instanceType: "cpu-32x" })).toEqual({
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name: "p" },
      spec: {
        replicas: 0,
        template: {
          spec: {
            nodeClassRef: { group: "karpenter.kwok.sh", kind: "KWOKNodeClass", name: "testbed" },
            requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["cpu-32x"] }],
          },
        },
      },
    });
  });

  test("caps growth with limits.nodes and passes labels and taints to the nodes' template", () => {
    const taint = { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" } as const;
    const pool = staticNodePool("g", {
      instanceType: "gpu-8x",
      replicas: 2,
      maxNodes: 3,
      labels: { team: "a" },
      taints: [taint],
    }) as { spec: { replicas: number; limits: object; template: { metadata: object; spec: object } } };
    expect(pool.spec.replicas).toBe(2);
    expect(pool.spec.limits).toEqual({ nodes: "3" });
    expect(pool.spec.template.metadata).toEqual({ labels: { team: "a" } });
    expect(pool.spec.template.spec).toMatchObject({ taints: [taint] });
  });

  test("is what the dev sample static-gpu.yaml declares (the testbed's node class and a shape it offers)", () => {
    const sample = parse(
      readFileSync(path.join(repoRoot, "manifests/samples/karpenter/static-gpu.yaml"), "utf8"),
    ) as { spec: { limits: { nodes: number } } };
    const expected = staticNodePool("static-gpu", {
      instanceType: "gpu-8x",
      replicas: 0,
      maxNodes: 8,
      taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }],
    });
    expect({
      ...sample,
      spec: { ...sample.spec, limits: { nodes: String(sample.spec.limits.nodes) } },
    }).toEqual(expected);
    expect(INSTANCE_TYPES.map((t) => t.name)).toContain("gpu-8x");
  });
});
