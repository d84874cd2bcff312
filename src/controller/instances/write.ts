// Carries out the instance side of a plan (view.ts decides it): labels and annotations merged into a
// request's instances (a Node, a NodeClaim, a pod of the group's namespace), and the deletion of exactly
// a request's NodeClaims before its pool is lowered. All idempotent, so a pass that ends early (a
// conflict, a crash) is simply decided and done again. An object already gone is not an error: there
// is nothing left to label or remove.
import { isNotFound } from "../../runtime/api-errors.js";
import { NODES, PODS } from "../../runtime/builtin-kinds.js";
import type { KubeClient, MergePatch } from "../../runtime/resource-client.js";
import { NODE_CLAIMS } from "../karpenter.js";
import type { InstanceWrite } from "./view.js";

const ignoreGone = (err: unknown): undefined => {
  if (isNotFound(err)) return undefined;
  throw err;
};

function patchOne(client: KubeClient, namespace: string, w: InstanceWrite): Promise<unknown> {
  const patch: MergePatch = {
    metadata: { ...(w.labels && { labels: w.labels }), ...(w.annotations && { annotations: w.annotations }) },
  };
  if (w.kind === "Pod") return client.resource(PODS).mergePatch({ namespace, name: w.name }, patch);
  const resource = w.kind === "Node" ? client.resource(NODES) : client.resource(NODE_CLAIMS);
  return resource.mergePatch({ name: w.name }, patch);
}

export async function writeInstances(
  client: KubeClient,
  namespace: string,
  writes: readonly InstanceWrite[],
): Promise<void> {
  await Promise.all(writes.map((w) => patchOne(client, namespace, w).then(() => undefined, ignoreGone)));
}

export async function deleteNodeClaims(client: KubeClient, names: readonly string[]): Promise<void> {
  const claims = client.resource(NODE_CLAIMS);
  await Promise.all(names.map((name) => claims.delete({ name }).then(() => undefined, ignoreGone)));
}
