// Validated settings + dependencies (+ the request's host, for lazy initialisation) → the Auth.js
// configuration (docs/design.md §8). Every AuthConfig and session option of Auth.js comes from a
// setting (auth-settings.ts); callbacks, events and the logger are always ours (allow-list, groups,
// same-origin redirects, audit log, pino).
import { randomBytes, randomUUID } from "node:crypto";
import type { AuthConfig } from "@auth/core";
import type { Adapter } from "@auth/core/adapters";
import { CredentialsSignin } from "@auth/core/errors";
import type { JWT } from "@auth/core/jwt";
import { skipCSRFCheck } from "@auth/core";
import type { Session, User } from "@auth/core/types";
import { providers, type ProviderDeps } from "./auth-providers.js";
import type { AuthSettings } from "./auth-settings.js";
import { groupsOf, publicSession } from "./session.js";
import { allowedToSignIn, oidcEmailRefusal, safeRedirect } from "./sign-in-rules.js";

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

export interface AuthDeps extends ProviderDeps {
  readonly adapter?: Adapter;
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
export function buildAuthConfig(settings: AuthSettings, deps: AuthDeps, host?: string): AuthConfig {
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
        // Not `{ err }`: Auth.js errors and their causes carry the provider's answers (tokens, codes),
        // so only names, messages and the cause's non-sensitive fields go through `scrub`.
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
      signIn: ({ user, account, profile }) => {
        // The OIDC email becomes the RBAC username: only an address the provider vouches for.
        const refusal =
          account?.provider === "oidc" && settings.oidc
            ? oidcEmailRefusal(profile ?? {}, settings.oidc.requireEmailVerified)
            : undefined;
        if (refusal !== undefined) {
          audit.warn(
            { event: "signInDenied", provider: "oidc", reason: refusal, email: user.email ?? undefined },
            "sign-in refused: no verified email",
          );
          return false;
        }
        const groups = user.groups ?? groupsOf(profile?.[settings.oidc?.groupsClaim ?? "groups"]);
        if (allowedToSignIn(settings.allow, { email: user.email ?? null, groups })) return true;
        audit.warn(
          { event: "signInDenied", email: user.email ?? undefined },
          "sign-in not on the allow-list",
        );
        return false;
      },
      jwt: ({ token, user, profile, trigger }) => {
        // Auth.js: data from a client `update` must be validated; the dashboard accepts none.
        if (trigger === "signIn" || trigger === "signUp") {
          const groups = user.groups ?? groupsOf(profile?.[settings.oidc?.groupsClaim ?? "groups"]);
          return { ...token, groups } satisfies JWT;
        }
        return token;
      },
      session: (params) => {
        // Auth.js: the token with the jwt strategy, the adapter's user with the database strategy.
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
