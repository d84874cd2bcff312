// TEST INFRASTRUCTURE: the testbed's node-pool controller, a stand-in for a cloud's node-pool operator
// (see node-pool.ts). A long-running process, started by startNodePoolController:
//
//   node --import tsx testbed/node-pool-controller.ts --kubeconfig=<admin kubeconfig> [--interval-ms=1000]
//
// Every pass lists the NodePools and the Nodes, asks planNodePools (node-pool-plan.ts) what to do, and
// does it, logging one line per change. It polls (once a second) rather than watches: a poll has no
// watch to re-establish after an API-server restart, which the reliability tests cause and which
// client-go's reflectors answered with backoffs of up to 30 s (docs/testbed.md).
import { parseArgs } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { CONTROLLER_READY, NODE_POOL } from "./node-pool.js";
import { isNodePool, planNodePools, type NodePoolPlan } from "./node-pool-plan.js";
import { messageOf, pollForever, say, unless, type Report } from "./poll-loop.js";

const { values } = parseArgs({
  options: { kubeconfig: { type: "string" }, "interval-ms": { type: "string", default: "1000" } },
});
const kubeconfig = values.kubeconfig;
if (!kubeconfig) throw new Error("--kubeconfig is required");
const intervalMs = Number(values["interval-ms"]);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const pools = { group: NODE_POOL.group, version: NODE_POOL.version, plural: NODE_POOL.plural };

async function perform(plan: NodePoolPlan, report: Report): Promise<void> {
  const actions = [
    ...plan.delete.map(async ({ pool, node, reason }) => {
      const done = await core
        .deleteNode({ name: node })
        .then(() => true)
        .catch(unless(404));
      if (done) say(`deleted node ${node} (pool ${pool} ${reason})`);
    }),
    ...plan.create.map(async ({ pool, node }) => {
      const done = await core
        .createNode({ body: node })
        .then(() => true)
        .catch(unless(409));
      if (done) say(`created node ${node.metadata?.name ?? ""} for pool ${pool}`);
    }),
    ...plan.status.map(async ({ namespace, name, status }) => {
      const done = await custom
        .patchNamespacedCustomObjectStatus(
          { ...pools, namespace, name, body: { status } },
          k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
        )
        .then(() => true)
        .catch(unless(404)); // deleted meanwhile: its nodes go next pass
      if (done)
        say(
          `pool ${namespace}/${name}: ${status.replicas} node${status.replicas === 1 ? "" : "s"}, ${status.readyReplicas} ready (generation ${status.observedGeneration})`,
        );
    }),
  ];
  const failures = (await Promise.allSettled(actions)).filter((r) => r.status === "rejected");
  for (const failure of failures) report(`failed: ${messageOf(failure.reason)}`);
}

async function pass(report: Report): Promise<void> {
  // Both lists must succeed: acting on a missing NodePool list would delete every pool's nodes.
  const [poolList, nodeList] = await Promise.all([
    custom.listClusterCustomObject(pools) as Promise<{ items?: unknown[] }>,
    core.listNode(),
  ]);
  const plan = planNodePools((poolList.items ?? []).filter(isNodePool), nodeList.items);
  for (const { pool, message } of plan.problems) report(`pool ${pool} not served: ${message}`);
  await perform(plan, report);
}

await pollForever(intervalMs, CONTROLLER_READY, pass);
