// The environment → settings → Auth.js configuration mapping, option by option (Auth.js).
import { pino } from "pino";
import { CredentialsSignin } from "@auth/core/errors";
import { skipCSRFCheck } from "@auth/core";
import { buildAuthConfig, scrub, type AuthDeps } from "../../../src/dashboard/auth-config.js";
import {
  AuthSettingsError,
  dashboardConfigured,
  loadAuthSettings,
} from "../../../src/dashboard/auth-settings.js";
import { groupsOf, publicSession } from "../../../src/dashboard/session.js";
import { allowedToSignIn, oidcEmailRefusal } from "../../../src/dashboard/sign-in-rules.js";
import { hashPassword } from "../../../src/dashboard/passwords.js";

const SECRET = "s".repeat(40);
const OLD = "o".repeat(40);
const silent = pino({ level: "silent" });
const deps: AuthDeps = { log: silent, audit: silent };
const base = { AUTH_SECRET: SECRET, AUTH_CREDENTIALS_FILE: "/users.yaml" };

describe("loadAuthSettings", () => {
  test("defaults follow Auth.js", () => {
    const s = loadAuthSettings(base);
    expect(s.session).toEqual({ strategy: "jwt", maxAge: 2592000, updateAge: 86400, token: "uuid" });
    expect(s.basePath).toBe("/auth");
    expect(s.debug).toBe(false);
    expect(s.skipCSRFCheck).toBe(false);
    expect(s.enableWebAuthn).toBe(false);
    expect(s.trustHost).toBe(true);
    expect(s.useSecureCookies).toBeUndefined();
    expect(s.adapter).toBe("none");
    expect(s.jwtMaxAge).toBe(2592000);
    expect(s.usernamePrefix).toBe("dashboard:");
  });

  test("secret rotation: AUTH_SECRET first (newest), then AUTH_SECRET_1..3", () => {
    const s = loadAuthSettings({
      ...base,
      AUTH_SECRET_1: OLD,
      AUTH_SECRET_3: "3".repeat(40),
      AUTH_SECRET_2: "2".repeat(40),
    });
    expect(s.secrets).toEqual([SECRET, OLD, "2".repeat(40), "3".repeat(40)]);
    expect(s.generatedSecret).toBe(false);
  });

  test("legacy NEXTAUTH_SECRET and NEXTAUTH_URL are still inferred", () => {
    const s = loadAuthSettings({
      NEXTAUTH_SECRET: SECRET,
      NEXTAUTH_URL: "https://dash.example.com/",
      AUTH_CREDENTIALS_FILE: "/u",
    });
    expect(s.secrets).toEqual([SECRET]);
    expect(s.url).toBe("https://dash.example.com");
  });

  test("production without a secret refuses with MissingSecret", () => {
    expect(() => loadAuthSettings({ NODE_ENV: "production", AUTH_CREDENTIALS_FILE: "/u" })).toThrow(
      /MissingSecret: AUTH_SECRET is required in production/,
    );
  });

  test("development without a secret generates one", () => {
    const s = loadAuthSettings({ AUTH_CREDENTIALS_FILE: "/u" });
    expect(s.generatedSecret).toBe(true);
    expect(s.secrets[0]?.length).toBeGreaterThanOrEqual(32);
  });

  test.each([
    [{ AUTH_SECRET: "short" }, /at least 32/],
    [{ AUTH_SECRET_1: OLD, AUTH_SECRET: "" }, /AUTH_SECRET \(the newest\) must be set/],
    [{ AUTH_SKIP_CSRF_CHECK: "true", NODE_ENV: "production" }, /refused in production/],
    [{ AUTH_OIDC_ID: "x" }, /go together/],
    [{ AUTH_GITHUB_SECRET: "x" }, /go together/],
    [{ AUTH_SESSION_STRATEGY: "cookie" }, /AUTH_SESSION_STRATEGY/],
    [{ AUTH_PAGES_SIGN_IN: "https://evil.example/" }, /path on this origin/],
    [{ AUTH_PAGES_ERROR: "//evil.example/" }, /path on this origin/],
    [{ AUTH_COOKIES: "{not json" }, /invalid cookie options JSON/],
    [{ AUTH_COOKIES: JSON.stringify({ bogus: {} }) }, /invalid cookie options JSON/],
    [{ AUTH_SESSION_MAX_AGE: "ten" }, /AUTH_SESSION_MAX_AGE/],
    [{ AUTH_URL: "ftp://x" }, /AUTH_URL/],
  ])("refuses %j", (env, message) => {
    expect(() => loadAuthSettings({ ...base, ...env })).toThrow(AuthSettingsError);
    expect(() => loadAuthSettings({ ...base, ...env })).toThrow(message);
  });

  test("an adapter makes database the default strategy; an explicit jwt wins", () => {
    expect(loadAuthSettings({ ...base, AUTH_ADAPTER: "redis" }).session.strategy).toBe("database");
    const jwt = loadAuthSettings({ ...base, AUTH_ADAPTER: "redis", AUTH_SESSION_STRATEGY: "jwt" });
    expect(jwt.session.strategy).toBe("jwt");
    expect(jwt.adapter).toBe("redis");
    expect(loadAuthSettings({ ...base, AUTH_SESSION_STRATEGY: "database" }).adapter).toBe("redis");
  });

  test("trustHost: inferred like Auth.js, or set", () => {
    const url = { AUTH_URL: "https://d.example" };
    expect(loadAuthSettings({ ...base, NODE_ENV: "production", ...url }).trustHost).toBe(true);
    expect(loadAuthSettings({ ...base, ...url, AUTH_TRUST_HOST: "false" }).trustHost).toBe(false);
    expect(loadAuthSettings({ ...base }).trustHost).toBe(true);
  });

  test("trustHost off without AUTH_URL is refused: no origin would be left to trust", () => {
    expect(() => loadAuthSettings({ ...base, NODE_ENV: "production" })).toThrow(
      /AUTH_TRUST_HOST is off \(the default with NODE_ENV=production\) and AUTH_URL is not set/,
    );
    expect(() => loadAuthSettings({ ...base, AUTH_TRUST_HOST: "false" })).toThrow(AuthSettingsError);
  });

  test("trustHost off with AUTH_URL: Auth.js trusts the pinned host, the dashboard checks the client's", () => {
    const settings = loadAuthSettings({ ...base, AUTH_URL: "https://d.example", AUTH_TRUST_HOST: "false" });
    expect(settings.trustHost).toBe(false);
    expect(buildAuthConfig(settings, deps).trustHost).toBe(true);
  });

  test("dashboardConfigured: a secret or a provider", () => {
    expect(dashboardConfigured({})).toBe(false);
    expect(dashboardConfigured({ REDIS_URL: "redis://x" })).toBe(false);
    expect(dashboardConfigured({ AUTH_SECRET: SECRET })).toBe(true);
    expect(dashboardConfigured({ AUTH_OIDC_ID: "x" })).toBe(true);
  });
});

describe("buildAuthConfig", () => {
  const full = {
    ...base,
    AUTH_URL: "https://dash.example.com",
    AUTH_BASE_PATH: "/signin-api",
    AUTH_TRUST_HOST: "true",
    AUTH_USE_SECURE_COOKIES: "true",
    AUTH_DEBUG: "true",
    AUTH_REDIRECT_PROXY_URL: "https://proxy.example.com/auth",
    AUTH_SESSION_MAX_AGE: "3600",
    AUTH_SESSION_UPDATE_AGE: "0",
    AUTH_SESSION_TOKEN: "hex",
    AUTH_JWT_MAX_AGE: "1800",
    AUTH_COOKIES: JSON.stringify({ sessionToken: { name: "dash-session", options: { sameSite: "strict" } } }),
    AUTH_PAGES_SIGN_IN: "/login",
    AUTH_PAGES_SIGN_OUT: "/logout",
    AUTH_PAGES_ERROR: "/oops",
    AUTH_PAGES_VERIFY_REQUEST: "/verify",
    AUTH_PAGES_NEW_USER: "/welcome",
    AUTH_THEME_COLOR_SCHEME: "dark",
    AUTH_THEME_LOGO: "/ui/x.svg",
    AUTH_THEME_BRAND_COLOR: "#123456",
    AUTH_THEME_BUTTON_TEXT: "#fff",
    AUTH_SKIP_CSRF_CHECK: "true",
    AUTH_EXPERIMENTAL_ENABLE_WEBAUTHN: "true",
    AUTH_OIDC_ID: "client",
    AUTH_OIDC_SECRET: "client-secret",
    AUTH_OIDC_ISSUER: "https://idp.example.com",
    AUTH_OIDC_NAME: "Corp SSO",
    AUTH_OIDC_SCOPE: "openid email profile groups",
    AUTH_OIDC_REDIRECT_PROXY_URL: "https://proxy.example.com/oidc",
    AUTH_GITHUB_ID: "gh",
    AUTH_GITHUB_SECRET: "gh-secret",
  };

  test("every option maps to the Auth.js configuration", () => {
    const config = buildAuthConfig(loadAuthSettings(full), { ...deps, users: () => Promise.resolve([]) });
    expect(config.basePath).toBe("/signin-api");
    expect(config.secret).toEqual([SECRET]);
    expect(config.trustHost).toBe(true);
    expect(config.useSecureCookies).toBe(true);
    expect(config.debug).toBe(true);
    expect(config.redirectProxyUrl).toBe("https://proxy.example.com/auth");
    expect(config.session).toMatchObject({ strategy: "jwt", maxAge: 3600, updateAge: 0 });
    expect(config.session?.generateSessionToken?.()).toMatch(/^[0-9a-f]{64}$/);
    expect(config.jwt?.maxAge).toBe(1800);
    expect(config.cookies).toEqual({
      sessionToken: { name: "dash-session", options: { sameSite: "strict" } },
    });
    expect(config.pages).toEqual({
      signIn: "/login",
      signOut: "/logout",
      error: "/oops",
      verifyRequest: "/verify",
      newUser: "/welcome",
    });
    expect(config.theme).toEqual({
      colorScheme: "dark",
      logo: "/ui/x.svg",
      brandColor: "#123456",
      buttonText: "#fff",
    });
    expect(config.skipCSRFCheck).toBe(skipCSRFCheck);
    expect(config.experimental).toEqual({ enableWebAuthn: true });
    expect(config.adapter).toBeUndefined();
    const ids = config.providers.map((p) => (typeof p === "function" ? p().id : p.id));
    expect(ids).toEqual(["oidc", "github", "credentials"]);
    const oidc = config.providers[0];
    expect(oidc).toMatchObject({
      type: "oidc",
      name: "Corp SSO",
      issuer: "https://idp.example.com",
      clientId: "client",
      clientSecret: "client-secret",
      redirectProxyUrl: "https://proxy.example.com/oidc",
      authorization: { params: { scope: "openid email profile groups" } },
    });
    expect(Object.keys(config.callbacks ?? {}).sort()).toEqual(["jwt", "redirect", "session", "signIn"]);
    expect(Object.keys(config.events ?? {}).sort()).toEqual([
      "createUser",
      "linkAccount",
      "session",
      "signIn",
      "signOut",
      "updateUser",
    ]);
  });

  test("skipCSRFCheck is never on by default; uuid session tokens by default", () => {
    const config = buildAuthConfig(loadAuthSettings(base), { ...deps, users: () => Promise.resolve([]) });
    expect(config.skipCSRFCheck).toBeUndefined();
    expect(config.session?.generateSessionToken?.()).toMatch(/^[0-9a-f-]{36}$/);
    expect(config.cookies).toBeUndefined();
  });

  test("the credentials provider is there only when configured (and has a user source)", () => {
    const none = buildAuthConfig(
      loadAuthSettings({ AUTH_SECRET: SECRET, AUTH_GITHUB_ID: "a", AUTH_GITHUB_SECRET: "b" }),
      deps,
    );
    expect(none.providers.map((p) => (typeof p === "function" ? p().id : p.id))).toEqual(["github"]);
  });

  test("lazy initialisation: AUTH_PROVIDERS_BY_HOST selects providers per host", () => {
    const settings = loadAuthSettings({
      ...full,
      AUTH_PROVIDERS_BY_HOST: "internal.example.com=credentials; dash.example.com=oidc,github",
    });
    const ids = (host?: string) =>
      buildAuthConfig(settings, { ...deps, users: () => Promise.resolve([]) }, host).providers.map((p) =>
        typeof p === "function" ? p().id : p.id,
      );
    expect(ids("internal.example.com")).toEqual(["credentials"]);
    expect(ids("DASH.example.com")).toEqual(["oidc", "github"]);
    expect(ids("other.example.com")).toEqual(["oidc", "github", "credentials"]);
    expect(ids()).toEqual(["oidc", "github", "credentials"]);
  });

  test("credentials: a wrong password and an unknown user fail alike, with the configured code", async () => {
    const hash = await hashPassword("right", { N: 1024, r: 8, p: 1 });
    const users = () => Promise.resolve([{ username: "ann", password: hash, groups: ["ops"] }]);
    const settings = loadAuthSettings({ ...base, AUTH_CREDENTIALS_ERROR_CODE: "bad_login" });
    const provider = buildAuthConfig(settings, { ...deps, users }).providers[0];
    if (!provider || typeof provider === "function" || provider.type !== "credentials")
      throw new Error("no credentials provider");
    const authorize = (provider as unknown as { options: { authorize: (c: unknown) => Promise<unknown> } })
      .options.authorize;
    await expect(authorize({ username: "ann", password: "right" })).resolves.toEqual({
      id: "ann",
      name: "ann",
      email: "ann",
      groups: ["ops"],
    });
    for (const attempt of [
      { username: "ann", password: "wrong" },
      { username: "bob", password: "right" },
      { username: "ann" },
    ]) {
      const err = await authorize(attempt).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CredentialsSignin);
      expect((err as CredentialsSignin).code).toBe("bad_login");
    }
  });

  test("callbacks: signIn refuses an OIDC email the provider has not verified, with an audit line", async () => {
    const oidc = {
      AUTH_OIDC_ID: "id",
      AUTH_OIDC_SECRET: "secret",
      AUTH_OIDC_ISSUER: "https://idp.example.com",
    };
    const lines: Record<string, unknown>[] = [];
    const audit = pino(
      { level: "info" },
      { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const signIn = (env: Record<string, string>) => {
      const cb = buildAuthConfig(loadAuthSettings({ ...base, ...oidc, ...env }), { log: silent, audit })
        .callbacks?.signIn;
      if (!cb) throw new Error("signIn callback missing");
      return (provider: string, profile: Record<string, unknown>) =>
        cb({
          user: { email: "mallory@example.com" },
          account: { provider, type: "oidc", providerAccountId: "m" },
          profile,
        });
    };
    const strict = signIn({});
    expect(await strict("oidc", { email: "mallory@example.com", email_verified: false })).toBe(false);
    expect(lines).toEqual([
      expect.objectContaining({
        event: "signInDenied",
        provider: "oidc",
        email: "mallory@example.com",
        reason: expect.stringMatching(/not verified/) as unknown,
      }),
    ]);
    expect(await strict("oidc", { email: "mallory@example.com" })).toBe(false);
    expect(await strict("oidc", { email: "mallory@example.com", email_verified: true })).toBe(true);
    // The rule is OIDC's: the credentials provider's users file has no such claim.
    expect(await strict("credentials", {})).toBe(true);
    const trusting = signIn({ AUTH_OIDC_REQUIRE_EMAIL_VERIFIED: "false" });
    expect(await trusting("oidc", { email: "mallory@example.com" })).toBe(true);
    expect(await trusting("oidc", { email: "mallory@example.com", email_verified: false })).toBe(false);
    expect(lines).toHaveLength(3);
  });

  test("callbacks: signIn allow-list, jwt carries groups, session exposes only name/email/image/groups", async () => {
    const settings = loadAuthSettings({ ...base, AUTH_ALLOWED_DOMAINS: "example.com" });
    const cb = buildAuthConfig(settings, deps).callbacks;
    if (!cb?.signIn || !cb.jwt || !cb.session) throw new Error("callbacks missing");
    const account = null;
    expect(await cb.signIn({ user: { email: "a@example.com" }, account })).toBe(true);
    expect(await cb.signIn({ user: { email: "a@evil.com" }, account })).toBe(false);
    const token = await cb.jwt({
      token: { sub: "u1", email: "a@example.com", name: "A" },
      user: { id: "u1", groups: ["ops"] },
      account: null,
      trigger: "signIn",
    });
    expect(token?.groups).toEqual(["ops"]);
    // A client update cannot smuggle groups in.
    const updated = await cb.jwt({
      token: { sub: "u1", groups: ["ops"] },
      user: { id: "u1" },
      account: null,
      trigger: "update",
      session: { groups: ["system:masters"] },
    });
    expect(updated?.groups).toEqual(["ops"]);
    const session = await cb.session({
      session: { expires: "2030-01-01T00:00:00.000Z", user: { email: "a@example.com" } },
      token: { sub: "u1", email: "a@example.com", name: "A", picture: "/p.png", groups: ["ops"], jti: "x" },
    } as never);
    expect(session).toEqual({
      expires: "2030-01-01T00:00:00.000Z",
      user: { name: "A", email: "a@example.com", image: "/p.png", groups: ["ops"] },
    });
  });
});

describe("helpers", () => {
  test("allowedToSignIn: emails, domains, groups; empty lists allow all", () => {
    const none = { emails: [], domains: [], groups: [] };
    expect(allowedToSignIn(none, { email: null })).toBe(true);
    const allow = { emails: ["Boss@corp.com"], domains: ["@example.com"], groups: ["admins"] };
    expect(allowedToSignIn(allow, { email: "boss@corp.com" })).toBe(true);
    expect(allowedToSignIn(allow, { email: "x@EXAMPLE.com" })).toBe(true);
    expect(allowedToSignIn(allow, { email: "x@example.com.evil.org" })).toBe(false);
    expect(allowedToSignIn(allow, { email: "x@other.com", groups: ["admins"] })).toBe(true);
    expect(allowedToSignIn(allow, { email: "x@other.com", groups: ["users"] })).toBe(false);
    expect(allowedToSignIn(allow, { email: null })).toBe(false);
  });

  test.each([
    { profile: { email: "a@example.com", email_verified: true }, required: true, refused: false },
    { profile: { email: "a@example.com", email_verified: "true" }, required: true, refused: false },
    { profile: { email: "a@example.com", email_verified: false }, required: true, refused: true },
    { profile: { email: "a@example.com", email_verified: false }, required: false, refused: true },
    { profile: { email: "a@example.com", email_verified: "false" }, required: false, refused: true },
    { profile: { email: "a@example.com", email_verified: 1 }, required: false, refused: true },
    { profile: { email: "a@example.com" }, required: true, refused: true },
    { profile: { email: "a@example.com", email_verified: null }, required: true, refused: true },
    { profile: { email: "a@example.com" }, required: false, refused: false },
    { profile: { email_verified: true }, required: false, refused: true },
    { profile: { email: "", email_verified: true }, required: false, refused: true },
    { profile: { email: ["a@example.com"], email_verified: true }, required: false, refused: true },
  ])(
    "oidcEmailRefusal($profile, requireVerified: $required) refuses: $refused",
    ({ profile, required, refused }) => {
      const reason = oidcEmailRefusal(profile, required);
      if (refused) expect(reason).toMatch(/email/);
      else expect(reason).toBeUndefined();
    },
  );

  test("groupsOf: list or separated string", () => {
    expect(groupsOf(["a", 1, "", "b"])).toEqual(["a", "b"]);
    expect(groupsOf("a b,c")).toEqual(["a", "b", "c"]);
    expect(groupsOf(undefined)).toEqual([]);
  });

  test("scrub removes tokens, secrets and cookies at any depth", () => {
    expect(
      scrub({ a: 1, access_token: "x", nested: { cookie: "c", list: [{ client_secret: "s", ok: "y" }] } }),
    ).toEqual({
      a: 1,
      access_token: "[redacted]",
      nested: { cookie: "[redacted]", list: [{ client_secret: "[redacted]", ok: "y" }] },
    });
  });

  test("publicSession drops everything else", () => {
    expect(
      publicSession(
        { expires: "2030-01-01T00:00:00.000Z" },
        {
          name: "n",
          email: "e",
          groups: ["g"],
        },
      ),
    ).toEqual({
      expires: "2030-01-01T00:00:00.000Z",
      user: { name: "n", email: "e", image: null, groups: ["g"] },
    });
  });
});
