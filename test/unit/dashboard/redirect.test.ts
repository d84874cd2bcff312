// The `redirect` callback: whatever a hostile callbackUrl looks like, the result is on our origin.
import { safeRedirect } from "../../../src/dashboard/sign-in-rules.js";

const BASE = "https://dash.example.com";

describe("safeRedirect", () => {
  test.each([
    ["/", `${BASE}/`],
    ["/#/requests/ns/a", `${BASE}/#/requests/ns/a`],
    ["/dashboard?x=1", `${BASE}/dashboard?x=1`],
    [`${BASE}/ok`, `${BASE}/ok`],
    ["/%2F%2Fevil.example.com", `${BASE}/%2F%2Fevil.example.com`],
  ])("keeps our own %s", (url, expected) => {
    expect(safeRedirect(url, BASE)).toBe(expected);
  });

  test.each([
    "https://evil.example.com/",
    "http://dash.example.com/", // other scheme = other origin
    "https://dash.example.com:8443/",
    "//evil.example.com",
    "///evil.example.com",
    "/\\evil.example.com",
    "\\\\evil.example.com",
    "\\/evil.example.com",
    "https:evil.example.com",
    "https://dash.example.com@evil.example.com/",
    "https://evil.example.com#@dash.example.com",
    "https://user:pass@dash.example.com/",
    "javascript:alert(document.cookie)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/\t/evil.example.com",
    "/\n/evil.example.com",
    "%2F%2Fevil.example.com".replace(/%2F/g, "/"),
    "https://evil.example.com%2F@dash.example.com",
    "https://dash.example.com.evil.example.com/",
    "http://[::1]/",
    "  //evil.example.com",
  ])("sends hostile %j to our origin", (url) => {
    const result = safeRedirect(url, BASE);
    expect(new URL(result).origin).toBe(BASE);
    expect(new URL(result).username).toBe("");
  });
});
