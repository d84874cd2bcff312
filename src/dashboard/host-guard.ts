// Host pinning: with AUTH_URL set and AUTH_TRUST_HOST off, the dashboard answers for AUTH_URL's host
// only. Auth.js builds its pages, links and cookies from the request's host, so a request naming another
// host (Host or X-Forwarded-Host) is refused before it reaches Auth.js, the page or the JSON API.
import type { FastifyRequest } from "fastify";
import { InvalidError } from "../rest/errors.js";
import type { AuthSettings } from "./auth-settings.js";

export interface HostGuard {
  /** Refuses a request naming a host other than the pinned one (throws InvalidError, 400). */
  readonly check: (req: FastifyRequest) => void;
  /**
   * `check`, then the request names the pinned host only, whatever Host or X-Forwarded-Host the client
   * sent: for Auth.js, which renders pages and links from the request's host.
   */
  readonly pin: (req: FastifyRequest) => void;
}

export function hostGuard(settings: Pick<AuthSettings, "url" | "trustHost">): HostGuard {
  const pinned = settings.url ? new URL(settings.url) : undefined;
  const untrusted = (req: FastifyRequest): string | undefined => {
    if (settings.trustHost || !pinned) return undefined;
    const forwarded = req.headers["x-forwarded-host"];
    const claimed = [req.headers.host, ...(Array.isArray(forwarded) ? forwarded : [forwarded])];
    return claimed.find((h) => h !== undefined && h.toLowerCase() !== pinned.host);
  };
  const check = (req: FastifyRequest): void => {
    const host = untrusted(req);
    if (host === undefined) return;
    throw new InvalidError(
      `Untrusted host "${host}": this dashboard answers only for ${pinned?.host ?? "?"} (AUTH_URL; AUTH_TRUST_HOST is off).`,
    );
  };
  const pin = (req: FastifyRequest): void => {
    check(req);
    // Fastify's own way to change what a request's headers say: those set here are laid over the
    // ones received, for `req.headers`, `req.host` and `req.protocol` alike (Node's request is untouched).
    if (pinned)
      req.headers = {
        host: pinned.host,
        "x-forwarded-host": undefined,
        "x-forwarded-proto": pinned.protocol.replace(/:$/, ""),
      };
  };
  return { check, pin };
}
