// The dashboard: Auth.js sign-in (at the base path, default /auth), the route guard, the JSON API with
// live updates under /dashboard/api, and the static UI at / and /ui/, registered on the app's Fastify
// instance in a scope of its own (its errors carry Google's canonical status). Built once at start-up
// from validated settings, by composing its parts: the host guard (host-guard.ts), the Auth.js bridge
// (auth-bridge.ts), the page (site.ts), the JSON API's table (api.ts), the live hub (sse.ts) and the
// capacity history (capacity-history.ts).
import type { FutureReservation } from "../api/future-reservation.js";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { Authorizer } from "../rest/auth.js";
import type { RestDeps } from "../rest/deps.js";
import type { Route } from "../rest/route.js";
import type { Informer } from "../runtime/informer.js";
import type { Manager } from "../runtime/manager.js";
import { API_BASE, dashboardApi, type ApiFront } from "./api.js";
import type { DashboardApiDeps } from "./api-route.js";
import { authBridge } from "./auth-bridge.js";
import type { AuthDeps } from "./auth-config.js";
import { providerIds } from "./auth-providers.js";
import { AuthSettingsError, type AuthSettings } from "./auth-settings.js";
import { DashboardAuthz, identityOf } from "./authz.js";
import { CapacityHistory, recordCapacity } from "./capacity-history.js";
import { usersFromFile } from "./credentials.js";
import { dashboardErrors } from "./errors.js";
import { eventsInformerSpec } from "./events-cache.js";
import { guard, signInPage } from "./guard.js";
import { hostGuard } from "./host-guard.js";
import { redisAdapter, type RedisAdapter } from "./redis-adapter.js";
import type { DashboardSession } from "./session.js";
import { BROWSER_DIR, site, uiCompiled, type Front } from "./site.js";
import { LiveHub } from "./sse.js";

export {
  AuthSettingsError,
  dashboardConfigured,
  loadAuthSettings,
  type AuthSettings,
} from "./auth-settings.js";

export interface DashboardOptions {
  readonly settings: AuthSettings;
  readonly mgr: Manager;
  readonly requests: Informer<ResizeRequest>;
  readonly groups: Informer<InstanceGroupManager>;
  /** FutureReservations, where served (the operator's one shared cache): the queue's ETAs count them, the group timelines show them. */
  readonly bookings?: Informer<FutureReservation>;
  /** The operator's Authorizer, REST's too (its cache honours --token-cache-ttl). */
  readonly authorizer: Authorizer;
  /** Watch one namespace only (the operator's --namespace). */
  readonly namespace?: string;
  /** Redis for database sessions (AUTH_ADAPTER=redis / AUTH_SESSION_STRATEGY=database). */
  readonly redis?: Redis;
  /** The REST API's deps: create and cancel go through its handlers. */
  readonly rest?: RestDeps;
  readonly routes: readonly Route[];
  readonly log: Logger;
}

export interface Dashboard {
  readonly adapter?: RedisAdapter;
  readonly hub: LiveHub;
  /** Registers the sign-in routes, the page and the JSON API on the app. */
  register(app: FastifyInstance): Promise<void>;
}

/** Settings that validate one by one but not together stop start-up. */
function checkSettings(settings: AuthSettings, redis: Redis | undefined): void {
  if (settings.adapter === "redis" && !redis)
    throw new AuthSettingsError(
      "database sessions (AUTH_SESSION_STRATEGY=database / AUTH_ADAPTER=redis) need --redis-url or --redis-sentinels (a Redis Cluster is not supported for sessions)",
    );
  if (providerIds(settings).length === 0)
    throw new AuthSettingsError(
      "the dashboard has no sign-in provider: set AUTH_OIDC_ID/SECRET/ISSUER, AUTH_GITHUB_ID/SECRET or AUTH_CREDENTIALS_FILE",
    );
}

/** What start-up should tell the operator: a UI not compiled, a development secret, the providers. */
function announce(settings: AuthSettings, log: Logger): void {
  if (!uiCompiled())
    log.error(
      { dir: BROWSER_DIR },
      "the dashboard UI is not compiled: run npm run build:ui (or npm run build)",
    );
  if (settings.generatedSecret)
    log.warn(
      "DASHBOARD DEVELOPMENT MODE: no AUTH_SECRET set, sessions are signed with a random secret that changes on every restart; set AUTH_SECRET (required with NODE_ENV=production)",
    );
  log.info(
    { providers: providerIds(settings), strategy: settings.session.strategy, basePath: settings.basePath },
    "dashboard enabled",
  );
}

export function createDashboard(options: DashboardOptions): Dashboard {
  const { settings, mgr, log } = options;
  checkSettings(settings, options.redis);
  const adapter = options.redis ? redisAdapter(options.redis) : undefined;
  const answerError = dashboardErrors(log);
  const deps: AuthDeps = {
    log: log.child({ component: "auth" }),
    audit: log.child({ audit: true, component: "dashboard-audit" }),
    ...(settings.adapter === "redis" && adapter && { adapter }),
    ...(settings.credentials && { users: usersFromFile(settings.credentials.file) }),
  };
  const bridge = authBridge(settings, deps);
  const host = hostGuard(settings);

  const events = mgr.informer(eventsInformerSpec(options.namespace));
  const history = new CapacityHistory();
  recordCapacity(options.groups, history);
  const authz = new DashboardAuthz(options.authorizer);
  const hub = new LiveHub(authz, log);
  hub.watch(options.requests, options.groups, events, options.bookings);

  const signIn = {
    basePath: settings.basePath,
    ...(settings.pages.signIn && { signInPage: settings.pages.signIn }),
  };
  const guarded = guard(bridge.readSession, { ...signIn, jsonPrefixes: [API_BASE] });
  const apiDeps: DashboardApiDeps = {
    requests: options.requests,
    groups: options.groups,
    ...(options.bookings && { bookings: options.bookings }),
    events,
    history,
    authz,
    identity: (session: DashboardSession) => identityOf(session, settings),
    secrets: settings.secrets,
    secureCookies: (req) =>
      settings.useSecureCookies ?? (settings.url ?? `${req.protocol}://`).startsWith("https:"),
    auth: { basePath: settings.basePath, signInPage: signInPage(signIn) },
    ...(options.rest && { rest: options.rest }),
    routes: options.routes,
    log,
  };
  const hostCheck: Front = (req) => {
    host.check(req);
  };
  const front: ApiFront = { hostCheck, guarded, session: (req) => bridge.readSession(req), hub };

  announce(settings, log);
  const register = async (app: FastifyInstance): Promise<void> => {
    await app.register(async (scope) => {
      scope.decorateRequest("session", null);
      scope.setErrorHandler(answerError);
      await scope.register((auth, _options, registered) => {
        // Auth.js reads forms and JSON itself: the body is handed over as sent (100 KiB at most).
        auth.removeAllContentTypeParsers();
        auth.addContentTypeParser(
          ["application/x-www-form-urlencoded", "application/json"],
          { parseAs: "string", bodyLimit: 100 * 1024 },
          (_req, body, done) => {
            done(null, body);
          },
        );
        auth.addContentTypeParser("*", (_req, _payload, done) => {
          done(null, undefined);
        });
        auth.addHook("onRequest", (req) =>
          Promise.resolve().then(() => {
            host.pin(req);
          }),
        );
        for (const url of [settings.basePath, `${settings.basePath}/*`]) auth.all(url, bridge.endpoints);
        registered();
      });
      await site(scope, hostCheck, guarded);
      await scope.register(
        (api, _options, done) => {
          dashboardApi(api, apiDeps, front);
          done();
        },
        { prefix: API_BASE },
      );
    });
  };
  return { hub, register, ...(adapter && { adapter }) };
}
