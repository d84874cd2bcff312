// The dashboard's rules in the Auth.js callbacks: whose OIDC email may become an identity, who may sign
// in (the allow-list) and where a redirect may go (our origin only). Pure functions, unit-tested on
// their own.
import type { AuthSettings } from "./auth-settings.js";

/**
 * Why an OIDC profile's email may not become the user's identity (RBAC sees `<prefix><email>`), or
 * undefined when it may. A provider that lets users type any address would otherwise let them sign in
 * as someone else: the email must carry `email_verified: true` (the string "true" too, as some
 * providers send it). `requireVerified` false trusts a profile without the claim (a provider that only
 * hands out addresses it owns); `email_verified: false`, or anything else but true, is refused always.
 */
export function oidcEmailRefusal(
  profile: { readonly email?: unknown; readonly email_verified?: unknown },
  requireVerified: boolean,
): string | undefined {
  if (typeof profile.email !== "string" || profile.email === "") return "the profile has no email";
  const verified = profile.email_verified;
  if (verified === true || verified === "true") return undefined;
  if (verified === undefined || verified === null)
    return requireVerified ? "the profile has no email_verified claim" : undefined;
  return "the provider has not verified the email (email_verified is not true)";
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

/**
 * Auth.js's `redirect` callback, strictly: only URLs on `baseUrl`'s origin. Parsing with the WHATWG
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
