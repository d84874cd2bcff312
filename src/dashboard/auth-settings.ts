// Environment → validated sign-in settings (docs/design.md §8): each variable parsed by its schema
// (auth-env.ts), then the rules between them (secrets in production, trustHost without AUTH_URL,
// providers' parts together). Every problem is reported at once, before anything runs.
import { randomBytes } from "node:crypto";
import type { CookiesOptions } from "@auth/core/types";
import type { z } from "zod";
import { AUTH_ENV, type AuthEnvValues } from "./auth-env.js";

export class AuthSettingsError extends Error {}

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
    /** Sign-in needs `email_verified: true`; false also trusts a profile without the claim. */
    readonly requireEmailVerified: boolean;
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
 * `MissingSecret` in production without a secret (Auth.js: the secret is required in production).
 */
export function loadAuthSettings(env: NodeJS.ProcessEnv): AuthSettings {
  const problems: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(AUTH_ENV) as [
    string,
    { schema: z.ZodType; default?: string },
  ][]) {
    // Auth.js: legacy prefixed names of the URL and the secret are still inferred.
    const legacy =
      name === "AUTH_URL" ? env.NEXTAUTH_URL : name === "AUTH_SECRET" ? env.NEXTAUTH_SECRET : undefined;
    const text = env[name] || legacy || spec.default;
    if (text === undefined) continue;
    const parsed = spec.schema.safeParse(text);
    if (parsed.success) raw[name] = parsed.data;
    else problems.push(`${name}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  const r = raw as AuthEnvValues;
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
  // Auth.js: the host header is trusted only with trustHost. Untrusted, the only origin sign-in can
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
  // Auth.js: `database` by default when an adapter is set; an explicit `jwt` overrides.
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
          requireEmailVerified: r.AUTH_OIDC_REQUIRE_EMAIL_VERIFIED,
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
