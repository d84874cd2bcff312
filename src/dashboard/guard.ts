// Auth.js's `authorized` behaviour as a route guard in front of the dashboard: a page without a
// session redirects to the sign-in page with a callbackUrl back to it, a JSON call answers 401, and the
// sign-in routes themselves are never guarded (a guarded sign-in page would loop forever).
import type { FastifyReply, FastifyRequest } from "fastify";
import { RestError } from "../rest/errors.js";
import type { DashboardSession } from "./session.js";

export type GuardDecision =
  | { readonly kind: "allow" }
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "unauthorized" };

export interface GuardRequest {
  readonly method: string;
  /** Path and query as the client sent them. */
  readonly originalUrl: string;
  readonly accept?: string;
}

export interface GuardOptions {
  readonly basePath: string;
  /** A custom sign-in page (pages.signIn); the built-in one under basePath otherwise. */
  readonly signInPage?: string;
  /** Path prefixes answered with JSON (401) rather than a redirect. */
  readonly jsonPrefixes: readonly string[];
}

/** Where signing in happens: the custom page, else Auth.js's built-in one under the base path. */
export function signInPage(options: Pick<GuardOptions, "basePath" | "signInPage">): string {
  return options.signInPage ?? `${options.basePath}/signin`;
}

const within = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

export function guardDecision(signedIn: boolean, req: GuardRequest, options: GuardOptions): GuardDecision {
  const path = req.originalUrl.split("?")[0] ?? "/";
  if (within(path, options.basePath)) return { kind: "allow" };
  if (options.signInPage !== undefined && path === options.signInPage) return { kind: "allow" };
  if (signedIn) return { kind: "allow" };
  const accept = req.accept ?? "";
  const wantsJson =
    options.jsonPrefixes.some((p) => within(path, p)) ||
    req.method !== "GET" ||
    (accept.includes("application/json") && !accept.includes("text/html")) ||
    accept.includes("text/event-stream");
  if (wantsJson) return { kind: "unauthorized" };
  const signIn = signInPage(options);
  // Only our own path goes into callbackUrl; the redirect callback checks it again after sign-in.
  return { kind: "redirect", location: `${signIn}?callbackUrl=${encodeURIComponent(req.originalUrl)}` };
}

/**
 * A preHandler hook: reads the session (`readSession`), stores it in `req.session`, decides. A
 * redirect is the answer; a refusal is thrown to the dashboard's error handler.
 */
export function guard(
  readSession: (req: FastifyRequest, reply: FastifyReply) => Promise<DashboardSession | null>,
  options: GuardOptions,
): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (req, reply) => {
    const session = await readSession(req, reply);
    req.session = session;
    const accept = req.headers.accept;
    const decision = guardDecision(
      session !== null,
      { method: req.method, originalUrl: req.url, ...(accept !== undefined && { accept }) },
      options,
    );
    if (decision.kind === "redirect") await reply.redirect(decision.location, 302);
    // A session, not an Authorization header, is missing: no header location in the error.
    else if (decision.kind === "unauthorized") throw new RestError(401, "required", "Sign-in required.");
  };
}
