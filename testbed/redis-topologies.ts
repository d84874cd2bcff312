// Replicated Redis topologies for tests, from Debian's redis-server and redis-cli on free loopback
// ports: a master with two replicas watched by three Sentinels, and a 3-master/3-replica Cluster.
// Tests start the one they need, kill members (SIGKILL: a crash) and restart them on the same port and
// data folder, as a pod restart would.
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import {
  freePort,
  signal,
  startProcess,
  stopProcess,
  tail,
  waitFor,
  type ManagedProcess,
} from "./processes.js";
import { redisServerBinary, startRedis, stopRedis, type RedisServer } from "./redis.js";

const run = promisify(execFile);
export const SENTINEL_MASTER = "operations";

/** One command on a short-lived connection (ioredis, no retries); undefined when it fails. */
export async function command(port: number, ...args: string[]): Promise<unknown> {
  const client = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
    commandTimeout: 2000,
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return await client.call(args[0] ?? "PING", ...args.slice(1));
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/** Replicas of a master that finished their initial sync (WAIT counts only those). */
async function onlineReplicas(port: number): Promise<number> {
  const fields = await info(port, "replication");
  return [...fields.entries()].filter(([k, v]) => /^slave[0-9]+$/.test(k) && v.includes("state=online"))
    .length;
}

async function info(port: number, section: string): Promise<Map<string, string>> {
  const text = await command(port, "INFO", section);
  const fields = new Map<string, string>();
  for (const line of typeof text === "string" ? text.split(/\r?\n/) : []) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** A member of a topology that can crash and come back. */
export class Member {
  constructor(
    private server: RedisServer,
    private readonly dir: string,
    private readonly args: readonly string[],
  ) {}
  get port(): number {
    return this.server.port;
  }
  get process(): ManagedProcess {
    return this.server.process;
  }
  /** SIGKILL: no shutdown, no final save. */
  async kill(): Promise<void> {
    signal(this.server.process, "SIGKILL");
    await waitFor(`redis ${this.port} gone`, async () => !(await command(this.port, "PING")), 10_000);
  }
  async restart(): Promise<void> {
    this.server = await startRedis({ dir: this.dir, port: this.port, appendOnly: true, args: this.args });
  }
  async stop(): Promise<void> {
    await stopRedis(this.server);
  }
}

async function member(dir: string, args: readonly string[], port?: number): Promise<Member> {
  const server = await startRedis({ dir, appendOnly: true, args, ...(port !== undefined && { port }) });
  return new Member(server, dir, args);
}

export interface SentinelSet {
  readonly servers: Member[];
  readonly sentinels: ManagedProcess[];
  readonly sentinelPorts: number[];
  /** `--redis-sentinels` value. */
  readonly sentinelsFlag: string;
  /** The port of the current master, as the Sentinels see it. */
  masterPort(): Promise<number | undefined>;
  /** Waits until the master has two synced replicas and every Sentinel knows them all. */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Master, two replicas, three Sentinels (quorum 2); a dead master is failed over within ~2s. */
export async function startSentinelSet(dir: string): Promise<SentinelSet> {
  mkdirSync(dir, { recursive: true });
  const master = await member(dir, []);
  const replicaArgs = ["--replicaof", "127.0.0.1", String(master.port)];
  const servers = [master, await member(dir, replicaArgs), await member(dir, replicaArgs)];
  const sentinelPorts: number[] = [];
  const sentinels: ManagedProcess[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const conf = path.join(dir, `sentinel-${port}.conf`);
    // Sentinel rewrites its own configuration file: it must be a writable file of its own.
    writeFileSync(
      conf,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_MASTER} 127.0.0.1 ${master.port} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER} 1000`,
        `sentinel failover-timeout ${SENTINEL_MASTER} 5000`,
        `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
        "",
      ].join("\n"),
    );
    sentinels.push(startProcess(`sentinel-${port}`, redisServerBinary(), [conf, "--sentinel"], dir));
    sentinelPorts.push(port);
  }
  const masterPort = async (): Promise<number | undefined> => {
    for (const port of sentinelPorts) {
      const reply = await command(port, "SENTINEL", "get-master-addr-by-name", SENTINEL_MASTER);
      if (Array.isArray(reply) && typeof reply[1] === "string") return Number(reply[1]);
    }
    return undefined;
  };
  const healthy = async (timeoutMs = 30_000): Promise<void> =>
    waitFor(
      "sentinels that know the master, both replicas and each other",
      async () => {
        for (const port of sentinelPorts) {
          const replicas = await command(port, "SENTINEL", "replicas", SENTINEL_MASTER);
          const peers = await command(port, "SENTINEL", "sentinels", SENTINEL_MASTER);
          if (!Array.isArray(replicas) || replicas.length < 2 || !Array.isArray(peers) || peers.length < 2)
            return false;
        }
        const port = await masterPort();
        return port !== undefined && (await onlineReplicas(port)) === 2;
      },
      timeoutMs,
      () => sentinels.map((s) => tail(s.log, 10)).join("\n"),
    );
  await healthy();
  return {
    servers,
    sentinels,
    sentinelPorts,
    sentinelsFlag: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(","),
    masterPort,
    healthy,
    async stop() {
      await Promise.all([...sentinels.map((s) => stopProcess(s)), ...servers.map((s) => s.stop())]);
    },
  };
}

export interface RedisClusterSet {
  readonly nodes: Member[];
  /** `--redis-cluster-nodes` value (every node; any one would do). */
  readonly nodesFlag: string;
  /** Ports of the nodes that are masters now. */
  masters(): Promise<number[]>;
  /** The port of the master serving the slot of `key` (e.g. a hash tag `{project}`). */
  masterOf(key: string): Promise<number | undefined>;
  /** Waits until every slot is served and every master has a connected replica. */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Three masters with one replica each, created with `redis-cli --cluster create`. */
export async function startRedisCluster(dir: string): Promise<RedisClusterSet> {
  mkdirSync(dir, { recursive: true });
  const args = [
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    "nodes.conf",
    "--cluster-node-timeout",
    "2000",
  ];
  const nodes: Member[] = [];
  // The cluster bus defaults to port + 10000, which nothing reserved: each node gets a free one.
  for (let i = 0; i < 6; i++)
    nodes.push(await member(dir, [...args, "--cluster-port", String(await freePort())]));
  await run("redis-cli", [
    "--cluster",
    "create",
    ...nodes.map((n) => `127.0.0.1:${n.port}`),
    "--cluster-replicas",
    "1",
    "--cluster-yes",
  ]);
  const masters = async (): Promise<number[]> => {
    const ports: number[] = [];
    for (const node of nodes) {
      if ((await info(node.port, "replication")).get("role") === "master") ports.push(node.port);
    }
    return ports;
  };
  const healthy = async (timeoutMs = 60_000): Promise<void> =>
    waitFor(
      "a cluster with every slot served and a replica per master",
      async () => {
        for (const node of nodes) {
          if ((await info(node.port, "cluster")).size === 0) return false;
          const state = await command(node.port, "CLUSTER", "INFO");
          if (typeof state !== "string" || !state.includes("cluster_state:ok")) return false;
        }
        const up = await masters();
        if (up.length !== 3) return false;
        for (const port of up) {
          if ((await onlineReplicas(port)) !== 1) return false;
        }
        return true;
      },
      timeoutMs,
    );
  await healthy();
  const masterOf = async (key: string): Promise<number | undefined> => {
    for (const node of nodes) {
      const slot = Number(await command(node.port, "CLUSTER", "KEYSLOT", key));
      const slots = await command(node.port, "CLUSTER", "SLOTS");
      if (!Array.isArray(slots)) continue;
      for (const range of slots as [number, number, [string, number]][]) {
        if (slot >= range[0] && slot <= range[1]) return range[2][1];
      }
    }
    return undefined;
  };
  return {
    nodes,
    nodesFlag: nodes.map((n) => `127.0.0.1:${n.port}`).join(","),
    masters,
    masterOf,
    healthy,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}
