// Whether the servers can hold every Operation write on --redis-min-replica-acks replicas (WAIT). A
// topology that cannot (a Cluster without replicas, a Sentinel master with none) would otherwise start,
// report ready and answer every insert 503 with a warning each; here it stops start-up with the two
// ways out. When replicas go missing at run time (a Sentinel master after a failover, until the failed
// node rejoins as a replica) it is one state: reported on /readyz, in a gauge and in one log line each
// way, for as long as it lasts.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Runnable } from "../runtime/manager.js";
import type { Gauge } from "../runtime/metrics.js";
import { askSentinels, type RedisClient } from "./clients.js";
import { infoFields } from "./info.js";
import type { RedisSettings } from "./settings.js";

/** One master (a Cluster shard, the Sentinel master or the one server) and its replicas. */
export interface MasterReplicas {
  /** How messages name it: `127.0.0.1:7000 (slots 0-5460)`, `Sentinel master "operations"`, ... */
  readonly master: string;
  /** Replicas the topology lists, connected or not (a failed one comes back). */
  readonly known: number;
  /** Replicas connected and synced now: the ones WAIT can count. */
  readonly online: number;
}

/** CLUSTER NODES: one entry per master that serves slots, with its replicas (flags `fail` = down). */
export function clusterReplicas(nodes: string): MasterReplicas[] {
  const lines = nodes
    .split(/\r?\n/)
    .map((l) => l.trim().split(" "))
    .filter((f) => f.length >= 8);
  const replicasOf = (id: string): string[][] => lines.filter((f) => f[3] === id && f[2]?.includes("slave"));
  return lines
    .filter((f) => f[2]?.split(",").includes("master") && f.length > 8)
    .map((f) => {
      const replicas = replicasOf(f[0] ?? "");
      const up = replicas.filter((r) => !/(^|,)fail\??(,|$)/.test(r[2] ?? "") && r[7] === "connected");
      const address = (f[1] ?? "").split("@")[0] ?? "";
      return {
        master: `${address} (slots ${f.slice(8).join(" ")})`,
        known: replicas.length,
        online: up.length,
      };
    })
    .sort((a, b) => a.master.localeCompare(b.master, "en", { numeric: true }));
}

/** Replicas INFO replication of a master lists, and those of them in sync (`state=online`). */
export function infoReplicas(info: string): { connected: number; online: number } {
  const replicas = [...infoFields(info)].filter(([k]) => /^slave[0-9]+$/.test(k)).map(([, v]) => v);
  return { connected: replicas.length, online: replicas.filter((v) => v.includes("state=online")).length };
}

/** The masters of the configured topology and their replicas; `withKnown` also asks the Sentinels. */
export async function readReplicas(
  client: RedisClient,
  settings: RedisSettings,
  withKnown: boolean,
): Promise<MasterReplicas[]> {
  const topology = settings.topology;
  if (topology.kind === "cluster") return clusterReplicas(String(await client.call("CLUSTER", "NODES")));
  const { connected, online } = infoReplicas(await client.info("replication"));
  if (topology.kind === "single") return [{ master: "the Redis server", known: connected, online }];
  // A master does not remember a replica that went away; the Sentinels do (flagged s_down).
  const listed = withKnown
    ? await askSentinels(settings, "SENTINEL", "REPLICAS", topology.master)
    : undefined;
  const known = Array.isArray(listed) ? Math.max(listed.length, connected) : connected;
  return [{ master: `Sentinel master "${topology.master}"`, known, online }];
}

const FLAG = "--redis-min-replica-acks";
const replicas = (n: number): string => `${n} replica${n === 1 ? "" : "s"}`;

function listShort(masters: readonly MasterReplicas[], count: (m: MasterReplicas) => number): string {
  return masters.map((m) => `${m.master} has ${replicas(count(m))}`).join(", ");
}

/** The start-up refusal: masters whose topology lists fewer replicas than every write needs. */
export function unmeetable(minAcks: number, masters: readonly MasterReplicas[]): string | undefined {
  const short = masters.filter((m) => m.known < minAcks);
  if (minAcks === 0 || short.length === 0) return undefined;
  return (
    `${FLAG}=${minAcks} (REDIS_MIN_REPLICA_ACKS) cannot be met: every Operation write must reach ` +
    `${replicas(minAcks)}, but ${listShort(short, (m) => m.known)}. Either give every master at least ` +
    `${replicas(minAcks)}, or set ${FLAG}=0 to acknowledge writes the master alone holds (an ` +
    "acknowledged Operation can then be lost in a failover)"
  );
}

/** The run-time state: masters with fewer replicas in sync than the setting. */
export function unmet(minAcks: number, masters: readonly MasterReplicas[]): string | undefined {
  const short = masters.filter((m) => m.online < minAcks);
  if (minAcks === 0 || short.length === 0) return undefined;
  return (
    `${FLAG}=${minAcks} cannot be met now: ${listShort(short, (m) => m.online)} in sync; inserts and ` +
    "deletes of their projects answer 503 until a replica is back"
  );
}

export interface ReplicaWatchOptions {
  readonly log: Logger;
  /** Masters short of replicas (0 when every write can be acknowledged). */
  readonly shortMasters: Gauge;
  readonly intervalMs?: number;
}

/** Re-reads the replicas on every operator replica; `problem()` feeds /readyz. */
export class ReplicaWatch implements Runnable {
  readonly name = "redis-replicas";
  private current: string | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly settings: RedisSettings,
    private readonly options: ReplicaWatchOptions,
  ) {}

  problem(): string | undefined {
    return this.current;
  }

  /** The /readyz reason while the state lasts. */
  notReady(): string[] {
    return this.current === undefined ? [] : [`redis replicas: ${this.current}`];
  }

  async check(): Promise<void> {
    const minAcks = this.settings.minReplicaAcks;
    // Redis being away is reported as such (`redis unavailable`); this is about a reachable one.
    if (minAcks === 0 || this.client.status !== "ready") return;
    let masters: MasterReplicas[];
    try {
      masters = await readReplicas(this.client, this.settings, false);
    } catch {
      return;
    }
    this.options.shortMasters.set(masters.filter((m) => m.online < minAcks).length);
    const problem = unmet(minAcks, masters);
    if (problem === this.current) return;
    if (problem) this.options.log.warn({ minReplicaAcks: minAcks }, `redis replicas: ${problem}`);
    else this.options.log.info({ minReplicaAcks: minAcks }, "redis replicas: every master has enough again");
    this.current = problem;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.check();
      await sleep(this.options.intervalMs ?? 5000, undefined, { signal }).catch(() => undefined);
    }
  }
}
