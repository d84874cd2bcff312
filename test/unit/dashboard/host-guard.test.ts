// Host pinning: with AUTH_URL and AUTH_TRUST_HOST off, only AUTH_URL's host is answered; Auth.js's
// requests are rewritten to name that host only.
import Fastify, { type FastifyRequest } from "fastify";
import { hostGuard } from "../../../src/dashboard/host-guard.js";
import { InvalidError } from "../../../src/rest/errors.js";

const URL_SETTING = "https://dash.example.com";

/**
 * Runs `handler` on a Fastify request with these headers: what it threw, and the headers after (as
 * Fastify's request says them, without the user-agent light-my-request adds of its own).
 */
async function run(
  handler: (req: FastifyRequest) => void,
  headers: Readonly<Record<string, string | undefined>>,
): Promise<{ passed: unknown; headers: Record<string, unknown> }> {
  const app = Fastify();
  let passed: unknown;
  let seen: Record<string, unknown> = {};
  app.get("/", (req) => {
    try {
      handler(req);
    } catch (err) {
      passed = err;
    }
    seen = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== "user-agent"));
    return "";
  });
  const sent = Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])),
  );
  await app.inject({ method: "GET", url: "/", headers: sent });
  await app.close();
  return { passed, headers: seen };
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
])(
  "trustHost=$trustHost url=$url $headers → refused: $refused",
  async ({ trustHost, url, headers, refused }) => {
    const guard = hostGuard({ trustHost, ...(url && { url }) });
    for (const handler of [guard.check, guard.pin]) {
      const { passed } = await run(handler, headers);
      if (refused === undefined) expect(passed).toBeUndefined();
      else {
        expect(passed).toBeInstanceOf(InvalidError);
        expect(String(passed)).toContain(`Untrusted host "${refused}"`);
      }
    }
  },
);

test("pin: Auth.js sees the pinned host and protocol only", async () => {
  const { passed, headers } = await run(hostGuard({ trustHost: false, url: URL_SETTING }).pin, {
    host: "dash.example.com",
    "x-forwarded-proto": "http",
  });
  expect(passed).toBeUndefined();
  expect(headers).toEqual({ host: "dash.example.com", "x-forwarded-proto": "https" });
});

test("pin with a trusted host: a forwarded host is replaced by AUTH_URL's", async () => {
  const { headers } = await run(hostGuard({ trustHost: true, url: URL_SETTING }).pin, {
    host: "10.0.0.1:8080",
    "x-forwarded-host": "proxy.example",
  });
  expect(headers).toEqual({ host: "dash.example.com", "x-forwarded-proto": "https" });
});
