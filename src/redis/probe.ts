// The start-up check of the configured topology against the servers it reaches. A wrong topology
// (a Cluster node given as --redis-url, a replica as the master) would otherwise surface as an error
// on every REST call; here it stops start-up with a message naming the right flag.
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { RedisClient } from "./clients.js";
import { infoFields } from "./info.js";
import { readReplicas, unmeetable, type MasterReplicas } from "./replicas.js";
import { RedisConfigError, type RedisSettings } from "./settings.js";

/** A Redis URL without its password, for messages. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "redacted";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(unparsable URL)";
  }
}

/** What is wrong with `info` (INFO's text) as the server of `settings`, or undefined. */
export function topologyProblem(settings: RedisSettings, info: string): string | undefined {
  const fields = infoFields(info);
  const topology = settings.topology;
  if (topology.kind === "single" && fields.get("cluster_enabled") === "1")
    return (
      `--redis-url ${displayUrl(topology.url)} is a Redis Cluster node: give the cluster's nodes with ` +
      `--redis-cluster-nodes host:port,… (REDIS_CLUSTER_NODES) instead`
    );
  if (topology.kind === "single" && fields.get("role") === "slave")
    return (
      `--redis-url ${displayUrl(topology.url)} is a read-only replica: point it at the master, or use ` +
      `--redis-sentinels with --redis-sentinel-master so that failovers are followed`
    );
  return undefined;
}

const isReady = (client: RedisClient): boolean => client.status === "ready";

/** Redis refusing the credentials: retrying cannot help, so start-up stops. */
export function credentialsProblem(message: string): string | undefined {
  return /^(WRONGPASS|NOAUTH)\b/.test(message)
    ? `Redis refused the credentials (${message.split(/[.\n]/)[0] ?? message}): check --redis-username, ` +
        "REDIS_PASSWORD or --redis-password-file"
    : undefined;
}

/** Waits for the client to be ready; a credentials refusal meanwhile is thrown at once. */
async function untilReady(client: RedisClient, timeoutMs: number): Promise<boolean> {
  if (isReady(client)) return true;
  const abort = new AbortController();
  let refused: string | undefined;
  const onError = (err: Error): void => {
    refused ??= credentialsProblem(err.message);
    if (refused) abort.abort();
  };
  client.on("error", onError);
  try {
    await Promise.race([
      once(client, "ready", { signal: abort.signal }).catch(() => undefined),
      sleep(timeoutMs, undefined, { signal: abort.signal }).catch(() => undefined),
    ]);
  } finally {
    abort.abort();
    client.off("error", onError);
  }
  if (refused) throw new RedisConfigError(refused);
  return isReady(client);
}

/**
 * Throws a RedisConfigError when the servers contradict the configured topology, or list fewer
 * replicas than --redis-min-replica-acks needs (replicas/unmeetable). Redis being unreachable is not a
 * configuration error: the operator starts, /readyz says so, and REST answers 503.
 */
export async function checkTopology(
  client: RedisClient,
  settings: RedisSettings,
  timeoutMs: number,
): Promise<"checked" | "unreachable"> {
  if (!(await untilReady(client, timeoutMs))) return "unreachable";
  // A Cluster client would send INFO to any node; the single and Sentinel clients to the master.
  if (settings.topology.kind !== "cluster") {
    let info: string;
    try {
      info = await client.info();
    } catch {
      return "unreachable";
    }
    const problem = topologyProblem(settings, info);
    if (problem) throw new RedisConfigError(problem);
  }
  if (settings.minReplicaAcks === 0) return "checked";
  let masters: MasterReplicas[];
  try {
    masters = await readReplicas(client, settings, true);
  } catch {
    return "unreachable";
  }
  const problem = unmeetable(settings.minReplicaAcks, masters);
  if (problem) throw new RedisConfigError(problem);
  return "checked";
}
