// Express ↔ Auth.js: the sign-in endpoints under the base path, and the session read in front of the
// page and the JSON API. The Auth.js configuration is computed per request (lazy initialisation), which
// is how AUTH_PROVIDERS_BY_HOST offers different providers per host.
import { Auth, createActionURL, setEnvDefaults } from "@auth/core";
import { ExpressAuth } from "@auth/express";
import type { Request, RequestHandler, Response } from "express";
import { buildAuthConfig, type AuthDeps } from "./auth-config.js";
import type { AuthSettings } from "./auth-settings.js";
import { callbackUrlGuard, cleanCookieHeader } from "./callback-url.js";
import type { DashboardSession } from "./session.js";

export interface AuthBridge {
  /** Auth.js's endpoints (mounted at the base path), behind the callback-URL guard. */
  readonly endpoints: RequestHandler;
  /**
   * Auth.js's `auth`: reads the session and keeps it alive (refreshed cookies are passed on to `res`;
   * without one, as for a stream whose headers are sent, the session is only read).
   */
  readonly readSession: (req: Request, res?: Response) => Promise<DashboardSession | null>;
}

/** A Node request's headers as a Fetch API Headers (what Auth.js reads). */
function requestHeaders(req: Request): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}

export function authBridge(settings: AuthSettings, deps: AuthDeps): AuthBridge {
  const env = { ...(settings.url && { AUTH_URL: settings.url }) };
  const configFor = (req: Request) => buildAuthConfig(settings, deps, req.hostname);
  const callbackName = settings.cookies?.callbackUrl?.name;
  const callbackUrls = callbackUrlGuard(callbackName);

  const endpoints: RequestHandler = (req, res, next) => {
    callbackUrls(req, res, () => void ExpressAuth(configFor(req))(req, res, next));
  };

  const readSession = async (req: Request, res?: Response): Promise<DashboardSession | null> => {
    if (!req.headers.cookie) return null;
    const config = configFor(req);
    setEnvDefaults(env, config);
    const url = createActionURL("session", req.protocol, requestHeaders(req), env, config);
    // A foreign callback-url cookie would make Auth.js refuse the session read (InvalidCallbackUrl).
    const cookie = cleanCookieHeader(req.headers.cookie, url.origin, callbackName) ?? req.headers.cookie;
    const response = await Auth(new Request(url, { headers: { cookie } }), config);
    if (res) for (const cookie of response.headers.getSetCookie()) res.append("Set-Cookie", cookie);
    const data = (await response.json()) as Partial<DashboardSession> | null;
    if (response.status !== 200 || !data?.user) return null;
    return data as DashboardSession;
  };

  return { endpoints, readSession };
}
