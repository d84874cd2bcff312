// `resize-operator run`: the manager (informers, leader election), the resize controller, the event
// recorder and the HTTP endpoints, wired from validated settings. With a Redis URL, the compute REST
// API is served too and the operations controller follows the requests' Operations. Every replica
// serves HTTP; only the leader reconciles.
import { PROVISIONING_CLASS } from "./api/provisioning-request.js";
import { Redis } from "ioredis";
import { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { ConfigError, type Config } from "./config.js";
import { addRetentionController } from "./controllers/retention/controller.js";
import { addBookingController } from "./booking/setup.js";
import { FUTURE_RESERVATIONS, PROVISIONING_REQUESTS } from "./api/kinds.js";
import { addResizeController } from "./controllers/resize/controller.js";
import { resizeInformers } from "./cache/informers.js";
import { bookingInformer } from "./cache/bookings.js";
import type { FutureReservation } from "./api/future-reservation.js";
import type { Informer } from "./runtime/informer.js";
import { createEventRecorder } from "./events/recorder.js";
import { kubeEventSink } from "./events/kube-sink.js";
import {
  AuthSettingsError,
  createDashboard,
  dashboardConfigured,
  loadAuthSettings,
  type AuthSettings,
} from "./dashboard/index.js";
import { addOperationsController } from "./operations/controller.js";
import { addProvisioningController } from "./controllers/provisioning/controller.js";
import { planEventMetrics, registerDomainMetrics } from "./observability/domain.js";
import { createLogger } from "./observability/logger.js";
import { PromMetrics } from "./observability/metrics.js";
import { redisErrors, redisShortMasters, restMetrics } from "./observability/rest.js";
import { metricsServer } from "./observability/server.js";
import { migrateLegacyKeys } from "./operations/migrate.js";
import { OperationStore } from "./operations/store.js";
import { closeRedisClient, redisClient, type RedisClient } from "./redis/clients.js";
import { checkTopology } from "./redis/probe.js";
import { ReplicaWatch } from "./redis/replicas.js";
import { RedisConfigError, redisSettings, type RedisSettings } from "./redis/settings.js";
import { createApp, REST_BASE, type AppOptions, type HttpApp } from "./rest/app.js";
import { Authenticator, Authorizer } from "./rest/auth.js";
import { rawClientErrorResponse } from "./rest/errors.js";
import { ROUTES } from "./rest/routes.js";
import type { Clock } from "./runtime/clock.js";
import type { KubeHttp } from "./runtime/kube-http.js";
import { Manager, type Runnable } from "./runtime/manager.js";
import { servesWithStatus, type KubeClient } from "./runtime/resource-client.js";
import { serveUntilAborted } from "./runtime/serve.js";
import { shutdownOnSignals } from "./runtime/signals.js";
import { retryAtStartUp } from "./runtime/start-up.js";

function loadKubeConfig(file: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else if (process.env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

/** Serves the app on `port` until the signal aborts. */
function httpServer(app: HttpApp, port: number, log: Logger): Runnable {
  return {
    name: "http",
    async run(signal) {
      await app.fastify.ready();
      // Requests Node's parser refuses (e.g. headers over 16 KiB) get the Google error body too.
      app.server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
        if (socket.writable) socket.end(rawClientErrorResponse(err.code));
        else socket.destroy();
      });
      await serveUntilAborted(app.server, port, signal, log, "HTTP");
    },
  };
}

/**
 * Before serving: the topology matches the servers (else a ConfigError stops start-up), and data of
 * the legacy key layout is migrated. Redis being down is not fatal: both happen once it is up.
 */
async function prepareRedis(commands: RedisClient, settings: RedisSettings, log: Logger): Promise<void> {
  const migrate = async (): Promise<void> => {
    try {
      const { moved } = await migrateLegacyKeys(commands);
      if (Object.values(moved).some((n) => n > 0))
        log.info({ moved }, "migrated operations to the current key layout");
    } catch (err) {
      log.warn({ err }, "operations key migration failed; retried at the next start");
    }
  };
  const outcome = await checkTopology(commands, settings, 10_000);
  log.info(
    {
      topology: settings.topology.kind,
      minReplicaAcks: settings.minReplicaAcks,
      tls: settings.tls !== undefined,
    },
    outcome === "checked" ? "redis topology checked" : "redis not reachable yet; serving 503 until it is",
  );
  if (outcome === "checked") await migrate();
  else
    commands.once("ready", () => {
      void migrate();
    });
}

/**
 * Whether the API server serves an optional kind, asked before the manager runs, so not covered by the
 * informers' retries: an API server that is restarting is waited for (a few minutes at most) rather than
 * taken for one without the kind.
 */
function servedAtStartUp(
  mgr: Manager,
  log: Logger,
  kind: { readonly apiVersion: string; readonly resource: string; readonly kind: string },
): Promise<boolean> {
  return retryAtStartUp(() => servesWithStatus(mgr.client, kind), {
    log,
    what: `whether it serves ${kind.kind}s`,
    giveUpAfterMs: 5 * 60_000,
  });
}

/**
 * The ProvisioningRequest provisioner, when the cluster serves that API (`auto`), must (`on`: start-up
 * fails without it) or is turned off. Detected once: the CRD is read at start-up, like Kueue does.
 */
async function addProvisioner(
  mgr: Manager,
  config: Config,
  recorder: ReturnType<typeof createEventRecorder>,
  log: Logger,
  metrics: PromMetrics,
  bookings: Informer<FutureReservation> | undefined,
): Promise<void> {
  const mode = config["provisioning-requests"];
  if (mode === "off") return;
  const served = await servedAtStartUp(mgr, log, PROVISIONING_REQUESTS);
  if (!served) {
    if (mode === "on")
      throw new ConfigError(
        "--provisioning-requests=on but the API server does not serve autoscaling.x-k8s.io/v1 provisioningrequests: install the ProvisioningRequest CRD first, or use auto or off",
      );
    log.info(
      "ProvisioningRequest API not installed: the provisioner is off (restart after installing the CRD)",
    );
    return;
  }
  addProvisioningController(mgr, {
    recorder,
    logger: log,
    metrics,
    concurrency: config.concurrency,
    retentionMs: config["provisioning-resize-request-retention"],
    ...(config.namespace && { namespace: config.namespace }),
    ...(bookings && { bookings }),
  });
  log.info({ provisioningClass: PROVISIONING_CLASS }, "serving ProvisioningRequests");
}

/**
 * The booking controller, when the API server serves FutureReservations: Helm installs a chart's CRDs
 * on install only, so an upgraded operator may run before its new CRD is applied. Detected once.
 */
function addBookings(
  mgr: Manager,
  config: Config,
  recorder: ReturnType<typeof createEventRecorder>,
  log: Logger,
  metrics: PromMetrics,
  served: boolean,
): void {
  if (!served) {
    log.info("FutureReservation CRD not installed: bookings are off (apply the CRD and restart)");
    return;
  }
  addBookingController(mgr, {
    recorder,
    logger: log,
    metrics,
    concurrency: config.concurrency,
    ...(config.namespace && { namespace: config.namespace }),
  });
}

/**
 * The cluster's reviews of who calls (TokenReview, for --token-audiences) and what they may do
 * (SubjectAccessReview), each cached for --token-cache-ttl. Built once: REST and the dashboard share
 * the Authorizer, so the flag holds for both.
 */
export function clusterAuth(
  client: KubeClient,
  config: Pick<Config, "token-cache-ttl" | "token-audiences">,
  clock?: Clock,
  http?: KubeHttp,
): { readonly authenticator: Authenticator; readonly authorizer: Authorizer } {
  const options = {
    cacheTtlMs: config["token-cache-ttl"],
    audiences: config["token-audiences"],
    ...(clock && { clock }),
    // Asked after a denial only (auth.ts): /readyz is open to every client (system:public-info-viewer).
    ...(http && {
      apiServerReady: () =>
        http.request("GET", "/readyz", { timeoutMs: 2000 }).then(
          () => true,
          () => false,
        ),
    }),
  };
  return { authenticator: new Authenticator(client, options), authorizer: new Authorizer(client, options) };
}

export async function runOperator(config: Config): Promise<void> {
  const log = createLogger(config["log-level"]);
  // Sign-in settings first: a refusal (MissingSecret in production) must come before anything starts.
  let authSettings: AuthSettings | undefined;
  try {
    authSettings = dashboardConfigured(process.env) ? loadAuthSettings(process.env) : undefined;
  } catch (err) {
    if (err instanceof AuthSettingsError) throw new ConfigError(err.message, { cause: err });
    throw err;
  }
  // The Redis topology too: contradicting flags stop start-up before anything runs.
  let redis: RedisSettings | undefined;
  try {
    redis = redisSettings(config, { env: process.env });
  } catch (err) {
    if (err instanceof RedisConfigError) throw new ConfigError(err.message, { cause: err });
    throw err;
  }
  const kc = loadKubeConfig(config.kubeconfig);
  const metrics = new PromMetrics({ processMetrics: true });
  const mgr = new Manager({
    kubeConfig: kc,
    logger: log,
    metrics,
    gracefulShutdownTimeoutMs: config["shutdown-timeout"],
    resyncPeriodMs: 10 * 60_000,
    collectGarbageAfterSync: true,
    ...(config["leader-elect"] && {
      leaderElection: {
        namespace: config["leader-election-namespace"],
        name: config["leader-election-id"],
        timings: {
          leaseDurationMs: config["lease-duration"],
          renewDeadlineMs: config["renew-deadline"],
          retryPeriodMs: config["retry-period"],
        },
      },
    }),
  });
  const publicUrl = (config["public-url"] ?? `http://localhost:${config["http-port"]}`).replace(/\/+$/, "");
  const recorder = createEventRecorder({ sink: kubeEventSink(mgr.client), logger: log });
  // Asked before the resize controller is added: where bookings are served, its queue holds their capacity.
  const bookingsServed = await servedAtStartUp(mgr, log, FUTURE_RESERVATIONS);
  // One cache of them, shared (the Manager's informers are one per name): every ETA counts bookings.
  const bookings = bookingsServed ? bookingInformer(mgr, config.namespace) : undefined;
  addResizeController(mgr, {
    bookings: bookingsServed,
    recorder,
    logger: log,
    metrics,
    onPlanEvent: planEventMetrics(metrics),
    concurrency: config.concurrency,
    clusterScopedTargets: config["cluster-scoped-targets"],
    ...(config.namespace && { namespace: config.namespace }),
    config: {
      publicUrl,
      backoffBaseMs: config["attempt-backoff"],
      backoffMaxMs: config["attempt-backoff-max"],
      admissionGraceMs: config["admission-grace"],
      pollIntervalMs: config["poll-interval"],
    },
  });
  await addProvisioner(mgr, config, recorder, log, metrics, bookings);
  addBookings(mgr, config, recorder, log, metrics, bookingsServed);
  addRetentionController(mgr, {
    recorder,
    logger: log,
    defaultRetentionMs: config["finished-request-retention"],
    ...(config.namespace && { namespace: config.namespace }),
  });
  const { requests, groups } = resizeInformers(mgr, config.namespace);
  registerDomainMetrics(metrics, {
    requests: requests.lister,
    groups: groups.lister,
    ...(bookings && { bookings: bookings.lister }),
    recorderStats: () => recorder.stats(),
  });
  const auth = clusterAuth(mgr.client, config, undefined, mgr.http);
  let rest: AppOptions["rest"];
  let store: OperationStore | undefined;
  let replicas: ReplicaWatch | undefined;
  const clients: RedisClient[] = [];
  if (redis) {
    clients.push(
      ...["commands", "subscriber"].map((role) => redisClient(redis, role, log, redisErrors(metrics, role))),
    );
    const [commands, subscriber] = clients as [RedisClient, RedisClient];
    try {
      await prepareRedis(commands, redis, log);
    } catch (err) {
      for (const client of clients) closeRedisClient(client);
      throw err instanceof RedisConfigError ? new ConfigError(err.message, { cause: err }) : err;
    }
    // Replicas missing at run time (a failover, until the failed node rejoins): /readyz, gauge, log.
    replicas = new ReplicaWatch(commands, redis, { log, shortMasters: redisShortMasters(metrics) });
    mgr.addRunnable(replicas, false);
    store = new OperationStore(commands, subscriber, {
      retentionMs: config["operation-retention"],
      minReplicaAcks: redis.minReplicaAcks,
      replicaAckTimeoutMs: redis.replicaAckTimeoutMs,
    });
    rest = {
      routes: ROUTES,
      maxBodyBytes: config["max-body-bytes"],
      discovery: {
        ...(config["public-url"] && { publicUrl: config["public-url"] }),
        endpoints: config["discovery-endpoints"],
      },
      deps: {
        kube: mgr.client,
        store,
        authenticator: auth.authenticator,
        authorizer: auth.authorizer,
        publicUrl,
        waitTimeoutMs: 120_000,
        now: Date.now,
      },
    };
    addOperationsController(
      mgr,
      { requests, groups },
      { store, publicUrl, retentionMs: config["operation-retention"], logger: log },
    );
  }
  /** The dashboard (Auth.js sign-in, docs/design.md §8) in front of the app; a bad sign-in setting stops start-up. */
  const dashboardSite = (settings: AuthSettings) => {
    try {
      return createDashboard({
        settings,
        mgr,
        requests,
        groups,
        ...(bookings && { bookings }),
        authorizer: auth.authorizer,
        ...(config.namespace && { namespace: config.namespace }),
        // Sessions use multi-key transactions across unrelated keys, which a Redis Cluster refuses.
        ...(clients[0] instanceof Redis && { redis: clients[0] }),
        ...(rest && { rest: rest.deps }),
        routes: ROUTES,
        log,
      });
    } catch (err) {
      if (err instanceof AuthSettingsError) throw new ConfigError(err.message, { cause: err });
      throw err;
    }
  };
  const app = createApp({
    log,
    ...(config["trust-proxy"] !== undefined && { trustProxy: config["trust-proxy"] }),
    notReady: () => [
      ...(mgr.hasSynced() ? [] : ["caches not synced"]),
      ...(store && !store.ready() ? ["redis unavailable"] : []),
      ...(replicas?.notReady() ?? []),
    ],
    ...(rest && { rest }),
  });
  app.fastify.addHook("onRequest", restMetrics(metrics, ROUTES, REST_BASE));
  if (authSettings) await dashboardSite(authSettings).register(app.fastify);
  mgr.addRunnable(httpServer(app, config["http-port"], log), false);
  mgr.addRunnable(metricsServer(metrics, config["metrics-port"], log), false);
  const shutdown = shutdownOnSignals();
  log.info("starting resize-operator");
  await mgr.start(shutdown.signal);
  await recorder.stop(5_000);
  for (const client of clients) closeRedisClient(client);
  shutdown.dispose();
  log.info("stopped");
}
