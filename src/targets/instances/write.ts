// Carries out the instance side of a plan (view.ts decides it): labels and annotations merged into a
// request's instances (a Node, a NodeClaim, a pod or a Machine of the group's namespace), and the deletion of exactly
// a request's NodeClaims before its pool is lowered. All idempotent, so a pass that ends early (a
// conflict, a crash) is simply decided and done again. An object already gone is not an error: there
// is nothing left to label or remove.
import { isNotFound } from "../../runtime/api-errors.js";
import { NODES, PODS } from "../../runtime/builtin-kinds.js";
import type { KubeClient, MergePatch } from "../../runtime/resource-client.js";
import { NODE_CLAIMS } from "../karpenter/launches.js";
import { machinesAt } from "../cluster-api/machines.js";
import type { InstanceWrite } from "./view.js";

const ignoreGone = (err: unknown): undefined => {
  if (isNotFound(err)) return undefined;
  throw err;
};

/** Where the group's namespaced instances live: its namespace, and its target's API version (Machines). */
export interface InstancesHome {
  readonly namespace: string;
  readonly targetApiVersion: string;
}

function patchOne(client: KubeClient, home: InstancesHome, w: InstanceWrite): Promise<unknown> {
  const patch: MergePatch = {
    metadata: { ...(w.labels && { labels: w.labels }), ...(w.annotations && { annotations: w.annotations }) },
  };
  const at = { namespace: home.namespace, name: w.name };
  if (w.kind === "Pod") return client.resource(PODS).mergePatch(at, patch);
  if (w.kind === "Machine") return client.resource(machinesAt(home.targetApiVersion)).mergePatch(at, patch);
  const resource = w.kind === "Node" ? client.resource(NODES) : client.resource(NODE_CLAIMS);
  return resource.mergePatch({ name: w.name }, patch);
}

export async function writeInstances(
  client: KubeClient,
  home: InstancesHome,
  writes: readonly InstanceWrite[],
): Promise<void> {
  await Promise.all(writes.map((w) => patchOne(client, home, w).then(() => undefined, ignoreGone)));
}

export async function deleteNodeClaims(client: KubeClient, names: readonly string[]): Promise<void> {
  const claims = client.resource(NODE_CLAIMS);
  await Promise.all(names.map((name) => claims.delete({ name }).then(() => undefined, ignoreGone)));
}
