// The sign-in providers of the settings: generic OIDC, GitHub and credentials (a users file), offered
// per Host header with AUTH_PROVIDERS_BY_HOST (lazy initialisation).
import { CredentialsSignin } from "@auth/core/errors";
import Credentials from "@auth/core/providers/credentials";
import GitHub from "@auth/core/providers/github";
import type { Provider } from "@auth/core/providers";
import type { Profile } from "@auth/core/types";
import type { Logger } from "pino";
import type { AuthSettings } from "./auth-settings.js";
import { verifyCredentials, type UserSource } from "./credentials.js";
import { groupsOf } from "./session.js";

/** What the providers need besides the settings. */
export interface ProviderDeps {
  readonly log: Logger;
  /** Audit log: sign-ins, sign-outs, users and accounts (pino, marked `audit: true`). */
  readonly audit: Logger;
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

export function providers(settings: AuthSettings, deps: ProviderDeps, host: string | undefined): Provider[] {
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
    // Auth.js: the code is part of a URL and must not say whether the username or the password was wrong.
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
            deps.log.error({ err }, "credentials users file unreadable");
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
