// Which Redis the Operations live in, from the validated flags: exactly one topology (one server,
// Sentinel or Cluster), its credentials and TLS, and how many replicas must hold a write before REST
// acknowledges it. Cross-flag rules live here because each flag alone is valid.
import { readFileSync } from "node:fs";

/** A Redis setting that contradicts another or the servers; start-up stops with its message. */
export class RedisConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RedisConfigError";
  }
}

/** The validated flags this module reads (a slice of the operator's Config). */
export interface RedisFlags {
  readonly "redis-url"?: string | undefined;
  readonly "redis-sentinels"?: string | undefined;
  readonly "redis-sentinel-master"?: string | undefined;
  readonly "redis-cluster-nodes"?: string | undefined;
  readonly "redis-username"?: string | undefined;
  readonly "redis-password-file"?: string | undefined;
  readonly "redis-tls": boolean;
  readonly "redis-tls-ca-file"?: string | undefined;
  readonly "redis-min-replica-acks"?: number | undefined;
  readonly "redis-replica-ack-timeout": number;
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export type RedisTopology =
  | { readonly kind: "single"; readonly url: string }
  | { readonly kind: "sentinel"; readonly sentinels: readonly HostPort[]; readonly master: string }
  | { readonly kind: "cluster"; readonly nodes: readonly HostPort[] };

export interface RedisSettings {
  readonly topology: RedisTopology;
  readonly username?: string;
  /** Never logged: createLogger (observability/logger.ts) redacts `password`, and nothing else prints these settings. */
  readonly password?: string;
  /** TLS on; `ca` replaces the system's CAs when given. */
  readonly tls?: { readonly ca?: string };
  readonly minReplicaAcks: number;
  readonly replicaAckTimeoutMs: number;
}

/** `host:port,host:port` (IPv6 as `[::1]:6379`); the flag name goes into the error. */
export function parseHostPorts(text: string, flag: string): HostPort[] {
  const items = text
    .split(",")
    .map((i) => i.trim())
    .filter((i) => i !== "");
  if (items.length === 0) throw new RedisConfigError(`--${flag}: expected host:port[,host:port…]`);
  return items.map((item) => {
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(item);
    const port = Number(match?.[3]);
    const host = match?.[1] ?? match?.[2];
    if (!host || !(port > 0 && port < 65536))
      throw new RedisConfigError(`--${flag}: expected host:port, got '${item}'`);
    return { host, port };
  });
}

export interface SettingsSources {
  readonly env: NodeJS.ProcessEnv;
  readonly readFile?: (file: string) => string;
}

/** The Redis settings, or undefined when no topology is configured (REST off). */
export function redisSettings(config: RedisFlags, sources: SettingsSources): RedisSettings | undefined {
  const url = config["redis-url"];
  const sentinels = config["redis-sentinels"];
  const master = config["redis-sentinel-master"];
  const nodes = config["redis-cluster-nodes"];
  const given = [
    url !== undefined && "--redis-url",
    sentinels !== undefined && "--redis-sentinels",
    nodes !== undefined && "--redis-cluster-nodes",
  ].filter((g): g is string => g !== false);
  if (given.length > 1)
    throw new RedisConfigError(`give exactly one Redis topology; got ${given.join(" and ")}`);
  if (master !== undefined && sentinels === undefined)
    throw new RedisConfigError("--redis-sentinel-master needs --redis-sentinels");
  if (sentinels !== undefined && master === undefined)
    throw new RedisConfigError(
      "--redis-sentinels needs --redis-sentinel-master (the monitored master's name)",
    );
  let topology: RedisTopology;
  if (url !== undefined) topology = { kind: "single", url };
  else if (sentinels !== undefined && master !== undefined)
    topology = { kind: "sentinel", sentinels: parseHostPorts(sentinels, "redis-sentinels"), master };
  else if (nodes !== undefined)
    topology = { kind: "cluster", nodes: parseHostPorts(nodes, "redis-cluster-nodes") };
  else return undefined;

  const readFile = sources.readFile ?? ((file: string) => readFileSync(file, "utf8"));
  const passwordFile = config["redis-password-file"];
  const envPassword = sources.env.REDIS_PASSWORD;
  if (passwordFile !== undefined && envPassword)
    throw new RedisConfigError("give the Redis password once: REDIS_PASSWORD or --redis-password-file");
  let password = envPassword || undefined;
  if (passwordFile !== undefined) {
    try {
      // A Secret mounted as a file usually ends with a newline that is not part of the password.
      password = readFile(passwordFile).replace(/\r?\n$/, "");
    } catch (err) {
      throw new RedisConfigError(
        `--redis-password-file: cannot read ${passwordFile}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }
  const caFile = config["redis-tls-ca-file"];
  let ca: string | undefined;
  if (caFile !== undefined) {
    try {
      ca = readFile(caFile);
    } catch (err) {
      throw new RedisConfigError(
        `--redis-tls-ca-file: cannot read ${caFile}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }
  const tlsOn = config["redis-tls"] || url?.startsWith("rediss:") === true || ca !== undefined;
  const username = config["redis-username"];
  return {
    topology,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    ...(tlsOn && { tls: ca === undefined ? {} : { ca } }),
    // Replicated topologies lose acknowledged writes in a failover unless a replica has them.
    minReplicaAcks: config["redis-min-replica-acks"] ?? (topology.kind === "single" ? 0 : 1),
    replicaAckTimeoutMs: config["redis-replica-ack-timeout"],
  };
}
