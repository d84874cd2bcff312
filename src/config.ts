// Settings of `resize-operator run`: every flag has an environment equivalent, and the whole set is
// validated by one zod schema, so a bad value stops start-up with a message naming the flag.
import { PROVISIONING_CLASS } from "./api/provisioning-request.js";
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseKubeDuration } from "./api/duration.js";
import { DEFAULT_CLUSTER_SCOPED_TARGETS, GROUP_KIND_PATTERN } from "./api/target-kinds.js";
import { DEFAULT_FINISHED_REQUEST_RETENTION } from "./controllers/retention-rule.js";
import { DEFAULT_PROVISIONING_RETENTION } from "./controllers/provisioning/controller.js";
import { DEFAULT_TOKEN_AUDIENCE } from "./rest/auth.js";

const duration = (flag: string) =>
  z.string().transform((text, ctx) => {
    const ms = parseKubeDuration(text);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({
        code: "custom",
        message: `--${flag} must be a positive duration such as 500ms, 10s or 5m`,
      });
      return z.NEVER;
    }
    return ms;
  });
/** A retention: any duration, 0s included (deleted at once). */
const retention = (flag: string) =>
  z.string().transform((text, ctx) => {
    const ms = parseKubeDuration(text);
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: `--${flag} must be a duration such as 0s, 1h or 168h` });
      return z.NEVER;
    }
    return ms;
  });
const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(["true", "false"]).transform((v) => v === "true");

interface Setting {
  readonly env: string;
  readonly help: string;
  readonly default?: string;
  readonly schema: z.ZodType;
  /**
   * Settings that only make sense together (the Redis topology): once any of them is a flag, the
   * environment values of the others are ignored, so a flag wins over a whole topology from the env.
   */
  readonly group?: string;
}

/** Flag name → environment variable, help text, default and schema. */
export const SETTINGS = {
  kubeconfig: {
    env: "KUBECONFIG",
    help: "kubeconfig file; in-cluster configuration when unset",
    schema: z.string().min(1).optional(),
  },
  "redis-url": {
    env: "REDIS_URL",
    help: "Redis URL for Operations (redis://host:port); enables the compute REST API",
    group: "redis-topology",
    schema: z.url({ protocol: /^rediss?$/ }).optional(),
  },
  "redis-sentinels": {
    env: "REDIS_SENTINELS",
    help: "Redis Sentinels (host:port,…) to find the Operations master through; needs --redis-sentinel-master",
    group: "redis-topology",
    schema: z.string().min(1).optional(),
  },
  "redis-sentinel-master": {
    env: "REDIS_SENTINEL_MASTER",
    help: "name of the master the Sentinels monitor",
    group: "redis-topology",
    schema: z.string().min(1).optional(),
  },
  "redis-cluster-nodes": {
    env: "REDIS_CLUSTER_NODES",
    help: "Redis Cluster seed nodes (host:port,…) for Operations",
    group: "redis-topology",
    schema: z.string().min(1).optional(),
  },
  "redis-username": {
    env: "REDIS_USERNAME",
    help: "Redis ACL user (the password comes from env REDIS_PASSWORD or --redis-password-file)",
    schema: z.string().min(1).optional(),
  },
  "redis-password-file": {
    env: "REDIS_PASSWORD_FILE",
    help: "file holding the Redis password (a mounted Secret); env REDIS_PASSWORD is the alternative",
    schema: z.string().min(1).optional(),
  },
  "redis-tls": {
    env: "REDIS_TLS",
    help: "TLS to Redis and Sentinels (true|false; a rediss:// URL implies true)",
    default: "false",
    schema: bool,
  },
  "redis-tls-ca-file": {
    env: "REDIS_TLS_CA_FILE",
    help: "PEM bundle of the CAs that sign the Redis servers' certificates (default: the system's)",
    schema: z.string().min(1).optional(),
  },
  "redis-min-replica-acks": {
    env: "REDIS_MIN_REPLICA_ACKS",
    help: "replicas that must hold an Operation write before REST acknowledges it (WAIT); default 1 with Sentinel or Cluster, 0 with one server",
    schema: z.coerce.number().int().min(0).max(16).optional(),
  },
  "redis-replica-ack-timeout": {
    env: "REDIS_REPLICA_ACK_TIMEOUT",
    help: "how long a write waits for those replicas before REST answers 503 (below the 2s command timeout)",
    default: "1s",
    schema: duration("redis-replica-ack-timeout"),
  },
  "operation-retention": {
    env: "OPERATION_RETENTION",
    help: "how long DONE operations and requestIds are kept in Redis",
    default: "168h",
    schema: duration("operation-retention"),
  },
  "max-body-bytes": {
    env: "MAX_BODY_BYTES",
    help: "largest REST request body accepted",
    default: "1048576",
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024),
  },
  "provisioning-requests": {
    env: "PROVISIONING_REQUESTS",
    help: `serve autoscaling.x-k8s.io/v1 ProvisioningRequests of class ${PROVISIONING_CLASS} (Kueue's ProvisioningRequest admission check): auto (when the CRD is installed at start-up; restart after installing it), on (start-up fails without the CRD), off`,
    default: "auto",
    schema: z.enum(["auto", "on", "off"]),
  },
  "provisioning-resize-request-retention": {
    env: "PROVISIONING_RESIZE_REQUEST_RETENTION",
    help: "how long the ResizeRequest of a finished ProvisioningRequest (Failed, CapacityRevoked, BookingExpired, or deleted) is kept once it holds nothing, before it is deleted, as GKE does after 1h (0s: at once; a group's shorter finishedRequestRetention wins)",
    default: DEFAULT_PROVISIONING_RETENTION,
    schema: retention("provisioning-resize-request-retention"),
  },
  "token-audiences": {
    env: "TOKEN_AUDIENCES",
    help: "audiences a REST bearer token must be made for, comma-separated (kubectl create token NAME --audience=resize-operator); add the API server's own audience to accept its tokens too",
    default: DEFAULT_TOKEN_AUDIENCE,
    schema: z.string().transform((text, ctx) => {
      const audiences = [...new Set(text.split(",").map((a) => a.trim()))].filter((a) => a !== "");
      if (audiences.length === 0) {
        ctx.addIssue({ code: "custom", message: "--token-audiences needs at least one audience" });
        return z.NEVER;
      }
      return audiences;
    }),
  },
  "token-cache-ttl": {
    env: "TOKEN_CACHE_TTL",
    help: "how long a TokenReview result and an allowed SubjectAccessReview are reused (REST and dashboard)",
    default: "10s",
    schema: duration("token-cache-ttl"),
  },
  "http-port": {
    env: "HTTP_PORT",
    help: "port of REST, discovery, dashboard, /healthz and /readyz",
    default: "8080",
    schema: port,
  },
  "metrics-port": { env: "METRICS_PORT", help: "port of /metrics", default: "9090", schema: port },
  "public-url": {
    env: "PUBLIC_URL",
    help: "public base URL of the operator (self links, discovery rootUrl); default http://localhost:HTTP_PORT",
    schema: z.url({ protocol: /^https?$/ }).optional(),
  },
  "trust-proxy": {
    env: "TRUST_PROXY",
    help: "Trust proxy: true, a hop count, or addresses/subnets (e.g. loopback,10.0.0.0/8) whose X-Forwarded-* headers are believed; without --public-url the discovery rootUrl then follows them",
    schema: z
      .string()
      .min(1)
      .transform((v) => (v === "true" ? true : /^[0-9]+$/.test(v) ? Number(v) : v))
      .optional(),
  },
  "discovery-endpoints": {
    env: "DISCOVERY_ENDPOINTS",
    help: "location-based endpoints of the discovery document: LOCATION=URL pairs separated by commas",
    default: "",
    schema: z.string().transform((text, ctx) => {
      const endpoints: { location: string; url: string }[] = [];
      for (const item of text.split(",").filter((i) => i.trim() !== "")) {
        const [location = "", url = ""] = item.trim().split(/=(.*)/s);
        if (!/^[a-z][-a-z0-9]*$/.test(location) || !z.url({ protocol: /^https?$/ }).safeParse(url).success) {
          ctx.addIssue({ code: "custom", message: `expected LOCATION=URL, got '${item}'` });
          return z.NEVER;
        }
        endpoints.push({ location, url });
      }
      return endpoints;
    }),
  },
  namespace: {
    env: "WATCH_NAMESPACE",
    help: "watch one namespace only (default: all)",
    schema: z.string().min(1).optional(),
  },
  concurrency: {
    env: "CONCURRENCY",
    help: "groups reconciled at the same time",
    default: "4",
    schema: z.coerce.number().int().min(1).max(64),
  },
  "leader-elect": {
    env: "LEADER_ELECT",
    help: "elect a leader with a coordination.k8s.io Lease (true|false)",
    default: "true",
    schema: bool,
  },
  "leader-election-namespace": {
    env: "POD_NAMESPACE",
    help: "namespace of the leader-election Lease",
    default: "default",
    schema: z.string().min(1),
  },
  "leader-election-id": {
    env: "LEADER_ELECTION_ID",
    help: "name of the leader-election Lease",
    default: "resize-operator-leader",
    schema: z.string().min(1),
  },
  "lease-duration": {
    env: "LEASE_DURATION",
    help: "how long a lease is valid without renewal",
    default: "15s",
    schema: duration("lease-duration"),
  },
  "renew-deadline": {
    env: "RENEW_DEADLINE",
    help: "how long the leader keeps trying to renew before giving up",
    default: "10s",
    schema: duration("renew-deadline"),
  },
  "retry-period": {
    env: "RETRY_PERIOD",
    help: "interval between lease acquire/renew tries",
    default: "2s",
    schema: duration("retry-period"),
  },
  "attempt-backoff": {
    env: "ATTEMPT_BACKOFF",
    help: "delay before retrying a failed attempt; doubles per attempt",
    default: "10s",
    schema: duration("attempt-backoff"),
  },
  "attempt-backoff-max": {
    env: "ATTEMPT_BACKOFF_MAX",
    help: "upper bound of the retry delay",
    default: "5m",
    schema: duration("attempt-backoff-max"),
  },
  "admission-grace": {
    env: "ADMISSION_GRACE",
    help: "how long a new request waits for its group or target to appear",
    default: "30s",
    schema: duration("admission-grace"),
  },
  "cluster-scoped-targets": {
    env: "CLUSTER_SCOPED_TARGETS",
    help: "cluster-scoped kinds a group may target, as Kind.group separated by commas (empty: none); the admission policy must list the same (chart value clusterScopedTargets)",
    default: DEFAULT_CLUSTER_SCOPED_TARGETS.join(","),
    schema: z.string().transform((text, ctx) => {
      const kinds = text
        .split(",")
        .map((k) => k.trim())
        .filter((k) => k !== "");
      const bad = kinds.filter((k) => !GROUP_KIND_PATTERN.test(k));
      if (bad.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `expected Kind.group such as NodePool.karpenter.sh, got '${bad.join("', '")}'`,
        });
        return z.NEVER;
      }
      return kinds;
    }),
  },
  "finished-request-retention": {
    env: "FINISHED_REQUEST_RETENTION",
    help: "how long finished requests are kept before they are deleted, unless their group sets spec.finishedRequestRetention (0s: at once)",
    default: DEFAULT_FINISHED_REQUEST_RETENTION,
    schema: retention("finished-request-retention"),
  },
  "poll-interval": {
    env: "POLL_INTERVAL",
    help: "re-check interval of an attempt in progress",
    default: "1s",
    schema: duration("poll-interval"),
  },
  "shutdown-timeout": {
    env: "SHUTDOWN_TIMEOUT",
    help: "graceful shutdown deadline after SIGTERM",
    default: "30s",
    schema: duration("shutdown-timeout"),
  },
  "log-level": {
    env: "LOG_LEVEL",
    help: "trace|debug|info|warn|error",
    default: "info",
    schema: z.enum(["trace", "debug", "info", "warn", "error"]),
  },
} as const satisfies Record<string, Setting>;

type Settings = typeof SETTINGS;
export type Config = { -readonly [K in keyof Settings]: z.output<Settings[K]["schema"]> };

export class ConfigError extends Error {}

/** Flags win over environment variables, which win over defaults. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Config {
  const options = Object.fromEntries(Object.keys(SETTINGS).map((k) => [k, { type: "string" as const }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  const flagGroups = new Set(
    (Object.entries(SETTINGS) as [string, Setting][]).flatMap(([flag, s]) =>
      s.group !== undefined && typeof values[flag] === "string" ? [s.group] : [],
    ),
  );
  for (const [flag, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
    const fromFlag = values[flag];
    const envIgnored = setting.group !== undefined && flagGroups.has(setting.group);
    const raw =
      typeof fromFlag === "string"
        ? fromFlag
        : (envIgnored ? undefined : env[setting.env]) || setting.default;
    const parsed = setting.schema.safeParse(raw);
    if (parsed.success) config[flag] = parsed.data;
    else
      problems.push(
        `--${flag} (${setting.env}=${JSON.stringify(raw)}): ${parsed.error.issues.map((i) => i.message).join("; ")}`,
      );
  }
  if (problems.length > 0) throw new ConfigError(`invalid settings:\n  ${problems.join("\n  ")}`);
  return config as Config;
}

export function configHelp(): string {
  return Object.entries(SETTINGS as Record<string, Setting>)
    .map(
      ([flag, s]) =>
        `  --${flag.padEnd(27)} ${s.help} [env ${s.env}${s.default ? `, default ${s.default}` : ""}]`,
    )
    .join("\n");
}
