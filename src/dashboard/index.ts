// The dashboard: Auth.js sign-in (mounted at the base path, default /auth), the route guard, the JSON
// API with live updates under /dashboard/api, and the static UI at / and /ui/. Built once at start-up
// from validated settings; the Auth.js configuration itself is computed per request (lazy
// initialisation), which is how AUTH_PROVIDERS_BY_HOST offers different providers per host.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Auth, createActionURL, setEnvDefaults } from "@auth/core";
import { ExpressAuth } from "@auth/express";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { Authorizer } from "../rest/auth.js";
import type { RestDeps } from "../rest/deps.js";
import { ForbiddenError, InvalidError, NotFoundError } from "../rest/errors.js";
import type { Route } from "../rest/route.js";
import type { Informer } from "../runtime/informer.js";
import type { Manager } from "../runtime/manager.js";
import { stripUnreadMetadata } from "../runtime/transform.js";
import { API_BASE, dashboardApi, userOf } from "./api.js";
import { buildAuthConfig, type AuthDeps } from "./auth-config.js";
import { providerIds } from "./auth-providers.js";
import { AuthSettingsError, type AuthSettings } from "./auth-settings.js";
import { DashboardAuthz, identityOf } from "./authz.js";
import { callbackUrlGuard, cleanCookieHeader } from "./callback-url.js";
import { usersFromFile } from "./credentials.js";
import { dashboardErrors } from "./errors.js";
import { guard, signInPage } from "./guard.js";
import { redisAdapter, type RedisAdapter } from "./redis-adapter.js";
import type { DashboardSession } from "./session.js";
import { LiveHub } from "./sse.js";
import { KubeEventView, type KubeEvent } from "../events/view.js";
import { CapacityHistory } from "./views.js";

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
  /** An app serving the sign-in routes and the dashboard, then everything `inner` serves. */
  mount(inner: express.Express): express.Express;
}

/** The UI's page, styles and images: src/dashboard/ui, or its copy in dist/dashboard/ui once built. */
const UI_DIR = fileURLToPath(new URL("./ui/", import.meta.url));
/**
 * The UI's scripts, compiled by tsc (src/dashboard/ui/tsconfig.json) into dist/browser, laid out as
 * under src/ so that their relative imports resolve. `npm run build` writes them, and `npm run build:ui`
 * before `npm run dev`/`operator` and the tests: this module runs from src/ (tsx) or dist/, both two
 * levels below the root that holds dist/.
 */
const BROWSER_DIR = fileURLToPath(new URL("../../dist/browser/", import.meta.url));

/** The UI's own assets only: no CDN, no inline script, no framing. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

function requestHeaders(req: Request): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}

export function createDashboard(options: DashboardOptions): Dashboard {
  const { settings, mgr, log } = options;
  if (settings.adapter === "redis" && !options.redis)
    throw new AuthSettingsError(
      "database sessions (AUTH_SESSION_STRATEGY=database / AUTH_ADAPTER=redis) need --redis-url or --redis-sentinels (a Redis Cluster is not supported for sessions)",
    );
  if (providerIds(settings).length === 0)
    throw new AuthSettingsError(
      "the dashboard has no sign-in provider: set AUTH_OIDC_ID/SECRET/ISSUER, AUTH_GITHUB_ID/SECRET or AUTH_CREDENTIALS_FILE",
    );
  const adapter = options.redis ? redisAdapter(options.redis) : undefined;
  const answerError = dashboardErrors(log);
  const authLog = log.child({ component: "auth" });
  const deps: AuthDeps = {
    log: authLog,
    audit: log.child({ audit: true, component: "dashboard-audit" }),
    ...(settings.adapter === "redis" && adapter && { adapter }),
    ...(settings.credentials && { users: usersFromFile(settings.credentials.file) }),
  };
  const env = { ...(settings.url && { AUTH_URL: settings.url }) };
  const configFor = (req: Request) => buildAuthConfig(settings, deps, req.hostname);

  const pinned = settings.url ? new URL(settings.url) : undefined;
  /** With trustHost off, a request naming another host (Host or X-Forwarded-Host) is refused. */
  const untrustedHost = (req: Request): string | undefined => {
    if (settings.trustHost || !pinned) return undefined;
    const forwarded = req.headers["x-forwarded-host"];
    const claimed = [req.headers.host, ...(Array.isArray(forwarded) ? forwarded : [forwarded])];
    return claimed.find((h) => h !== undefined && h.toLowerCase() !== pinned.host);
  };
  const hostChecked: RequestHandler = (req, _res, next) => {
    const host = untrustedHost(req);
    if (host === undefined) {
      next();
      return;
    }
    next(
      new InvalidError(
        `Untrusted host "${host}": this dashboard answers only for ${pinned?.host ?? "?"} (AUTH_URL; AUTH_TRUST_HOST is off).`,
      ),
    );
  };
  const callbackUrls = callbackUrlGuard(settings.cookies?.callbackUrl?.name);
  const auth: RequestHandler = (req, res, next) => {
    if (untrustedHost(req) !== undefined) {
      hostChecked(req, res, next);
      return;
    }
    if (pinned) {
      // Auth.js renders pages and links from the request's host: with AUTH_URL configured, that host
      // is the only one, whatever Host or X-Forwarded-Host a client sends.
      req.headers.host = pinned.host;
      delete req.headers["x-forwarded-host"];
      req.headers["x-forwarded-proto"] = pinned.protocol.replace(/:$/, "");
    }
    callbackUrls(req, res, () => void ExpressAuth(configFor(req))(req, res, next));
  };

  /** Auth.js's `auth`: reads the session and keeps it alive (refreshed cookies are passed on). */
  const readSession = async (req: Request, res: Response): Promise<DashboardSession | null> => {
    if (!req.headers.cookie) return null;
    const config = configFor(req);
    setEnvDefaults(env, config);
    const url = createActionURL("session", req.protocol, requestHeaders(req), env, config);
    // A foreign callback-url cookie would make Auth.js refuse the session read (InvalidCallbackUrl).
    const cookie =
      cleanCookieHeader(req.headers.cookie, url.origin, settings.cookies?.callbackUrl?.name) ??
      req.headers.cookie;
    const response = await Auth(new Request(url, { headers: { cookie } }), config);
    for (const cookie of response.headers.getSetCookie()) res.append("Set-Cookie", cookie);
    const data = (await response.json()) as Partial<DashboardSession> | null;
    if (response.status !== 200 || !data?.user) return null;
    return data as DashboardSession;
  };

  const scope = options.namespace ? `/namespaces/${options.namespace}` : "";
  const events = mgr.informer<KubeEvent>({
    name: "events",
    path: `/apis/events.k8s.io/v1${scope}/events`,
    decode: (raw) => KubeEventView.parse(raw),
    transform: stripUnreadMetadata,
  });
  const history = new CapacityHistory();
  const authz = new DashboardAuthz(options.authorizer);
  const identity = (session: DashboardSession) => identityOf(session, settings);
  const hub = new LiveHub(authz, log);
  hub.watch(options.requests, options.groups, events, history);

  const signIn = {
    basePath: settings.basePath,
    ...(settings.pages.signIn && { signInPage: settings.pages.signIn }),
  };
  const guarded = guard(readSession, { ...signIn, jsonPrefixes: [API_BASE] });
  const secureCookies = (req: Request): boolean =>
    settings.useSecureCookies ?? (settings.url ?? `${req.protocol}://`).startsWith("https:");

  const router = express.Router();
  const hardened = (_req: Request, res: Response, next: NextFunction): void => {
    res.setHeader("Content-Security-Policy", CSP);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "same-origin");
    next();
  };
  router.use(["/ui", API_BASE], hardened);
  router.use(API_BASE, hostChecked);
  router.get("/", hostChecked, hardened, guarded, (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.sendFile("index.html", { root: UI_DIR });
  });
  router.get("/dashboard", (_req, res) => {
    res.redirect(302, "/");
  });
  // Assets are public (a custom sign-in page may use them) and hold nothing but code and styles.
  router.use("/ui/js", express.static(BROWSER_DIR, { index: false, maxAge: "5m", fallthrough: false }));
  router.use("/ui", express.static(UI_DIR, { index: false, maxAge: "5m", fallthrough: false }));
  router.use(API_BASE, guarded);
  router.use(API_BASE, (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader("Cache-Control", "no-store");
    if (userOf(res, identity)) next();
    else next(new ForbiddenError("The session carries no email to authorize with."));
  });
  router.get(`${API_BASE}/stream`, (req, res) => {
    const user = userOf(res, identity);
    if (user) hub.connect(req, res, user);
  });
  router.use(
    API_BASE,
    dashboardApi({
      requests: options.requests,
      groups: options.groups,
      events,
      history,
      authz,
      identity,
      secrets: settings.secrets,
      secureCookies,
      auth: { basePath: settings.basePath, signInPage: signInPage(signIn) },
      ...(options.rest && { rest: options.rest }),
      routes: options.routes,
      log,
    }),
  );
  router.use(API_BASE, (req: Request, _res: Response, next: NextFunction) => {
    next(new NotFoundError(`No dashboard API at ${req.path}.`));
  });
  router.use(answerError);

  if (!existsSync(path.join(BROWSER_DIR, "dashboard", "ui", "app.js")))
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
  const mount = (inner: express.Express): express.Express => {
    const outer = express();
    outer.disable("x-powered-by");
    outer.set("etag", false);
    outer.set("trust proxy", inner.get("trust proxy"));
    // Express 5: a plain prefix mount; the documented "/auth/*" pattern does not match there.
    outer.use(settings.basePath, auth, answerError);
    outer.use(router);
    outer.use(inner);
    return outer;
  };
  return { hub, mount, ...(adapter && { adapter }) };
}
