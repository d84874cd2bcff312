// ioredis clients for the configured topology. Failover (Sentinel) and slot routing (Cluster) are
// ioredis's own; what is chosen here is how a client behaves while Redis is away: fail fast (no
// offline queue, short timeouts) and reconnect by itself, so REST answers 503 during an outage or a
// failover and recovers without a restart.
import type { ConnectionOptions } from "node:tls";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { Logger } from "pino";
import type { RedisSettings } from "./settings.js";

export type RedisClient = Redis | Cluster;

const TIMEOUTS = { commandTimeout: 2000, connectTimeout: 2000 } as const;

/** A demoted master answers READONLY: reconnecting asks the Sentinels for the new master. */
function reconnectOnReadOnly(err: Error): boolean {
  return err.message.startsWith("READONLY");
}

function tlsOptions(settings: RedisSettings): ConnectionOptions | undefined {
  if (!settings.tls) return undefined;
  return settings.tls.ca === undefined ? {} : { ca: settings.tls.ca };
}

/** Options every connection shares: credentials, TLS, timeouts. */
function connectionOptions(settings: RedisSettings): RedisOptions {
  const tls = tlsOptions(settings);
  return {
    ...TIMEOUTS,
    ...(settings.username !== undefined && { username: settings.username }),
    ...(settings.password !== undefined && { password: settings.password }),
    ...(tls && { tls }),
    maxRetriesPerRequest: 0,
  };
}

function create(settings: RedisSettings): RedisClient {
  const topology = settings.topology;
  const retryStrategy = (attempt: number): number => Math.min(attempt * 250, 2000);
  switch (topology.kind) {
    case "single":
      return new Redis(topology.url, {
        ...connectionOptions(settings),
        enableOfflineQueue: false,
        retryStrategy,
        // Commands issued in the same tick (concurrent REST calls' GETs) leave in one socket write,
        // replies in the same order. One server only: with a Cluster a batch can span slots that
        // move in a failover, and ioredis handles MOVED per batch, not per command (redis/ioredis
        // issue 2075): a CI run of the Cluster failover test hung with it on. Sentinel and Cluster
        // keep one write per command.
        enableAutoPipelining: true,
      });
    case "sentinel": {
      const tls = tlsOptions(settings);
      return new Redis({
        ...connectionOptions(settings),
        sentinels: topology.sentinels.map((s) => ({ host: s.host, port: s.port })),
        name: topology.master,
        role: "master",
        // Sentinels usually share the servers' credentials; a separate set is not offered (yet).
        ...(settings.username !== undefined && { sentinelUsername: settings.username }),
        ...(settings.password !== undefined && { sentinelPassword: settings.password }),
        ...(tls && { enableTLSForSentinelMode: true, sentinelTLS: tls }),
        // Listens to the Sentinels' +switch-master, so a failover is followed without waiting for
        // the old master's connection to time out.
        failoverDetector: true,
        sentinelCommandTimeout: 1000,
        enableOfflineQueue: false,
        reconnectOnError: reconnectOnReadOnly,
        retryStrategy,
        sentinelRetryStrategy: retryStrategy,
      });
    }
    case "cluster":
      return new Cluster(
        topology.nodes.map((n) => ({ host: n.host, port: n.port })),
        {
          redisOptions: connectionOptions(settings),
          enableOfflineQueue: false,
          clusterRetryStrategy: retryStrategy,
          // A failed master's slots are served again once a replica is promoted: refresh the slot
          // map often enough to notice, and retry a redirected command a few times meanwhile.
          slotsRefreshInterval: 1000,
          retryDelayOnFailover: 200,
          retryDelayOnClusterDown: 200,
          retryDelayOnTryAgain: 200,
          maxRedirections: 8,
          // Lets a dead node's connection come back when that node restarts as a replica.
          clusterNodeRetryStrategy: retryStrategy,
          scaleReads: "master",
        },
      );
  }
}

/**
 * One command to the Sentinels, the first that answers (a short-lived connection each, with the
 * servers' credentials and TLS, as the Sentinel client uses); undefined when none does.
 */
export async function askSentinels(
  settings: RedisSettings,
  ...command: [string, ...string[]]
): Promise<unknown> {
  if (settings.topology.kind !== "sentinel") return undefined;
  for (const sentinel of settings.topology.sentinels) {
    const tls = tlsOptions(settings);
    const client = new Redis({
      ...TIMEOUTS,
      host: sentinel.host,
      port: sentinel.port,
      ...(settings.username !== undefined && { username: settings.username }),
      ...(settings.password !== undefined && { password: settings.password }),
      ...(tls && { tls }),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return await client.call(...command);
    } catch {
      // the next Sentinel
    } finally {
      client.disconnect();
    }
  }
  return undefined;
}

/**
 * Closes a client for good. A Cluster client still setting up its connection re-arms its slot-map
 * refresh timer when that connection turns ready, even after `disconnect` (ioredis 6): it is
 * disconnected once more then, or that timer keeps the process alive (seen: one start-up in ten that a
 * ConfigError stopped never exited).
 */
export function closeRedisClient(client: RedisClient): void {
  if (client instanceof Cluster && client.status !== "ready")
    client.once("ready", () => {
      client.disconnect();
    });
  client.disconnect();
}

/** A client for `role` (commands, subscriber) that logs one line per outage and counts errors. */
export function redisClient(
  settings: RedisSettings,
  role: string,
  log: Logger,
  errors: { inc(): void },
): RedisClient {
  const client = create(settings);
  let down = false;
  client.on("error", (err: Error) => {
    errors.inc();
    // ioredis reports every failed reconnect; one line per outage is enough.
    if (!down) log.warn({ redis: role, err }, "redis unavailable");
    down = true;
  });
  client.on("ready", () => {
    if (down) log.info({ redis: role }, "redis available again");
    down = false;
  });
  return client;
}
