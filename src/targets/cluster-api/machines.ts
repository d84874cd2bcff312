// Cluster API's Machines as the operator reads and writes them: a MachineDeployment's or MachineSet's
// instances (instances/kinds.ts). Only metadata and the Ready condition are read. Machines are addressed
// at their MachineDeployment's own API version (v1beta2 on Cluster API 1.11 and later, v1beta1 before):
// both carry the Ready condition in status.conditions, and labels and annotations are the same everywhere.
import { z } from "zod";
import { isForbidden } from "../../runtime/api-errors.js";
import { ObjectCondition, ObjectMeta } from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import type { ResourceKind } from "../../runtime/resource-kind.js";
import type { MemberObject, TargetRef } from "../kind.js";

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

/**
 * The target's Machines, by the selector its /scale reports (one list call). Without permission to list
 * Machines (a chart without the Cluster API rules), undefined: the group stays count-only.
 */
export async function machinesOf(q: {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly ref: TargetRef;
  readonly selector: string;
}): Promise<readonly MemberObject[] | undefined> {
  try {
    return (
      await q.client
        .resource(machinesAt(q.ref.apiVersion))
        .list({ namespace: q.namespace, labelSelector: q.selector })
    ).items;
  } catch (err) {
    if (isForbidden(err)) return undefined;
    throw err;
  }
}
