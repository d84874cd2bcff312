// Sign-in end to end against the operator process: OIDC with a real in-process OpenID provider and
// credentials in Chromium; the guard; tampered, expired and foreign cookies; secret rotation; hostile
// callbackUrls; database sessions in Redis removed by sign-out; production without a secret.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encode } from "@auth/core/jwt";
import { Redis } from "ioredis";
import type { Browser, Page } from "playwright-core";
import { redisAdapter } from "../../../src/dashboard/redis-adapter.js";
import { installApi, repoRoot } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers } from "../../support/resize.js";
import {
  ARTIFACTS,
  grant,
  Jar,
  launchChromium,
  startDashboardOperator,
  startOidcProvider,
  writeUsersFile,
  type DashboardOperator,
  type OidcProvider,
} from "./support.js";
import { freePort } from "../../../testbed/processes.js";

const OLD_SECRET = "old-secret-0123456789-abcdefghijklmnopqrstuvwxyz";
const NEW_SECRET = "new-secret-0123456789-abcdefghijklmnopqrstuvwxyz";
const ADMIN = { username: "admin", password: "correct horse battery", email: "admin@example.com" };

let ns: { name: string; remove: () => Promise<void> };
let oidc: OidcProvider;
let op: DashboardOperator;
let rotated: DashboardOperator;
let database: DashboardOperator;
let browser: Browser;
let redis: Redis;
const ports: number[] = [];

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("dash-signin");
  await createWorkers(ns.name, "workers");
  await createGroup(ns.name, "workers", { maxSize: 4 });
  for (const user of ["dashboard:admin@example.com", "dashboard:alice@example.com"])
    await grant(ns.name, user.replace(/[^a-z]/g, "-"), user, ["get", "list", "create", "update"]);
  const dir = mkdtempSync(path.join(tmpdir(), "dash-signin-"));
  const usersFile = await writeUsersFile(dir, [ADMIN]);
  ports.push(await freePort(), await freePort(), await freePort());
  oidc = await startOidcProvider(
    ports.map((p) => `http://127.0.0.1:${p}/auth/callback/oidc`),
    // Accounts whose email the provider has not verified, or does not say.
    { mallory: { email_verified: false }, nora: { email_verified: undefined } },
  );
  const common = {
    AUTH_CREDENTIALS_FILE: usersFile,
    AUTH_OIDC_ID: oidc.clientId,
    AUTH_OIDC_SECRET: oidc.clientSecret,
    AUTH_OIDC_ISSUER: oidc.issuer,
    AUTH_OIDC_NAME: "Test IdP",
    AUTH_OIDC_SCOPE: "openid email profile groups",
  };
  [op, rotated, database] = await Promise.all([
    startDashboardOperator(ns.name, { ...common, AUTH_SECRET: OLD_SECRET }, { port: ports[0] }),
    // The same deployment after a rotation: the new secret prepended, the old one kept.
    startDashboardOperator(
      ns.name,
      { ...common, AUTH_SECRET: NEW_SECRET, AUTH_SECRET_1: OLD_SECRET },
      { port: ports[1] },
    ),
    startDashboardOperator(
      ns.name,
      { ...common, AUTH_SECRET: NEW_SECRET, AUTH_SESSION_STRATEGY: "database", AUTH_SESSION_MAX_AGE: "3600" },
      { port: ports[2] },
    ),
  ]);
  browser = await launchChromium();
  redis = new Redis(process.env.REDIS_URL ?? "");
});

afterAll(async () => {
  await browser.close();
  redis.disconnect();
  await stopAll([op.process, rotated.process, database.process]);
  await oidc.close();
  await ns.remove();
});

async function signInWithCredentials(page: Page, base: string, password: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.waitForURL(/\/auth\/signin/);
  await page.fill('input[name="username"]', ADMIN.username);
  await page.fill('input[name="password"]', password);
  await page.click('form[action$="/auth/callback/credentials"] button');
}

test("credentials sign-in lands on the dashboard; a wrong password says only CredentialsSignin/credentials", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${op.baseUrl}/`);
  await page.waitForURL(/\/auth\/signin\?callbackUrl=/);
  await page.screenshot({ path: path.join(ARTIFACTS, "signin.png"), fullPage: true });

  await signInWithCredentials(page, op.baseUrl, "wrong password");
  await page.waitForURL(/error=CredentialsSignin/);
  const failed = new URL(page.url());
  expect(failed.pathname).toBe("/auth/signin");
  expect(failed.searchParams.get("error")).toBe("CredentialsSignin");
  expect(failed.searchParams.get("code")).toBe("credentials");
  await page.screenshot({ path: path.join(ARTIFACTS, "signin-failed.png"), fullPage: true });

  await signInWithCredentials(page, op.baseUrl, ADMIN.password);
  await page.waitForURL(`${op.baseUrl}/`);
  await page.getByRole("heading", { name: "Instance groups" }).waitFor();
  await page.locator('[data-group$="/workers"]').waitFor();
  const me = (await (await page.request.get(`${op.baseUrl}/dashboard/api/me`)).json()) as {
    user: Record<string, unknown>;
    kubernetes: { username: string };
  };
  expect(me.user).toEqual({ name: "admin", email: ADMIN.email, image: null, groups: [] });
  expect(me.kubernetes.username).toBe("dashboard:admin@example.com");
  await context.close();
});

/** Signs in at the OpenID provider as `login` (any password), from the dashboard's sign-in page. */
async function signInWithOidc(page: Page, base: string, login: string): Promise<void> {
  await page.goto(`${base}/#/requests`);
  await page.waitForURL(/\/auth\/signin/);
  await page.getByRole("button", { name: /Test IdP/ }).click();
  await page.waitForURL(new RegExp(`^${oidc.issuer}/`));
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "anything");
  await page.click("button[type=submit]");
  // Consent, then back to the dashboard.
  await page.getByRole("button", { name: "Continue" }).click();
}

test("OIDC sign-in against a real OpenID provider lands on the dashboard with the user's groups", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInWithOidc(page, op.baseUrl, "alice");
  // The fragment never reaches the server, so the callbackUrl is the page itself.
  await page
    .waitForURL((url) => url.origin === new URL(op.baseUrl).origin && url.pathname === "/", {
      timeout: 15_000,
    })
    .catch((err: unknown) => {
      throw new Error(`OIDC sign-in ended on ${page.url()}`, { cause: err });
    });
  await page.getByRole("heading", { name: "Instance groups" }).waitFor();
  const me = (await (await page.request.get(`${op.baseUrl}/dashboard/api/me`)).json()) as {
    user: Record<string, unknown>;
    kubernetes: { username: string; groups: string[] };
  };
  expect(me.user).toEqual({ name: "Alice", email: "alice@example.com", image: null, groups: ["sre"] });
  expect(me.kubernetes).toEqual({ username: "dashboard:alice@example.com", groups: ["dashboard:sre"] });
  await context.close();
});

test.each([
  { login: "mallory", claim: "email_verified: false", reason: /not verified/ },
  { login: "nora", claim: "no email_verified", reason: /no email_verified claim/ },
])(
  "OIDC sign-in of $login ($claim) is refused with AccessDenied and an audit line; no session",
  async ({ login, reason }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInWithOidc(page, op.baseUrl, login);
    await page.waitForURL(/\/auth\/error\?error=AccessDenied/, { timeout: 15_000 }).catch((err: unknown) => {
      throw new Error(`OIDC sign-in of ${login} ended on ${page.url()}`, { cause: err });
    });
    await page.screenshot({ path: path.join(ARTIFACTS, `signin-refused-${login}.png`), fullPage: true });
    expect((await page.request.get(`${op.baseUrl}/dashboard/api/me`)).status()).toBe(401);
    const audit = readFileSync(op.process.log, "utf8")
      .split("\n")
      .filter((l) => l.includes('"signInDenied"') && l.includes(`${login}@example.com`))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit).toEqual([
      expect.objectContaining({
        audit: true,
        provider: "oidc",
        reason: expect.stringMatching(reason) as unknown,
      }),
    ]);
    await context.close();
  },
);

test("unauthenticated: a page redirects to sign-in, JSON and the stream answer 401", async () => {
  const page = await fetch(`${op.baseUrl}/`, { redirect: "manual" });
  expect(page.status).toBe(302);
  expect(page.headers.get("location")).toBe("/auth/signin?callbackUrl=%2F");
  for (const p of ["/dashboard/api/groups", "/dashboard/api/stream", "/dashboard/api/me"]) {
    const res = await fetch(`${op.baseUrl}${p}`, { redirect: "manual" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
  }
  // The sign-in page itself is never guarded.
  expect((await fetch(`${op.baseUrl}/auth/signin`, { redirect: "manual" })).status).toBe(200);
});

test("tampered, expired and foreign-secret cookies are rejected; rotation keeps old sessions", async () => {
  const jar = new Jar(op.baseUrl);
  expect(await jar.signIn(ADMIN.username, ADMIN.password)).toBe(`${op.baseUrl}/`);
  const cookie = jar.cookies.get("authjs.session-token") ?? "";
  expect(cookie).not.toBe("");
  const me = (base: string, value: string) =>
    fetch(`${base}/dashboard/api/me`, { headers: { cookie: `authjs.session-token=${value}` } });
  expect((await me(op.baseUrl, cookie)).status).toBe(200);

  const flipped = cookie.slice(0, 40) + (cookie[40] === "A" ? "B" : "A") + cookie.slice(41);
  expect((await me(op.baseUrl, flipped)).status).toBe(401);
  expect((await me(op.baseUrl, "not-a-jwt")).status).toBe(401);

  const token = { sub: "admin", email: ADMIN.email, name: "admin", groups: [] };
  const salt = "authjs.session-token";
  const expired = await encode({ token, secret: OLD_SECRET, salt, maxAge: -60 });
  expect((await me(op.baseUrl, expired)).status).toBe(401);
  const foreign = await encode({
    token,
    secret: "some-other-secret-0123456789-abcdefghij",
    salt,
    maxAge: 600,
  });
  expect((await me(op.baseUrl, foreign)).status).toBe(401);
  // A well-formed cookie made with our secret is accepted (so the refusals above are about the cookie).
  expect((await me(op.baseUrl, await encode({ token, secret: OLD_SECRET, salt, maxAge: 600 }))).status).toBe(
    200,
  );

  // Rotation: the session signed in under the old secret still works once a new one is prepended.
  expect((await me(rotated.baseUrl, cookie)).status).toBe(200);
  // …and new sessions are made with the new secret, which the old deployment cannot read.
  const fresh = new Jar(rotated.baseUrl);
  await fresh.signIn(ADMIN.username, ADMIN.password);
  const newCookie = fresh.cookies.get("authjs.session-token") ?? "";
  expect((await me(rotated.baseUrl, newCookie)).status).toBe(200);
  expect((await me(op.baseUrl, newCookie)).status).toBe(401);
});

const HOSTILE = [
  "https://evil.example.com/",
  "//evil.example.com/",
  "///evil.example.com/",
  "/\\evil.example.com/",
  "\\\\evil.example.com",
  "https:evil.example.com",
  "%2F%2Fevil.example.com",
  "https%3A%2F%2Fevil.example.com",
  "http://127.0.0.1@evil.example.com/",
  "http://evil.example.com#@127.0.0.1/",
  "javascript:alert(document.cookie)",
  "data:text/html,<script>alert(1)</script>",
  "/\t/evil.example.com",
  "http://127.0.0.1.evil.example.com/",
];

test.each(HOSTILE)("hostile callbackUrl %j ends on our origin", async (callbackUrl) => {
  const origin = new URL(op.baseUrl).origin;
  const jar = new Jar(op.baseUrl);
  const location = await jar.signIn(ADMIN.username, ADMIN.password, callbackUrl);
  expect(new URL(location, op.baseUrl).origin).toBe(origin);
  // The sign-in page with the same callbackUrl does not leave our origin either.
  const page = await fetch(`${op.baseUrl}/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`, {
    redirect: "manual",
  });
  const next = page.headers.get("location");
  if (next !== null) expect(new URL(next, op.baseUrl).origin).toBe(origin);
});

test("database sessions: stored in Redis with TTL = maxAge, removed by sign-out, revocable per user", async () => {
  const jar = new Jar(database.baseUrl);
  expect(await jar.signIn(ADMIN.username, ADMIN.password)).toBe(`${database.baseUrl}/`);
  const token = jar.cookies.get("authjs.session-token") ?? "";
  // The cookie holds only a session token, not a JWT.
  expect(token).toMatch(/^[0-9a-f-]{36}$/);
  const ttl = await redis.pttl(`authjs:session:${token}`);
  expect(ttl).toBeGreaterThan(3_500_000);
  expect(ttl).toBeLessThanOrEqual(3_600_000);
  expect((await jar.fetch("/dashboard/api/me")).status).toBe(200);

  const csrfToken = await jar.csrf();
  const out = await jar.fetch("/auth/signout", { method: "POST", form: { csrfToken, callbackUrl: "/" } });
  expect(out.status).toBe(302);
  expect(await redis.exists(`authjs:session:${token}`)).toBe(0);
  const stale = await fetch(`${database.baseUrl}/dashboard/api/me`, {
    headers: { cookie: `authjs.session-token=${token}` },
  });
  expect(stale.status).toBe(401);

  // An admin revokes every session of a user at once.
  const a = new Jar(database.baseUrl);
  const b = new Jar(database.baseUrl);
  await a.signIn(ADMIN.username, ADMIN.password);
  await b.signIn(ADMIN.username, ADMIN.password);
  expect(await redisAdapter(redis).revokeUserSessions("admin")).toBeGreaterThanOrEqual(2);
  expect((await a.fetch("/dashboard/api/me")).status).toBe(401);
  expect((await b.fetch("/dashboard/api/me")).status).toBe(401);
});

test("production without a secret refuses to start with MissingSecret", () => {
  const res = spawnSync(
    process.execPath,
    ["--import", "tsx", "src/cli.ts", "run", "--http-port=0", "--metrics-port=0", "--leader-elect=false"],
    {
      cwd: repoRoot,
      env: { ...process.env, NODE_ENV: "production", AUTH_CREDENTIALS_FILE: "/nonexistent", AUTH_SECRET: "" },
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  expect(res.status).not.toBe(0);
  expect(res.stderr).toMatch(/MissingSecret: AUTH_SECRET is required in production/);
});
