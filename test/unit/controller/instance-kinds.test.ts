// Which kinds' instances are told apart, and the group's InstanceIdentity condition for each.
import { identityCondition } from "../../../src/targets/instances/kinds.js";
import { identityOf } from "../../../src/targets/index.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import { group, snap } from "./builders.js";

test.each([
  { ref: { apiVersion: "karpenter.sh/v1", kind: "NodePool" }, nodes: true, want: "Node DeleteNodeClaims" },
  { ref: { apiVersion: "example.com/v1", kind: "GpuPool" }, nodes: true, want: "Node CountOnly" },
  { ref: { apiVersion: "apps/v1", kind: "Deployment" }, nodes: false, want: "Pod PodDeletionCost" },
  { ref: { apiVersion: "apps/v1", kind: "ReplicaSet" }, nodes: false, want: "Pod PodDeletionCost" },
  { ref: { apiVersion: "apps/v1", kind: "StatefulSet" }, nodes: false, want: "Pod HighestOrdinals" },
  { ref: { apiVersion: "apps/v1", kind: "StatefulSet" }, nodes: true, want: "Node CountOnly" },
  {
    ref: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "MachineDeployment" },
    nodes: false,
    want: "Machine DeleteMachineAnnotation",
  },
  {
    ref: { apiVersion: "cluster.x-k8s.io/v1beta1", kind: "MachineSet" },
    nodes: false,
    want: "Machine DeleteMachineAnnotation",
  },
  // A MachinePool's instances are its infrastructure provider's scale set, not deletable Machines.
  { ref: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "MachinePool" }, nodes: false, want: "Untracked" },
  { ref: { apiVersion: "example.com/v1", kind: "MachineDeployment" }, nodes: false, want: "Untracked" },
  { ref: { apiVersion: "example.com/v1", kind: "Deployment" }, nodes: false, want: "Untracked" },
])("$ref.kind ($ref.apiVersion), counted from Nodes: $nodes → $want", ({ ref, nodes, want }) => {
  const identity = identityOf(ref, nodes);
  expect(
    identity.instances === "Untracked" ? "Untracked" : `${identity.instances} ${identity.mechanism}`,
  ).toBe(want);
  const condition = identityCondition(identity, `${ref.kind}/x`);
  expect(condition.status).toBe(
    ["DeleteNodeClaims", "PodDeletionCost", "DeleteMachineAnnotation"].some((m) => want.endsWith(m))
      ? "True"
      : "False",
  );
  const reasons: Record<string, string> = { HighestOrdinals: "LastInFirstOut", Untracked: "CountOnly" };
  expect(condition.reason).toBe(
    condition.status === "True" ? "OwnInstances" : (reasons[want.split(" ").pop() ?? ""] ?? "CountOnly"),
  );
  expect(condition.message).toContain(`${ref.kind}/x`);
  const says: Record<string, string> = {
    DeleteNodeClaims: "NodeClaims are deleted",
    PodDeletionCost: "pod-deletion-cost",
    DeleteMachineAnnotation: "cluster.x-k8s.io/delete-machine",
    HighestOrdinals: "highest ordinals first",
    CountOnly: "its own controller chooses",
    Untracked: "not told apart",
  };
  expect(condition.message).toContain(says[want.split(" ").pop() ?? ""]);
});

test("the group's status carries InstanceIdentity when its identity is known", () => {
  const s = snap({
    group: { ...group(), identity: identityOf({ apiVersion: "apps/v1", kind: "Deployment" }, false) },
  });
  const conditions = decide(s).groupStatus?.conditions ?? [];
  expect(conditions.find((c) => c.type === "InstanceIdentity")).toMatchObject({
    status: "True",
    reason: "OwnInstances",
  });
});
