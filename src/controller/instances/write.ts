// Carries out the instance side of a plan (view.ts decides it): label writes that make instances a
// request's own, and the deletion of exactly a request's NodeClaims before its pool is lowered. Both are
// idempotent, so a pass that ends early (a conflict, a crash) is simply decided and done again. An
// object already gone is not an error: there is nothing left to label or remove.
import { isNotFound } from "../../runtime/api-errors.js";
import { NODES } from "../../runtime/builtin-kinds.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import { NODE_CLAIMS } from "../karpenter.js";
import type { InstanceLabelWrite } from "./view.js";

const ignoreGone = (err: unknown): undefined => {
  if (isNotFound(err)) return undefined;
  throw err;
};

export async function writeInstanceLabels(
  client: KubeClient,
  writes: readonly InstanceLabelWrite[],
): Promise<void> {
  await Promise.all(
    writes.map((w) =>
      (w.kind === "Node" ? client.resource(NODES) : client.resource(NODE_CLAIMS))
        .mergePatch({ name: w.name }, { metadata: { labels: w.labels } })
        .then(() => undefined, ignoreGone),
    ),
  );
}

export async function deleteNodeClaims(client: KubeClient, names: readonly string[]): Promise<void> {
  const claims = client.resource(NODE_CLAIMS);
  await Promise.all(names.map((name) => claims.delete({ name }).then(() => undefined, ignoreGone)));
}
