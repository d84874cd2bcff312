// Host pinning: with AUTH_URL and AUTH_TRUST_HOST off, only AUTH_URL's host is answered; Auth.js's
// requests are rewritten to name that host only.
import type { FastifyRequest } from "fastify";
import { hostGuard } from "../../../src/dashboard/host-guard.js";
import { InvalidError } from "../../../src/rest/errors.js";

const URL_SETTING = "https://dash.example.com";

/** Runs `handler` on a request with these headers: what it threw, and the headers after. */
function run(
  handler: (req: FastifyRequest) => void,
  headers: Record<string, string | string[] | undefined>,
): { passed: unknown; headers: Record<string, string | string[] | undefined> } {
  const raw = { headers: { ...headers } };
  const req = { headers: raw.headers, raw } as unknown as FastifyRequest;
  let passed: unknown;
  try {
    handler(req);
  } catch (err) {
    passed = err;
  }
  return { passed, headers: raw.headers };
}

test.each([
  { trustHost: false, url: URL_SETTING, headers: { host: "dash.example.com" }, refused: undefined },
  { trustHost: false, url: URL_SETTING, headers: { host: "DASH.example.com" }, refused: undefined },
  { trustHost: false, url: URL_SETTING, headers: { host: "evil.example" }, refused: "evil.example" },
  {
    trustHost: false,
    url: URL_SETTING,
    headers: { host: "dash.example.com", "x-forwarded-host": "evil.example" },
    refused: "evil.example",
  },
  { trustHost: true, url: URL_SETTING, headers: { host: "evil.example" }, refused: undefined },
  { trustHost: false, url: undefined, headers: { host: "evil.example" }, refused: undefined },
])("trustHost=$trustHost url=$url $headers → refused: $refused", ({ trustHost, url, headers, refused }) => {
  const guard = hostGuard({ trustHost, ...(url && { url }) });
  for (const handler of [guard.check, guard.pin]) {
    const { passed } = run(handler, headers);
    if (refused === undefined) expect(passed).toBeUndefined();
    else {
      expect(passed).toBeInstanceOf(InvalidError);
      expect(String(passed)).toContain(`Untrusted host "${refused}"`);
    }
  }
});

test("pin: Auth.js sees the pinned host and protocol only", () => {
  const { passed, headers } = run(hostGuard({ trustHost: false, url: URL_SETTING }).pin, {
    host: "dash.example.com",
    "x-forwarded-proto": "http",
  });
  expect(passed).toBeUndefined();
  expect(headers).toEqual({ host: "dash.example.com", "x-forwarded-proto": "https" });
});

test("pin with a trusted host: a forwarded host is replaced by AUTH_URL's", () => {
  const { headers } = run(hostGuard({ trustHost: true, url: URL_SETTING }).pin, {
    host: "10.0.0.1:8080",
    "x-forwarded-host": "proxy.example",
  });
  expect(headers).toEqual({ host: "dash.example.com", "x-forwarded-proto": "https" });
});
