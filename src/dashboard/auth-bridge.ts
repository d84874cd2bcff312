// The app ↔ Auth.js, through @auth/core's Web Request/Response API (`Auth(request, config)`): the
// sign-in endpoints under the base path, and the session read in front of the page and the JSON API.
// The Auth.js configuration is computed per request (lazy initialisation), which is how
// AUTH_PROVIDERS_BY_HOST offers different providers per host.
import { Auth, createActionURL, setEnvDefaults } from "@auth/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { buildAuthConfig, type AuthDeps } from "./auth-config.js";
import type { AuthSettings } from "./auth-settings.js";
import { authjsOrigin, cleanCookieHeader, withoutForeignCallbacks } from "./callback-url.js";
import type { DashboardSession } from "./session.js";

export interface AuthBridge {
  /** Auth.js's endpoints (every method, every path under the base path), foreign callback URLs dropped. */
  readonly endpoints: (req: FastifyRequest, reply: FastifyReply) => Promise<string | undefined>;
  /**
   * Auth.js's `auth`: reads the session and keeps it alive (refreshed cookies are passed on to
   * `reply`; without one, as for a stream whose headers are sent, the session is only read).
   */
  readonly readSession: (req: FastifyRequest, reply?: FastifyReply) => Promise<DashboardSession | null>;
}

/** A Node request's headers as a Fetch API Headers (what Auth.js reads). */
function requestHeaders(req: FastifyRequest, cookie: string | undefined): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === "cookie") continue;
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  if (cookie) headers.set("cookie", cookie);
  return headers;
}

/**
 * Auth.js's answer as the app's: its status and every header (each Set-Cookie on its own) on the
 * reply, and its body, returned for the handler to send (none when empty: a redirect).
 */
async function answerOf(response: Response, reply: FastifyReply): Promise<string | undefined> {
  for (const [name, value] of response.headers)
    if (name !== "set-cookie" && value) void reply.header(name, value);
  for (const cookie of response.headers.getSetCookie()) void reply.header("Set-Cookie", cookie);
  const body = await response.text();
  void reply.code(response.status);
  return body === "" ? undefined : body;
}

export function authBridge(settings: AuthSettings, deps: AuthDeps): AuthBridge {
  const env = { ...(settings.url && { AUTH_URL: settings.url }) };
  const configFor = (req: FastifyRequest) => buildAuthConfig(settings, deps, req.hostname);
  const callbackName = settings.cookies?.callbackUrl?.name;

  const endpoints = async (req: FastifyRequest, reply: FastifyReply): Promise<string | undefined> => {
    const origin = authjsOrigin(req.protocol, req.headers.host);
    const { url, cookie } = withoutForeignCallbacks(req.url, req.headers.cookie, origin, callbackName);
    const config = { ...configFor(req), basePath: settings.basePath };
    setEnvDefaults(process.env, config);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : (req.body as string | undefined);
    // As the request reached us: the protocol (`--trust-proxy` decides about X-Forwarded-Proto) and Host.
    const request = new Request(`${req.protocol}://${req.headers.host ?? ""}${url}`, {
      method: req.method,
      headers: requestHeaders(req, cookie),
      ...(body !== undefined && { body }),
    });
    return answerOf(await Auth(request, config), reply);
  };

  const readSession = async (req: FastifyRequest, reply?: FastifyReply): Promise<DashboardSession | null> => {
    if (!req.headers.cookie) return null;
    const config = configFor(req);
    setEnvDefaults(env, config);
    const headers = requestHeaders(req, req.headers.cookie);
    const url = createActionURL("session", req.protocol, headers, env, config);
    // A foreign callback-url cookie would make Auth.js refuse the session read (InvalidCallbackUrl).
    const cookie = cleanCookieHeader(req.headers.cookie, url.origin, callbackName) ?? req.headers.cookie;
    const response = await Auth(new Request(url, { headers: { cookie } }), config);
    if (reply) for (const c of response.headers.getSetCookie()) void reply.header("Set-Cookie", c);
    const data = (await response.json()) as Partial<DashboardSession> | null;
    if (response.status !== 200 || !data?.user) return null;
    return data as DashboardSession;
  };

  return { endpoints, readSession };
}
