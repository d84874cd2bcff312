// The dashboard's rules in the Auth.js callbacks: who may sign in (the allow-list) and where a redirect
// may go (our origin only). Pure functions, unit-tested on their own.
import type { AuthSettings } from "./auth-settings.js";

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
