// REST insert throughput per Redis topology, in one run: the same operator build and load against one
// redis-server, a Sentinel set (master, two replicas, three Sentinels) and a 3-master/3-replica
// Cluster, all real and on this machine. Each insert (a fresh requestId and name) records its
// Operation with a Lua script and, with Sentinel and Cluster, waits for one replica (WAIT), then
// creates the request in the API server. Reported as inserts per second and as a ratio to one server.
import { randomUUID } from "node:crypto";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeHttp } from "../src/runtime/kube-http.js";
import { startRedis, stopRedis } from "../testbed/redis.js";
import { SENTINEL_MASTER, startRedisCluster, startSentinelSet } from "../testbed/redis-topologies.js";
import {
  createGroupWithTarget,
  installCrds,
  kubeConfig,
  log,
  machine,
  namespace,
  report,
  round,
  rrPath,
  serviceAccountToken,
  startOperator,
  untilReady,
  workDir,
} from "./lib.js";

const CONNECTIONS = 8;
const SECONDS = 10;

interface Rate {
  readonly insertsPerSecond: number;
  readonly errors: number;
}

/** Inserts from CONNECTIONS concurrent clients for SECONDS against an operator on `flags`. */
async function insertRate(
  cli: string,
  http: KubeHttp,
  topology: string,
  flags: readonly string[],
): Promise<Rate> {
  const ns = await namespace(http, `bench-insert-${topology}`);
  await createGroupWithTarget(http, ns.name, "g");
  const token = await serviceAccountToken(http, ns.name, "writer", [
    {
      apiGroups: ["compute.resize-operator.dev"],
      resources: ["resizerequests"],
      verbs: ["get", "list", "create"],
    },
    {
      apiGroups: ["compute.resize-operator.dev"],
      resources: ["instancegroupmanagers"],
      verbs: ["get", "list", "use"],
    },
  ]);
  const op = await startOperator(cli, { name: `insert-${topology}`, namespace: ns.name, args: flags });
  try {
    await untilReady(op);
    const url = `http://127.0.0.1:${op.httpPort}/compute/v1/projects/${ns.name}/zones/local-a/instanceGroupManagers/g/resizeRequests`;
    const insert = async (name: string): Promise<number> => {
      const res = await fetch(`${url}?requestId=${randomUUID()}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name, resizeBy: 1 }),
      });
      await res.arrayBuffer();
      return res.status;
    };
    // Warm-up (token and RBAC caches, script cache), not counted.
    if ((await insert("warm-up")) !== 200) throw new Error(`warm-up insert failed; see ${op.log}`);
    log(`redis-topologies: ${topology}, ${CONNECTIONS} clients for ${SECONDS} s`);
    let next = 0;
    let ok = 0;
    let errors = 0;
    const deadline = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < deadline) {
          if ((await insert(`r${next++}`)) === 200) ok++;
          else errors++;
        }
      }),
    );
    return { insertsPerSecond: ok / SECONDS, errors };
  } finally {
    // The requests go first, while the operator runs and their group and target still exist: the one in
    // an attempt holds the operator's finalizer (its target never becomes ready here) until the
    // operator has rolled its attempt back, as a user's cleanup would have it.
    try {
      await http.request("DELETE", rrPath(ns.name));
      for (let i = 0; i < 600; i++) {
        const left = (await http.request("GET", rrPath(ns.name))) as { items: unknown[] };
        if (left.items.length === 0) break;
        await sleep(100);
      }
      await ns.remove();
    } finally {
      await op.stop();
    }
  }
}

export async function redisTopologies(cli: string): Promise<void> {
  const http = new KubeHttp(kubeConfig());
  await installCrds(http);
  const dir = path.join(workDir, `redis-topologies-${Date.now()}`);
  const single = await startRedis({ dir: path.join(dir, "single"), appendOnly: true });
  const sentinel = await startSentinelSet(path.join(dir, "sentinel"));
  const cluster = await startRedisCluster(path.join(dir, "cluster"));
  try {
    const rates = {
      single: await insertRate(cli, http, "single", [`--redis-url=${single.url}`]),
      sentinel: await insertRate(cli, http, "sentinel", [
        `--redis-sentinels=${sentinel.sentinelsFlag}`,
        `--redis-sentinel-master=${SENTINEL_MASTER}`,
      ]),
      cluster: await insertRate(cli, http, "cluster", [`--redis-cluster-nodes=${cluster.nodesFlag}`]),
    };
    report({
      bench: "rest-insert-topologies",
      connections: CONNECTIONS,
      seconds: SECONDS,
      singleInsertsPerSecond: round(rates.single.insertsPerSecond, 1),
      sentinelInsertsPerSecond: round(rates.sentinel.insertsPerSecond, 1),
      clusterInsertsPerSecond: round(rates.cluster.insertsPerSecond, 1),
      errors: rates.single.errors + rates.sentinel.errors + rates.cluster.errors,
      sentinelRatio: round(rates.sentinel.insertsPerSecond / rates.single.insertsPerSecond),
      clusterRatio: round(rates.cluster.insertsPerSecond / rates.single.insertsPerSecond),
      machine: machine(),
    });
  } finally {
    await Promise.all([stopRedis(single), sentinel.stop(), cluster.stop()]);
  }
}
