// The callback-URL guard in front of Auth.js: what it keeps (our origin only) and what it removes from
// the query and the Cookie header, so that Auth.js never meets a value it answers 500 to.
import { cleanCookieHeader, cleanQuery, isSameOriginCallback } from "../../../src/dashboard/callback-url.js";

const ORIGIN = "http://127.0.0.1:8080";

test.each(["/", "/#/requests/ns/a", "/dashboard?x=1", `${ORIGIN}/ok`, "/%2F%2Fevil.example"])(
  "keeps our own %j",
  (value) => {
    expect(isSameOriginCallback(value, ORIGIN)).toBe(true);
  },
);

test.each([
  "javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "\\/evil.example",
  "%2F%2Fevil.example",
  "//evil.example",
  "https://evil.example",
  "/\\evil",
  "/\t/evil.example",
  "/\u0000",
  "https://127.0.0.1:8080@evil.example/",
  "http://user:pw@127.0.0.1:8080/",
  "https://127.0.0.1:8080/",
  "ftp://127.0.0.1:8080/",
  "",
  "relative/path",
])("drops %j", (value) => {
  expect(isSameOriginCallback(value, ORIGIN)).toBe(false);
});

test("the query keeps every other parameter and the same-origin callbackUrl values", () => {
  expect(cleanQuery("?callbackUrl=%2F&x=1", ORIGIN)).toBeUndefined();
  expect(cleanQuery("?callbackUrl=javascript%3Aalert(1)&x=1", ORIGIN)).toBe("?x=1");
  expect(cleanQuery("?callbackUrl=%2F%2Fevil.example", ORIGIN)).toBe("");
  expect(cleanQuery("?callbackUrl=%2Fok&callbackUrl=data%3Ax", ORIGIN)).toBe("?callbackUrl=%2Fok");
  expect(cleanQuery("?error=Configuration", ORIGIN)).toBeUndefined();
});

test("the Cookie header loses a foreign callback-url cookie, and only that", () => {
  const session = "authjs.session-token=abc";
  expect(cleanCookieHeader(`${session}; authjs.callback-url=%2F`, ORIGIN)).toBeUndefined();
  expect(cleanCookieHeader(`${session}; authjs.callback-url=javascript%3Ax`, ORIGIN)).toBe(session);
  expect(cleanCookieHeader(`__Secure-authjs.callback-url=%5C%2Fevil; ${session}`, ORIGIN)).toBe(session);
  expect(cleanCookieHeader(`authjs.callback-url=%E0%A4%A; ${session}`, ORIGIN)).toBe(session);
  // AUTH_COOKIES may rename it: then only that name is the callback cookie.
  expect(cleanCookieHeader(`mine=data%3Ax; ${session}`, ORIGIN, "mine")).toBe(session);
  expect(cleanCookieHeader(`authjs.callback-url=data%3Ax`, ORIGIN, "mine")).toBeUndefined();
});
