// The `authorized` behaviour: pages redirect to sign-in, JSON answers 401, sign-in routes never loop.
import { guardDecision, type GuardOptions } from "../../../src/dashboard/guard.js";

const options: GuardOptions = { basePath: "/auth", jsonPrefixes: ["/dashboard/api"] };
const page = (originalUrl: string, accept = "text/html,application/xhtml+xml") => ({
  method: "GET",
  originalUrl,
  accept,
});

describe("guardDecision", () => {
  test("signed in: everything passes", () => {
    expect(guardDecision(true, page("/"), options)).toEqual({ kind: "allow" });
    expect(guardDecision(true, page("/dashboard/api/groups", "application/json"), options)).toEqual({
      kind: "allow",
    });
  });

  test("a page redirects to sign-in with a callbackUrl back to it", () => {
    expect(guardDecision(false, page("/"), options)).toEqual({
      kind: "redirect",
      location: "/auth/signin?callbackUrl=%2F",
    });
    expect(guardDecision(false, page("/?a=1&b=2"), options)).toEqual({
      kind: "redirect",
      location: "/auth/signin?callbackUrl=%2F%3Fa%3D1%26b%3D2",
    });
  });

  test("JSON, event streams and mutations answer 401", () => {
    expect(guardDecision(false, page("/dashboard/api/groups"), options).kind).toBe("unauthorized");
    expect(guardDecision(false, page("/", "application/json"), options).kind).toBe("unauthorized");
    expect(guardDecision(false, page("/x", "text/event-stream"), options).kind).toBe("unauthorized");
    expect(guardDecision(false, { method: "POST", originalUrl: "/" }, options).kind).toBe("unauthorized");
  });

  test("sign-in routes and a custom sign-in page are never guarded (no redirect loop)", () => {
    for (const url of ["/auth", "/auth/signin", "/auth/signin?callbackUrl=%2F", "/auth/callback/oidc"])
      expect(guardDecision(false, page(url), options)).toEqual({ kind: "allow" });
    const custom = { ...options, signInPage: "/login" };
    expect(guardDecision(false, page("/login?x=1"), custom)).toEqual({ kind: "allow" });
    expect(guardDecision(false, page("/"), custom)).toEqual({
      kind: "redirect",
      location: "/login?callbackUrl=%2F",
    });
    // A prefix is not the base path.
    expect(guardDecision(false, page("/authority"), options).kind).toBe("redirect");
  });
});
