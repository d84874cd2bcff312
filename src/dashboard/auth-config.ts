// The dashboard's sign-in configuration (DESIGN §8, seed 001), in two pure steps: environment →
// validated settings (`loadAuthSettings`), and settings + dependencies (+ the request's host, for lazy
// initialisation) → the Auth.js configuration (`buildAuthConfig`). Every AuthConfig and session option
// of the seed has a setting; callbacks, events and the logger are always ours (allow-list, groups,
// same-origin redirects, audit log, pino).
import { randomBytes, randomUUID } from "node:crypto";
import type { ExpressAuthConfig } from "@auth/express";
import type { Adapter } from "@auth/core/adapters";
import { CredentialsSignin } from "@auth/core/errors";
import type { JWT } from "@auth/core/jwt";
import { skipCSRFCheck } from "@auth/core";
import Credentials from "@auth/core/providers/credentials";
import GitHub from "@auth/core/providers/github";
import type { Provider } from "@auth/core/providers";
import type { CookiesOptions, Profile, Session, User } from "@auth/core/types";
import type { Logger } from "pino";
import { z } from "zod";
import type { SessionUser } from "./answers.js";
import { verifyCredentials, type UserSource } from "./credentials.js";

declare module "@auth/core/types" {
  interface User {
    /** Groups of the user (OIDC groups claim, users file); RBAC sees them with the groups prefix. */
    groups?: string[];
  }
}
declare module "@auth/core/jwt" {
  interface JWT {
    groups?: string[];
  }
}

/** What the dashboard puts in a session: the seed's default fields plus groups, nothing else. */
export interface DashboardSession {
  readonly expires: string;
  readonly user: SessionUser;
}

export class AuthSettingsError extends Error {}

const bool = z.enum(["true", "false"]).transform((v) => v === "true");
const seconds = z.coerce
  .number()
  .int()
  .min(0)
  .max(10 * 365 * 86400);
const list = z.string().transform((s) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean),
);
/** Pages and the base path are paths on our origin: a full URL elsewhere would be an open redirect. */
const localPath = z
  .string()
  .regex(/^\/(?![/\\])[^\s\\]*$/, "must be a path on this origin, starting with a single /");
const httpUrl = z.url({ protocol: /^https?$/ });

const CookieOverride = z
  .object({
    name: z.string().min(1).max(128).optional(),
    options: z
      .object({
        domain: z.string().max(253).optional(),
        path: z.string().max(256).optional(),
        sameSite: z.enum(["lax", "strict", "none"]).optional(),
        secure: z.boolean().optional(),
        httpOnly: z.boolean().optional(),
        maxAge: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
const COOKIE_KEYS = [
  "sessionToken",
  "callbackUrl",
  "csrfToken",
  "pkceCodeVerifier",
  "state",
  "nonce",
  "webauthnChallenge",
] as const;
const Cookies = z.partialRecord(z.enum(COOKIE_KEYS), CookieOverride);

/** `host=id,id;host2=id`: the providers offered per Host header (lazy initialisation). */
const providersByHost = z.string().transform((text, ctx) => {
  const map = new Map<string, string[]>();
  for (const part of text
    .split(";")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [host, ids] = part.split("=", 2);
    if (!host || ids === undefined) {
      ctx.addIssue({ code: "custom", message: `expected host=provider,provider in ${JSON.stringify(part)}` });
      return z.NEVER;
    }
    map.set(
      host.trim().toLowerCase(),
      ids
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  return map;
});

/** Every environment variable the dashboard reads: name → schema, default and help (docs/dashboard.md). */
export const AUTH_ENV = {
  AUTH_SECRET: { schema: z.string().min(1), help: "newest secret: encrypts new sessions and signs cookies" },
  AUTH_SECRET_1: { schema: z.string().min(1), help: "previous secret (still decrypts older sessions)" },
  AUTH_SECRET_2: { schema: z.string().min(1), help: "older secret" },
  AUTH_SECRET_3: { schema: z.string().min(1), help: "oldest secret" },
  AUTH_URL: { schema: httpUrl, help: "public base URL of the operator (legacy alias NEXTAUTH_URL)" },
  AUTH_BASE_PATH: { schema: localPath, default: "/auth", help: "where the sign-in endpoints are mounted" },
  AUTH_TRUST_HOST: {
    schema: bool,
    help: "trust the Host / X-Forwarded-Host header (default: true unless production without AUTH_URL)",
  },
  AUTH_USE_SECURE_COOKIES: { schema: bool, help: "HTTPS-only cookies (default: true for https URLs)" },
  AUTH_DEBUG: {
    schema: bool,
    default: "false",
    help: "debug messages of sign-in and adapter (secrets scrubbed)",
  },
  AUTH_REDIRECT_PROXY_URL: {
    schema: httpUrl,
    help: "redirect proxy for OAuth redirect_uri (full path up to the base path)",
  },
  AUTH_SESSION_STRATEGY: {
    schema: z.enum(["jwt", "database"]),
    help: "jwt (default) or database (default when AUTH_ADAPTER is set)",
  },
  AUTH_ADAPTER: {
    schema: z.enum(["none", "redis"]),
    default: "none",
    help: "database adapter: redis uses REDIS_URL",
  },
  AUTH_SESSION_MAX_AGE: {
    schema: seconds.min(60),
    default: "2592000",
    help: "idle session lifetime in seconds",
  },
  AUTH_SESSION_UPDATE_AGE: {
    schema: seconds,
    default: "86400",
    help: "how often a session is refreshed, in seconds (0: every access)",
  },
  AUTH_SESSION_TOKEN: {
    schema: z.enum(["uuid", "hex"]),
    default: "uuid",
    help: "generateSessionToken of database sessions: random UUID or 32 random bytes as hex",
  },
  AUTH_JWT_MAX_AGE: { schema: seconds.min(60), help: "lifetime of the JWT (default: the session maxAge)" },
  AUTH_COOKIES: {
    schema: z.string().transform((s, ctx) => {
      try {
        return Cookies.parse(JSON.parse(s));
      } catch (err) {
        ctx.addIssue({
          code: "custom",
          message: `invalid cookie options JSON: ${err instanceof Error ? err.message : String(err)}`,
        });
        return z.NEVER;
      }
    }),
    help: "JSON overriding names/options of cookies (advanced; opts out of the dynamic cookie policy)",
  },
  AUTH_PAGES_SIGN_IN: { schema: localPath, help: "custom sign-in page" },
  AUTH_PAGES_SIGN_OUT: { schema: localPath, help: "custom sign-out page" },
  AUTH_PAGES_ERROR: { schema: localPath, help: "custom error page" },
  AUTH_PAGES_VERIFY_REQUEST: { schema: localPath, help: "custom verify-request page" },
  AUTH_PAGES_NEW_USER: { schema: localPath, help: "page shown after a first sign-in" },
  AUTH_THEME_COLOR_SCHEME: {
    schema: z.enum(["auto", "dark", "light"]),
    default: "auto",
    help: "theme of the built-in pages",
  },
  AUTH_THEME_LOGO: {
    schema: z.string().max(2048),
    default: "/ui/logo.svg",
    help: "logo URL on the built-in pages",
  },
  AUTH_THEME_BRAND_COLOR: {
    schema: z.string().regex(/^#[0-9a-fA-F]{3,8}$/),
    default: "#1d4ed8",
    help: "accent colour of the built-in pages",
  },
  AUTH_THEME_BUTTON_TEXT: {
    schema: z.string().regex(/^#[0-9a-fA-F]{3,8}$/),
    default: "#ffffff",
    help: "button text colour of the built-in pages",
  },
  AUTH_SKIP_CSRF_CHECK: {
    schema: bool,
    default: "false",
    help: "skip the sign-in CSRF check (never in production)",
  },
  AUTH_EXPERIMENTAL_ENABLE_WEBAUTHN: { schema: bool, default: "false", help: "experimental.enableWebAuthn" },
  AUTH_OIDC_ID: { schema: z.string().min(1), help: "client id of the OIDC provider" },
  AUTH_OIDC_SECRET: { schema: z.string().min(1), help: "client secret of the OIDC provider" },
  AUTH_OIDC_ISSUER: { schema: httpUrl, help: "issuer URL (discovery at /.well-known/openid-configuration)" },
  AUTH_OIDC_NAME: {
    schema: z.string().min(1).max(64),
    default: "OpenID Connect",
    help: "button label of the OIDC provider",
  },
  AUTH_OIDC_SCOPE: { schema: z.string().min(1), default: "openid email profile", help: "scopes requested" },
  AUTH_OIDC_GROUPS_CLAIM: {
    schema: z.string().min(1),
    default: "groups",
    help: "claim holding the user's groups",
  },
  AUTH_OIDC_REDIRECT_PROXY_URL: { schema: httpUrl, help: "redirectProxyUrl of the OIDC provider only" },
  AUTH_GITHUB_ID: { schema: z.string().min(1), help: "client id of a GitHub OAuth app (optional provider)" },
  AUTH_GITHUB_SECRET: { schema: z.string().min(1), help: "client secret of that GitHub app" },
  AUTH_CREDENTIALS_FILE: {
    schema: z.string().min(1),
    help: "YAML users file (username, scrypt password hash, email, name, groups); enables the credentials provider",
  },
  AUTH_CREDENTIALS_ERROR_CODE: {
    schema: z.string().regex(/^[a-z_]{1,32}$/),
    default: "credentials",
    help: "code= of a failed credentials sign-in (never says which part was wrong)",
  },
  AUTH_PROVIDERS_BY_HOST: {
    schema: providersByHost,
    help: "host=id,id;… providers offered per Host header (others: all)",
  },
  AUTH_ALLOWED_EMAILS: {
    schema: list,
    default: "",
    help: "allow-list: emails (empty lists: everyone who can sign in)",
  },
  AUTH_ALLOWED_DOMAINS: { schema: list, default: "", help: "allow-list: email domains" },
  AUTH_ALLOWED_GROUPS: { schema: list, default: "", help: "allow-list: groups" },
  DASHBOARD_USERNAME_PREFIX: {
    schema: z.string().max(64),
    default: "dashboard:",
    help: "prefix of the Kubernetes username of a signed-in user (SubjectAccessReview)",
  },
  DASHBOARD_GROUPS_PREFIX: {
    schema: z.string().max(64),
    default: "dashboard:",
    help: "prefix of the user's groups in SubjectAccessReviews",
  },
} as const satisfies Record<string, { schema: z.ZodType; default?: string; help: string }>;

type Env = typeof AUTH_ENV;
type Raw = {
  [K in keyof Env]: Env[K] extends { default: string }
    ? z.output<Env[K]["schema"]>
    : z.output<Env[K]["schema"]> | undefined;
};

export interface AuthSettings {
  /** Newest first: the first encrypts new sessions, all decrypt. */
  readonly secrets: readonly string[];
  /** True when no secret was configured and a random one was made (development only). */
  readonly generatedSecret: boolean;
  readonly production: boolean;
  readonly url?: string;
  readonly basePath: string;
  readonly trustHost: boolean;
  readonly useSecureCookies?: boolean;
  readonly debug: boolean;
  readonly redirectProxyUrl?: string;
  readonly adapter: "none" | "redis";
  readonly session: {
    readonly strategy: "jwt" | "database";
    readonly maxAge: number;
    readonly updateAge: number;
    readonly token: "uuid" | "hex";
  };
  readonly jwtMaxAge: number;
  readonly cookies?: Partial<CookiesOptions>;
  readonly pages: {
    signIn?: string;
    signOut?: string;
    error?: string;
    verifyRequest?: string;
    newUser?: string;
  };
  readonly theme: {
    colorScheme: "auto" | "dark" | "light";
    logo: string;
    brandColor: string;
    buttonText: string;
  };
  readonly skipCSRFCheck: boolean;
  readonly enableWebAuthn: boolean;
  readonly oidc?: {
    readonly clientId: string;
    readonly clientSecret: string;
    readonly issuer: string;
    readonly name: string;
    readonly scope: string;
    readonly groupsClaim: string;
    readonly redirectProxyUrl?: string;
  };
  readonly github?: { readonly clientId: string; readonly clientSecret: string };
  readonly credentials?: { readonly file: string; readonly errorCode: string };
  readonly providersByHost?: ReadonlyMap<string, readonly string[]>;
  readonly allow: {
    readonly emails: readonly string[];
    readonly domains: readonly string[];
    readonly groups: readonly string[];
  };
  readonly usernamePrefix: string;
  readonly groupsPrefix: string;
}

/** Whether anything of the dashboard is configured (a secret or a sign-in provider). */
export function dashboardConfigured(env: NodeJS.ProcessEnv): boolean {
  return ["AUTH_SECRET", "NEXTAUTH_SECRET", "AUTH_OIDC_ID", "AUTH_GITHUB_ID", "AUTH_CREDENTIALS_FILE"].some(
    (name) => Boolean(env[name]),
  );
}

/**
 * Validated settings from the environment. Throws AuthSettingsError with every problem, and
 * `MissingSecret` in production without a secret (the seed: the secret is required in production).
 */
export function loadAuthSettings(env: NodeJS.ProcessEnv): AuthSettings {
  const problems: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(AUTH_ENV) as [
    string,
    { schema: z.ZodType; default?: string },
  ][]) {
    // The seed: legacy prefixed names of the URL and the secret are still inferred.
    const legacy =
      name === "AUTH_URL" ? env.NEXTAUTH_URL : name === "AUTH_SECRET" ? env.NEXTAUTH_SECRET : undefined;
    const text = env[name] || legacy || spec.default;
    if (text === undefined) continue;
    const parsed = spec.schema.safeParse(text);
    if (parsed.success) raw[name] = parsed.data;
    else problems.push(`${name}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  const r = raw as Raw;
  const production = env.NODE_ENV === "production";
  const secrets = [r.AUTH_SECRET, r.AUTH_SECRET_1, r.AUTH_SECRET_2, r.AUTH_SECRET_3].filter(
    (s): s is string => s !== undefined,
  );
  if (secrets.length === 0 && production)
    problems.push(
      "MissingSecret: AUTH_SECRET is required in production (NODE_ENV=production) to encrypt sessions and sign cookies; generate one with `openssl rand -base64 33`",
    );
  if (r.AUTH_SECRET === undefined && secrets.length > 0)
    problems.push("AUTH_SECRET_1..3 hold older secrets: AUTH_SECRET (the newest) must be set too");
  for (const s of secrets)
    if (s.length < 32) problems.push("AUTH_SECRET*: a secret must have at least 32 characters");
  // Seed 001: the host header is trusted only with trustHost. Untrusted, the only origin sign-in can
  // build its pages, links and redirects from is AUTH_URL (Auth.js itself would answer 500 to all).
  // As Auth.js infers it: trusted when a URL is configured or outside production.
  const trustHost = r.AUTH_TRUST_HOST ?? (Boolean(r.AUTH_URL) || !production);
  const inferred = r.AUTH_TRUST_HOST === undefined ? " (the default with NODE_ENV=production)" : "";
  if (!trustHost && !r.AUTH_URL)
    problems.push(
      `AUTH_TRUST_HOST is off${inferred} and AUTH_URL is not set: with the Host header untrusted, sign-in needs AUTH_URL (the dashboard's public URL), or AUTH_TRUST_HOST=true behind a proxy that sets Host / X-Forwarded-Host safely`,
    );
  if (r.AUTH_SKIP_CSRF_CHECK && production)
    problems.push("AUTH_SKIP_CSRF_CHECK=true is refused in production");
  const oidcParts = [r.AUTH_OIDC_ID, r.AUTH_OIDC_SECRET, r.AUTH_OIDC_ISSUER];
  if (oidcParts.some(Boolean) && !oidcParts.every(Boolean))
    problems.push("AUTH_OIDC_ID, AUTH_OIDC_SECRET and AUTH_OIDC_ISSUER go together");
  if (Boolean(r.AUTH_GITHUB_ID) !== Boolean(r.AUTH_GITHUB_SECRET))
    problems.push("AUTH_GITHUB_ID and AUTH_GITHUB_SECRET go together");
  // The seed: `database` by default when an adapter is set; an explicit `jwt` overrides.
  const strategy = r.AUTH_SESSION_STRATEGY ?? (r.AUTH_ADAPTER === "redis" ? "database" : "jwt");
  const adapter = strategy === "database" ? "redis" : r.AUTH_ADAPTER;
  if (problems.length > 0)
    throw new AuthSettingsError(`invalid dashboard sign-in settings:\n  ${problems.join("\n  ")}`);
  const pages = {
    ...(r.AUTH_PAGES_SIGN_IN && { signIn: r.AUTH_PAGES_SIGN_IN }),
    ...(r.AUTH_PAGES_SIGN_OUT && { signOut: r.AUTH_PAGES_SIGN_OUT }),
    ...(r.AUTH_PAGES_ERROR && { error: r.AUTH_PAGES_ERROR }),
    ...(r.AUTH_PAGES_VERIFY_REQUEST && { verifyRequest: r.AUTH_PAGES_VERIFY_REQUEST }),
    ...(r.AUTH_PAGES_NEW_USER && { newUser: r.AUTH_PAGES_NEW_USER }),
  };
  return {
    secrets: secrets.length > 0 ? secrets : [randomBytes(32).toString("base64url")],
    generatedSecret: secrets.length === 0,
    production,
    ...(r.AUTH_URL && { url: r.AUTH_URL.replace(/\/+$/, "") }),
    basePath: r.AUTH_BASE_PATH.replace(/\/+$/, "") || "/auth",
    trustHost,
    ...(r.AUTH_USE_SECURE_COOKIES !== undefined && { useSecureCookies: r.AUTH_USE_SECURE_COOKIES }),
    debug: r.AUTH_DEBUG,
    ...(r.AUTH_REDIRECT_PROXY_URL && { redirectProxyUrl: r.AUTH_REDIRECT_PROXY_URL }),
    adapter,
    session: {
      strategy,
      maxAge: r.AUTH_SESSION_MAX_AGE,
      updateAge: r.AUTH_SESSION_UPDATE_AGE,
      token: r.AUTH_SESSION_TOKEN,
    },
    jwtMaxAge: r.AUTH_JWT_MAX_AGE ?? r.AUTH_SESSION_MAX_AGE,
    ...(r.AUTH_COOKIES && { cookies: r.AUTH_COOKIES }),
    pages,
    theme: {
      colorScheme: r.AUTH_THEME_COLOR_SCHEME,
      logo: r.AUTH_THEME_LOGO,
      brandColor: r.AUTH_THEME_BRAND_COLOR,
      buttonText: r.AUTH_THEME_BUTTON_TEXT,
    },
    skipCSRFCheck: r.AUTH_SKIP_CSRF_CHECK,
    enableWebAuthn: r.AUTH_EXPERIMENTAL_ENABLE_WEBAUTHN,
    ...(r.AUTH_OIDC_ID &&
      r.AUTH_OIDC_SECRET &&
      r.AUTH_OIDC_ISSUER && {
        oidc: {
          clientId: r.AUTH_OIDC_ID,
          clientSecret: r.AUTH_OIDC_SECRET,
          issuer: r.AUTH_OIDC_ISSUER,
          name: r.AUTH_OIDC_NAME,
          scope: r.AUTH_OIDC_SCOPE,
          groupsClaim: r.AUTH_OIDC_GROUPS_CLAIM,
          ...(r.AUTH_OIDC_REDIRECT_PROXY_URL && { redirectProxyUrl: r.AUTH_OIDC_REDIRECT_PROXY_URL }),
        },
      }),
    ...(r.AUTH_GITHUB_ID &&
      r.AUTH_GITHUB_SECRET && { github: { clientId: r.AUTH_GITHUB_ID, clientSecret: r.AUTH_GITHUB_SECRET } }),
    ...(r.AUTH_CREDENTIALS_FILE && {
      credentials: { file: r.AUTH_CREDENTIALS_FILE, errorCode: r.AUTH_CREDENTIALS_ERROR_CODE },
    }),
    ...(r.AUTH_PROVIDERS_BY_HOST && { providersByHost: r.AUTH_PROVIDERS_BY_HOST }),
    allow: { emails: r.AUTH_ALLOWED_EMAILS, domains: r.AUTH_ALLOWED_DOMAINS, groups: r.AUTH_ALLOWED_GROUPS },
    usernamePrefix: r.DASHBOARD_USERNAME_PREFIX,
    groupsPrefix: r.DASHBOARD_GROUPS_PREFIX,
  };
}

/**
 * The seed's `redirect` callback, strictly: only URLs on `baseUrl`'s origin. Parsing with the WHATWG
 * URL parser (as browsers do) resolves backslashes, tabs, userinfo and protocol-relative forms the
 * way a browser would, so whatever the browser would treat as another origin is refused here too.
 */
export function safeRedirect(url: string, baseUrl: string): string {
  const base = new URL(baseUrl);
  // Control characters are stripped by browsers in ways that differ between them: refuse outright.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(url)) return base.origin;
  let target: URL;
  try {
    target = new URL(url, base);
  } catch {
    return base.origin;
  }
  if (target.origin !== base.origin || target.username !== "" || target.password !== "") return base.origin;
  return target.href;
}

/** The allow-list of the `signIn` callback; empty lists allow everyone (RBAC still decides what they see). */
export function allowedToSignIn(
  allow: AuthSettings["allow"],
  user: { readonly email?: string | null; readonly groups?: readonly string[] },
): boolean {
  if (allow.emails.length === 0 && allow.domains.length === 0 && allow.groups.length === 0) return true;
  const email = user.email?.toLowerCase();
  if (email && allow.emails.some((e) => e.toLowerCase() === email)) return true;
  const domain = email?.includes("@") ? email.slice(email.lastIndexOf("@") + 1) : undefined;
  if (domain && allow.domains.some((d) => d.toLowerCase().replace(/^@/, "") === domain)) return true;
  return (user.groups ?? []).some((g) => allow.groups.includes(g));
}

/** A claim's groups: a list of strings, or one space/comma-separated string. */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === "string" && g !== "");
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

/** Keys whose values never reach a log line, however deep they sit in an object Auth.js hands over. */
const SENSITIVE =
  /token|secret|password|cookie|authorization|code_verifier|verifier|state|nonce|^code$|credentials/i;

export function scrub(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]";
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SENSITIVE.test(k) ? "[redacted]" : scrub(v, depth + 1)]),
    );
  return value;
}

export interface AuthDeps {
  readonly log: Logger;
  /** Audit log: sign-ins, sign-outs, users and accounts (pino, marked `audit: true`). */
  readonly audit: Logger;
  readonly adapter?: Adapter;
  readonly users?: UserSource;
}

/** The provider ids configured, in button order. */
export function providerIds(settings: AuthSettings): string[] {
  return [
    ...(settings.oidc ? ["oidc"] : []),
    ...(settings.github ? ["github"] : []),
    ...(settings.credentials ? ["credentials"] : []),
  ];
}

function providers(settings: AuthSettings, deps: AuthDeps, host: string | undefined): Provider[] {
  const offered = host === undefined ? undefined : settings.providersByHost?.get(host.toLowerCase());
  const wanted = (id: string): boolean => offered === undefined || offered.includes(id);
  const result: Provider[] = [];
  const { oidc, github, credentials } = settings;
  if (oidc && wanted("oidc"))
    result.push({
      id: "oidc",
      name: oidc.name,
      type: "oidc",
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
      authorization: { params: { scope: oidc.scope } },
      checks: ["pkce", "state", "nonce"],
      // Local logos: the built-in sign-in page would otherwise load them from a CDN.
      style: { logo: "/ui/provider-oidc.svg", bg: "#ffffff", text: "#111827" },
      ...(oidc.redirectProxyUrl && { redirectProxyUrl: oidc.redirectProxyUrl }),
      profile: (profile: Profile) => ({
        id: String(profile.sub),
        name: profile.name ?? profile.preferred_username ?? null,
        email: profile.email ?? null,
        image: typeof profile.picture === "string" ? profile.picture : null,
        groups: groupsOf(profile[oidc.groupsClaim]),
      }),
    });
  if (github && wanted("github"))
    result.push({
      ...GitHub({ clientId: github.clientId, clientSecret: github.clientSecret }),
      style: { logo: "/ui/provider-github.svg", bg: "#24292f", text: "#ffffff" },
    });
  const users = deps.users;
  if (credentials && users && wanted("credentials")) {
    const { errorCode } = credentials;
    // The seed: the code is part of a URL and must not say whether the username or the password was wrong.
    class Refused extends CredentialsSignin {
      override code = errorCode;
    }
    result.push(
      Credentials({
        id: "credentials",
        name: "Username and password",
        credentials: {
          username: { label: "Username", type: "text", autocomplete: "username" },
          password: { label: "Password", type: "password", autocomplete: "current-password" },
        },
        authorize: async (input) => {
          const { username, password } = input;
          if (typeof username !== "string" || typeof password !== "string") throw new Refused();
          let user;
          try {
            user = await verifyCredentials(await users(), username, password);
          } catch (err) {
            deps.log.error(
              { err: err instanceof Error ? err.message : String(err) },
              "credentials users file unreadable",
            );
            throw new Refused();
          }
          if (!user) {
            deps.audit.info({ event: "signInFailed", provider: "credentials", username }, "sign-in refused");
            throw new Refused();
          }
          return user;
        },
      }),
    );
  }
  return result;
}

/** The session the client sees: name, email, image and groups — never the token or the user id. */
export function publicSession(
  session: Session,
  source: {
    name?: string | null;
    email?: string | null;
    image?: string | null;
    picture?: string | null;
    groups?: readonly string[];
  },
): DashboardSession {
  return {
    expires: typeof session.expires === "string" ? session.expires : new Date(session.expires).toISOString(),
    user: {
      name: source.name ?? null,
      email: source.email ?? null,
      image: source.image ?? source.picture ?? null,
      groups: [...(source.groups ?? [])],
    },
  };
}

/** Creates a database session for a credentials sign-in (the user record is made on first sign-in). */
async function databaseSession(adapter: Adapter, token: JWT, settings: AuthSettings): Promise<string> {
  const userId = token.sub;
  if (!userId || !adapter.getUser || !adapter.createUser || !adapter.createSession)
    throw new Error("database session without an adapter user");
  const fields = {
    name: token.name ?? null,
    email: token.email ?? "",
    image: null,
    emailVerified: null,
    groups: token.groups ?? [],
  };
  const existing = await adapter.getUser(userId);
  if (existing) await adapter.updateUser?.({ ...existing, ...fields, id: userId });
  else await adapter.createUser({ id: userId, ...fields });
  const sessionToken = settings.session.token === "hex" ? randomBytes(32).toString("hex") : randomUUID();
  await adapter.createSession({
    sessionToken,
    userId,
    expires: new Date(Date.now() + settings.session.maxAge * 1000),
  });
  return sessionToken;
}

/**
 * The Auth.js configuration for one request (lazy initialisation: `host` selects the providers of
 * AUTH_PROVIDERS_BY_HOST). Pure: everything comes from `settings` and `deps`.
 */
export function buildAuthConfig(settings: AuthSettings, deps: AuthDeps, host?: string): ExpressAuthConfig {
  const { log, audit, adapter } = deps;
  const who = (user: User | undefined | null) => ({ email: user?.email ?? undefined, userId: user?.id });
  return {
    providers: providers(settings, deps, host),
    ...(adapter && { adapter }),
    basePath: settings.basePath,
    secret: [...settings.secrets],
    // With AUTH_URL set, the dashboard hands Auth.js requests whose host is AUTH_URL's (index.ts), so
    // Auth.js may trust it even when the client's Host header is not trusted.
    trustHost: settings.trustHost || settings.url !== undefined,
    ...(settings.useSecureCookies !== undefined && { useSecureCookies: settings.useSecureCookies }),
    debug: settings.debug,
    ...(settings.redirectProxyUrl && { redirectProxyUrl: settings.redirectProxyUrl }),
    session: {
      strategy: settings.session.strategy,
      maxAge: settings.session.maxAge,
      updateAge: settings.session.updateAge,
      generateSessionToken:
        settings.session.token === "hex" ? () => randomBytes(32).toString("hex") : () => randomUUID(),
    },
    jwt: {
      maxAge: settings.jwtMaxAge,
      // Auth.js always writes a JWT cookie after a credentials sign-in, even with database sessions;
      // there the cookie must hold a session token instead, so that sign-out and revocation work.
      ...(settings.session.strategy === "database" &&
        adapter && {
          encode: (params: { token?: JWT; maxAge?: number }) =>
            databaseSession(adapter, params.token ?? {}, settings),
        }),
    },
    ...(settings.cookies && { cookies: settings.cookies }),
    pages: { ...settings.pages },
    theme: { ...settings.theme },
    ...(settings.skipCSRFCheck && { skipCSRFCheck }),
    experimental: { enableWebAuthn: settings.enableWebAuthn },
    logger: {
      error: (error: Error) => {
        // A refused password is an expected outcome (audited), not a server error.
        const expected = error instanceof CredentialsSignin || error.name === "AccessDenied";
        log[expected ? "info" : "error"](
          {
            authjs: scrub({
              name: error.name,
              message: error.message,
              cause: (error as { cause?: unknown }).cause,
            }),
          },
          "sign-in error",
        );
      },
      warn: (code: string) => {
        // Express mounts us on the base path and Auth.js sees AUTH_URL too: a harmless duplicate.
        if (code !== "env-url-basepath-redundant") log.warn({ code }, "sign-in warning");
      },
      debug: (message: string, metadata?: unknown) => {
        log.debug({ authjs: scrub(metadata) }, message);
      },
    },
    callbacks: {
      signIn: ({ user, profile }) => {
        const groups = user.groups ?? groupsOf(profile?.[settings.oidc?.groupsClaim ?? "groups"]);
        if (allowedToSignIn(settings.allow, { email: user.email ?? null, groups })) return true;
        audit.warn(
          { event: "signInDenied", email: user.email ?? undefined },
          "sign-in not on the allow-list",
        );
        return false;
      },
      jwt: ({ token, user, profile, trigger }) => {
        // The seed: data from a client `update` must be validated; the dashboard accepts none.
        if (trigger === "signIn" || trigger === "signUp") {
          const groups = user.groups ?? groupsOf(profile?.[settings.oidc?.groupsClaim ?? "groups"]);
          return { ...token, groups } satisfies JWT;
        }
        return token;
      },
      session: (params) => {
        // The seed: the token with the jwt strategy, the adapter's user with the database strategy.
        const p = params as { session: Session; token?: JWT; user?: User };
        const source = settings.session.strategy === "jwt" ? p.token : p.user;
        return publicSession(p.session, source ?? {}) as unknown as Session;
      },
      redirect: ({ url, baseUrl }) => safeRedirect(url, baseUrl),
    },
    events: {
      signIn: ({ user, account, isNewUser }) => {
        audit.info({ event: "signIn", provider: account?.provider, isNewUser, ...who(user) }, "signed in");
      },
      signOut: (message) => {
        const email = "token" in message ? message.token?.email : undefined;
        const userId = "session" in message ? message.session?.userId : message.token?.sub;
        audit.info({ event: "signOut", email: email ?? undefined, userId }, "signed out");
      },
      createUser: ({ user }) => {
        audit.info({ event: "createUser", ...who(user) }, "user created");
      },
      updateUser: ({ user }) => {
        audit.info({ event: "updateUser", ...who(user) }, "user updated");
      },
      linkAccount: ({ user, account }) => {
        audit.info({ event: "linkAccount", provider: account.provider, ...who(user) }, "account linked");
      },
      session: ({ session }) => {
        audit.debug({ event: "session", email: session.user?.email ?? undefined }, "session read");
      },
    },
  };
}
