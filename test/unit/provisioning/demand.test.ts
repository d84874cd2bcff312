// Sizing a demand in instances: what one pod asks for, whether it fits an instance at all, and how
// many instances hold every pod set (first-fit decreasing), as tables.
import type { PodSpec } from "../../../src/api/provisioning-request.js";
import { misfit, podRequests, sizeDemand } from "../../../src/controllers/provisioning/demand.js";
import { GPU_SHAPE, gpuPod } from "./fixtures.js";

const c = (requests: Record<string, string>, restartPolicy?: string) => ({
  resources: { requests },
  ...(restartPolicy && { restartPolicy }),
});

test.each<[string, PodSpec, Record<string, number>]>([
  [
    "containers add up",
    { containers: [c({ cpu: "1" }), c({ cpu: "500m", memory: "1Gi" })] },
    { cpu: 1.5, memory: 2 ** 30, pods: 1 },
  ],
  [
    "a one-shot init container larger than the containers sets the peak",
    { containers: [c({ cpu: "1" })], initContainers: [c({ cpu: "4" })] },
    { cpu: 4, pods: 1 },
  ],
  [
    "a sidecar runs beside the containers and beside later init containers",
    { containers: [c({ cpu: "1" })], initContainers: [c({ cpu: "2" }, "Always"), c({ cpu: "2" })] },
    { cpu: 4, pods: 1 },
  ],
  [
    "pod overhead counts",
    { containers: [c({ cpu: "1" })], overhead: { cpu: "250m" } },
    { cpu: 1.25, pods: 1 },
  ],
  ["no requests: only the pod slot", { containers: [{ name: "x" }] }, { pods: 1 }],
])("podRequests: %s", (_, spec, expected) => {
  const got = podRequests(spec);
  expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
  for (const [k, v] of Object.entries(expected)) expect(got[k]).toBeCloseTo(v, 9);
});

test.each<[string, PodSpec, RegExp | undefined]>([
  ["a GPU worker fits", gpuPod(8), undefined],
  [
    "a nodeSelector the instances do not carry",
    gpuPod(8, { nodeSelector: { pool: "cpu" } }),
    /nodeSelector pool=cpu does not match the instances' labels \(pool=gpu\)/,
  ],
  [
    "an untolerated NoSchedule taint",
    gpuPod(8, { tolerations: [] }),
    /does not tolerate the instances' taint nvidia.com\/gpu=present:NoSchedule/,
  ],
  [
    "a toleration with another value",
    gpuPod(8, { tolerations: [{ key: "nvidia.com/gpu", operator: "Equal", value: "absent" }] }),
    /does not tolerate/,
  ],
  [
    "an Exists toleration without key tolerates everything",
    gpuPod(8, { tolerations: [{ operator: "Exists" }] }),
    undefined,
  ],
  [
    "more GPUs than an instance has, by how much",
    gpuPod(9),
    /one pod requests 9 nvidia.com\/gpu and an instance has 8 \(1 short\)/,
  ],
  [
    "a resource the instances do not offer",
    { ...gpuPod(1), containers: [c({ "example.com/fpga": "1" })] },
    /requests 1 example.com\/fpga and an instance has 0 \(1 short\)/,
  ],
])("misfit: %s", (_, spec, expected) => {
  const why = misfit(spec, GPU_SHAPE);
  if (expected === undefined) expect(why).toBeUndefined();
  else expect(why).toMatch(expected);
});

test.each<[string, { count: number; spec: PodSpec }[], number]>([
  ["4 pods × 8 GPUs: one instance each", [{ count: 4, spec: gpuPod(8) }], 4],
  ["8 pods × 4 GPUs: two per instance", [{ count: 8, spec: gpuPod(4) }], 4],
  ["3 pods × 4 GPUs: the odd one needs an instance of its own", [{ count: 3, spec: gpuPod(4) }], 2],
  ["CPU bounds before GPUs: 9 pods × 1 GPU × 4 CPU fill 32 CPUs at 8", [{ count: 9, spec: gpuPod(1) }], 2],
  [
    "big pods first, small ones fill the gaps (first-fit decreasing)",
    [
      { count: 4, spec: gpuPod(1) },
      { count: 2, spec: gpuPod(6) },
    ],
    2,
  ],
  ["a pod set of 0 asks nothing", [{ count: 0, spec: gpuPod(8) }], 0],
])("sizeDemand: %s", (_, sets, instances) => {
  const sizing = sizeDemand(
    sets.map((s, i) => ({ name: `set-${i}`, ...s })),
    GPU_SHAPE,
  );
  expect(sizing).toEqual({ fits: true, instances, pods: sets.reduce((n, s) => n + s.count, 0) });
});

test("sizeDemand: one misfit pod set makes the whole demand infeasible, naming it", () => {
  const sizing = sizeDemand(
    [
      { name: "ppt-ok", count: 2, spec: gpuPod(8) },
      { name: "ppt-big", count: 1, spec: gpuPod(16) },
    ],
    GPU_SHAPE,
  );
  expect(sizing).toEqual({
    fits: false,
    message:
      "A pod of pod set ppt-big fits no instance of the group: one pod requests 16 nvidia.com/gpu and an instance has 8 (8 short).",
  });
});

test("sizeDemand: the pods allocatable bounds pods per instance when declared", () => {
  const shape = { ...GPU_SHAPE, allocatable: { ...GPU_SHAPE.allocatable, pods: "2", cpu: "1000" } };
  const sizing = sizeDemand([{ name: "s", count: 5, spec: gpuPod(0) }], shape);
  expect(sizing).toEqual({ fits: true, instances: 3, pods: 5 });
});
