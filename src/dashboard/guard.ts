// Auth.js's `authorized` behaviour as a route guard in front of the dashboard: a page without a
// session redirects to the sign-in page with a callbackUrl back to it, a JSON call answers 401, and the
// sign-in routes themselves are never guarded (a guarded sign-in page would loop forever).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { RestError } from "../rest/errors.js";
import type { DashboardSession } from "./session.js";

export type GuardDecision =
  | { readonly kind: "allow" }
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "unauthorized" };

export interface GuardRequest {
  readonly method: string;
  /** Path and query as the client sent them (Express `originalUrl`). */
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

/** Express middleware: reads the session (`readSession`), stores it in res.locals.session, decides. */
export function guard(
  readSession: (req: Request, res: Response) => Promise<DashboardSession | null>,
  options: GuardOptions,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    readSession(req, res)
      .then((session) => {
        res.locals.session = session;
        const accept = req.headers.accept;
        const decision = guardDecision(
          session !== null,
          { method: req.method, originalUrl: req.originalUrl, ...(accept !== undefined && { accept }) },
          options,
        );
        if (decision.kind === "allow") next();
        else if (decision.kind === "redirect") res.redirect(302, decision.location);
        // A session, not an Authorization header, is missing: no header location in the error.
        else next(new RestError(401, "required", "Sign-in required."));
      })
      .catch(next);
  };
}
