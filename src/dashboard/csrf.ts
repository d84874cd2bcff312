// CSRF protection of the dashboard's mutations: a signed double-submit token. The token is bound to
// the signed-in identity and signed with the auth secret (any secret of the rotation list verifies),
// handed to the page in JSON (which another origin cannot read) and set as a SameSite=Strict cookie;
// every POST/DELETE must send it in the X-CSRF-Token header and carry the same cookie.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ForbiddenError } from "../rest/errors.js";

const CSRF_HEADER = "x-csrf-token";
const CSRF_COOKIE = "dashboard.csrf";

function sign(secret: string, nonce: string, subject: string): string {
  return createHmac("sha256", secret).update(`dashboard-csrf|${nonce}|${subject}`).digest("base64url");
}

export function issueCsrfToken(secrets: readonly string[], subject: string): string {
  const nonce = randomBytes(18).toString("base64url");
  return `${nonce}.${sign(secrets[0] ?? "", nonce, subject)}`;
}

export function verifyCsrfToken(secrets: readonly string[], subject: string, token: string): boolean {
  const [nonce, mac, extra] = token.split(".");
  if (!nonce || !mac || extra !== undefined) return false;
  const given = Buffer.from(mac);
  return secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, nonce, subject));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

/** Sets the cookie half of the pair (the token is base64url and a dot: nothing to escape). */
export function setCsrfCookie(reply: FastifyReply, token: string, secure: boolean): void {
  // Fastify adds a Set-Cookie to those already set (the session's refreshed cookies).
  void reply.header(
    "Set-Cookie",
    `${CSRF_COOKIE}=${token}; Path=/dashboard; HttpOnly${secure ? "; Secure" : ""}; SameSite=Strict`,
  );
}

/**
 * Refuses a state-changing request without a valid, matching token pair (or from another origin):
 * throws ForbiddenError (reason `csrf`).
 */
export function requireCsrf(
  secrets: readonly string[],
  subjectOf: (req: FastifyRequest) => string | undefined,
): (req: FastifyRequest) => void {
  return (req) => {
    if (req.method === "GET" || req.method === "HEAD") return;
    const origin = req.headers.origin;
    const host = req.headers["x-forwarded-host"] ?? req.headers.host;
    if (origin !== undefined && URL.parse(origin)?.host !== host)
      throw new ForbiddenError("Cross-origin request refused.", "csrf");
    const header = req.headers[CSRF_HEADER];
    const cookie = cookieValue(req.headers.cookie, CSRF_COOKIE);
    const subject = subjectOf(req);
    if (
      typeof header !== "string" ||
      cookie === undefined ||
      header !== cookie ||
      subject === undefined ||
      !verifyCsrfToken(secrets, subject, header)
    )
      throw new ForbiddenError("Missing or invalid CSRF token.", "csrf");
  };
}
