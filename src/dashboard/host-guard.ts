// Host pinning: with AUTH_URL set and AUTH_TRUST_HOST off, the dashboard answers for AUTH_URL's host
// only. Auth.js builds its pages, links and cookies from the request's host, so a request naming another
// host (Host or X-Forwarded-Host) is refused before it reaches Auth.js, the page or the JSON API.
import type { Request, RequestHandler } from "express";
import { InvalidError } from "../rest/errors.js";
import type { AuthSettings } from "./auth-settings.js";

export interface HostGuard {
  /** Refuses a request naming a host other than the pinned one (InvalidError, 400). */
  readonly check: RequestHandler;
  /**
   * `check`, then the request names the pinned host only, whatever Host or X-Forwarded-Host the client
   * sent: for Auth.js, which renders pages and links from the request's host.
   */
  readonly pin: RequestHandler;
}

export function hostGuard(settings: Pick<AuthSettings, "url" | "trustHost">): HostGuard {
  const pinned = settings.url ? new URL(settings.url) : undefined;
  const untrusted = (req: Request): string | undefined => {
    if (settings.trustHost || !pinned) return undefined;
    const forwarded = req.headers["x-forwarded-host"];
    const claimed = [req.headers.host, ...(Array.isArray(forwarded) ? forwarded : [forwarded])];
    return claimed.find((h) => h !== undefined && h.toLowerCase() !== pinned.host);
  };
  const check: RequestHandler = (req, _res, next) => {
    const host = untrusted(req);
    if (host === undefined) {
      next();
      return;
    }
    next(
      new InvalidError(
        `Untrusted host "${host}": this dashboard answers only for ${pinned?.host ?? "?"} (AUTH_URL; AUTH_TRUST_HOST is off).`,
      ),
    );
  };
  const pin: RequestHandler = (req, res, next) => {
    if (untrusted(req) !== undefined) {
      check(req, res, next);
      return;
    }
    if (pinned) {
      req.headers.host = pinned.host;
      delete req.headers["x-forwarded-host"];
      req.headers["x-forwarded-proto"] = pinned.protocol.replace(/:$/, "");
    }
    next();
  };
  return { check, pin };
}
