// Hostile or malformed callback URLs never reach Auth.js. Auth.js checks the `callbackUrl` query
// parameter and the callback-url cookie before anything else and answers InvalidCallbackUrl with its
// 500 "server configuration" page, so `javascript:…`, `data:…`, `\/evil.example` or a literal
// `%2F%2Fevil.example` would each be a server error caused by user input. Such values are removed from
// the request instead: the sign-in then uses the default callback (our origin), exactly what the
// `redirect` callback (safeRedirect) makes of any other foreign URL.

const PARAM = "callbackUrl";
/** Auth.js's cookie, with or without the `__Secure-` prefix (unless AUTH_COOKIES renames it). */
const DEFAULT_COOKIE = /^(__Secure-)?authjs\.callback-url$/;

/**
 * Whether Auth.js would accept `value` and it stays on `origin`: a path (Auth.js resolves values that
 * start with "/" against the origin, anything else must be an absolute http(s) URL), no control
 * characters (browsers strip them in differing ways), no userinfo.
 */
export function isSameOriginCallback(value: string, origin: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return false;
  let url: URL;
  try {
    url = value.startsWith("/") ? new URL(value, origin) : new URL(value);
  } catch {
    return false;
  }
  return (
    /^https?:$/.test(url.protocol) && url.origin === origin && url.username === "" && url.password === ""
  );
}

/** The query string without the `callbackUrl` values that are not same-origin; undefined if unchanged. */
export function cleanQuery(search: string, origin: string): string | undefined {
  const params = new URLSearchParams(search);
  const values = params.getAll(PARAM);
  const kept = values.filter((v) => isSameOriginCallback(v, origin));
  if (kept.length === values.length) return undefined;
  params.delete(PARAM);
  for (const v of kept) params.append(PARAM, v);
  const rest = params.toString();
  return rest === "" ? "" : `?${rest}`;
}

/** The Cookie header without callback-url cookies whose value is not same-origin; undefined if unchanged. */
export function cleanCookieHeader(header: string, origin: string, cookieName?: string): string | undefined {
  const isCallbackCookie = (name: string) => (cookieName ? name === cookieName : DEFAULT_COOKIE.test(name));
  const pairs = header.split(";").map((p) => p.trim());
  const kept = pairs.filter((pair) => {
    const eq = pair.indexOf("=");
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (!isCallbackCookie(name)) return true;
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(eq + 1));
    } catch {
      return false;
    }
    return isSameOriginCallback(value, origin);
  });
  return kept.length === pairs.length ? undefined : kept.join("; ");
}

/** The origin Auth.js sees: its Request URL is built from the protocol and the Host header. */
export function authjsOrigin(protocol: string, host: string | undefined): string {
  try {
    return new URL(`${protocol}://${host ?? ""}`).origin;
  } catch {
    // No usable Host: nothing can be same-origin, so every callback URL is dropped.
    return "null";
  }
}

/**
 * What Auth.js is handed of a request, foreign callback URLs dropped from the query and the cookie:
 * the path and query (`url`, as sent), and the Cookie header (undefined without one).
 */
export function withoutForeignCallbacks(
  url: string,
  cookie: string | undefined,
  origin: string,
  cookieName?: string,
): { readonly url: string; readonly cookie: string | undefined } {
  const q = url.indexOf("?");
  const query = q < 0 ? undefined : cleanQuery(url.slice(q), origin);
  return {
    url: q < 0 || query === undefined ? url : url.slice(0, q) + query,
    cookie: cookie ? (cleanCookieHeader(cookie, origin, cookieName) ?? cookie) : cookie,
  };
}
