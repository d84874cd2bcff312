// The environment schema of the dashboard's sign-in (Auth.js's names): every variable it reads, with its
// zod schema, default and help text (docs/dashboard.md lists the same table). Parsing only; what the
// values mean together is checked by loadAuthSettings (auth-settings.ts).
import { z } from "zod";

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
  AUTH_OIDC_REQUIRE_EMAIL_VERIFIED: {
    schema: bool,
    default: "true",
    help: "OIDC sign-in needs email_verified: true (the email is the RBAC identity); false also trusts a profile without the claim (false is refused either way)",
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

/** The parsed value of every variable: defaulted ones always have one. */
export type AuthEnvValues = {
  [K in keyof typeof AUTH_ENV]: (typeof AUTH_ENV)[K] extends { default: string }
    ? z.output<(typeof AUTH_ENV)[K]["schema"]>
    : z.output<(typeof AUTH_ENV)[K]["schema"]> | undefined;
};
