// Cluster API's replica sets of Machines as a target kind (kind.ts): a MachineDeployment's or MachineSet's
// instances are Machines (cluster-api/machines.ts, at the target's version: `memberObjects` lists them
// for instances/read.ts), and a release annotates a request's own cluster.x-k8s.io/delete-machine before
// the replicas are lowered. A MachinePool is left out: its instances are the infrastructure provider's
// (a cloud's scale set), not Machines it can be told to delete. Why capacity is missing is what the scheduler says of the target's pods (pods.ts).
import { apiGroupOf } from "../api/target-kinds.js";
import { machinesOf } from "./cluster-api/machines.js";
import type { ScalePaths, TargetKind } from "./kind.js";
import { podsCapacity } from "./pods.js";

/** Cluster API's group: its Machines live beside their MachineDeployment, at the same version. */
export const CLUSTER_API_GROUP = "cluster.x-k8s.io";

const MACHINE_KINDS: ReadonlySet<string> = new Set(["MachineDeployment", "MachineSet"]);

/** As their CRDs serve /scale, a MachinePool's too. */
const SCALE_PATHS: ScalePaths = {
  specReplicas: "spec.replicas",
  statusReplicas: "status.replicas",
  selector: "status.selector",
};

export const clusterApi: TargetKind = {
  name: "cluster-api",
  scalePaths: new Map(["MachineDeployment", "MachineSet", "MachinePool"].map((kind) => [kind, SCALE_PATHS])),
  matches: (ref) => apiGroupOf(ref.apiVersion) === CLUSTER_API_GROUP,
  identity(ref, countsNodes) {
    if (countsNodes) return { instances: "Node", mechanism: "CountOnly" };
    return MACHINE_KINDS.has(ref.kind)
      ? { instances: "Machine", mechanism: "DeleteMachineAnnotation" }
      : { instances: "Untracked" };
  },
  details: () => ({}),
  capacity: podsCapacity,
  memberObjects: machinesOf,
};
