// TEST INFRASTRUCTURE: the testbed's node-pool controller, a stand-in for a cloud's node-pool operator
// (see node-pool.ts). A long-running process, started by startNodePoolController:
//
//   node --import tsx testbed/node-pool-controller.ts --kubeconfig=<admin kubeconfig> [--interval-ms=1000]
//
// Every pass lists the NodePools and the Nodes, asks planNodePools (node-pool-plan.ts) what to do, and
// does it, logging one line per change. It polls (once a second) rather than watches: a poll has no
// watch to re-establish after an API-server restart, which the reliability tests cause and which
// client-go's reflectors answered with backoffs of up to 30 s (docs/testbed.md).
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { CONTROLLER_READY, NODE_POOL } from "./node-pool.js";
import { isNodePool, planNodePools, type NodePoolPlan } from "./node-pool-plan.js";

const { values } = parseArgs({
  options: { kubeconfig: { type: "string" }, "interval-ms": { type: "string", default: "1000" } },
});
const kubeconfig = values.kubeconfig;
if (!kubeconfig) throw new Error("--kubeconfig is required");
const intervalMs = Number(values["interval-ms"]);
/** A pass that takes longer (an API server that accepted a connection and went away) is given up. */
const PASS_TIMEOUT_MS = 15_000;

const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const pools = { group: NODE_POOL.group, version: NODE_POOL.version, plural: NODE_POOL.plural };

const say = (line: string): void => {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
};

/**
 * Failures and problems are logged when they first appear, not once a second for as long as they last:
 * `current` collects this pass's, `previous` holds the last pass's.
 */
let previous = new Set<string>();
let current = new Set<string>();
const report = (line: string): void => {
  current.add(line);
  if (!previous.has(line)) say(line);
};

const messageOf = (err: unknown): string =>
  err instanceof k8s.ApiException
    ? `${err.code} ${(err.body as { message?: string } | undefined)?.message ?? String(err.body)}`
    : err instanceof Error
      ? err.message
      : String(err);

/** The API server's answer `code` (404 of a delete, 409 of a create) means the work is already done. */
const unless = (code: number) => (err: unknown) => {
  if (err instanceof k8s.ApiException && err.code === code) return false;
  throw err;
};

async function perform(plan: NodePoolPlan): Promise<void> {
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

async function pass(): Promise<void> {
  // Both lists must succeed: acting on a missing NodePool list would delete every pool's nodes.
  const [poolList, nodeList] = await Promise.all([
    custom.listClusterCustomObject(pools) as Promise<{ items?: unknown[] }>,
    core.listNode(),
  ]);
  const plan = planNodePools((poolList.items ?? []).filter(isNodePool), nodeList.items);
  for (const { pool, message } of plan.problems) report(`pool ${pool} not served: ${message}`);
  await perform(plan);
}

let ready = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    say(`stopping (${signal})`);
    process.exit(0);
  });
}
say(`started (pid ${process.pid}, every ${intervalMs} ms)`);
for (;;) {
  const started = Date.now();
  current = new Set();
  const timer = new AbortController();
  try {
    await Promise.race([
      pass(),
      sleep(PASS_TIMEOUT_MS, undefined, { signal: timer.signal }).then(() => {
        throw new Error(`a pass took over ${PASS_TIMEOUT_MS / 1000}s`);
      }),
    ]);
    if (!ready) say(CONTROLLER_READY);
    ready = true;
  } catch (err) {
    report(`pass failed: ${messageOf(err)}`);
  } finally {
    timer.abort();
  }
  previous = current;
  await sleep(Math.max(0, intervalMs - (Date.now() - started)));
}
