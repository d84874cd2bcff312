// Cluster API's Machines as the operator reads and writes them: a MachineDeployment's or MachineSet's
// instances (kinds.ts). Only metadata and the Ready condition are read. Machines are addressed at their
// MachineDeployment's own API version (v1beta2 on Cluster API 1.11 and later, v1beta1 before): both
// carry the Ready condition in status.conditions, and labels and annotations are the same everywhere.
import { z } from "zod";
import { ObjectCondition, ObjectMeta } from "../../runtime/builtin-kinds.js";
import type { ResourceKind } from "../../runtime/resource-kind.js";

export const Machine = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMeta.optional(),
  status: z.looseObject({ conditions: z.array(ObjectCondition).optional() }).optional(),
});
export type Machine = z.infer<typeof Machine>;

/** The Machines beside a target at `apiVersion` (cluster.x-k8s.io/<version>). */
export function machinesAt(apiVersion: string): ResourceKind<Machine> {
  return { apiVersion, kind: "Machine", resource: "machines", namespaced: true, schema: Machine };
}
