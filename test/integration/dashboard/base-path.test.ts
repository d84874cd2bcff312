// A custom AUTH_BASE_PATH end to end in Chromium: nothing may assume /auth. Sign-in, sign-out and the
// UI's redirect to the sign-in page when its session is gone (a JSON call answered 401) all use the
// configured base path.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { installApi } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers } from "../../support/resize.js";
import {
  ARTIFACTS,
  grant,
  launchChromium,
  startDashboardOperator,
  writeUsersFile,
  type DashboardOperator,
} from "./support.js";

const BASE_PATH = "/sso/v1";
const USER = { username: "bea", password: "base path password", email: "bea@example.com" };

let ns: { name: string; remove: () => Promise<void> };
let op: DashboardOperator;
let browser: Browser;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("dash-basepath");
  await createWorkers(ns.name, "workers");
  await createGroup(ns.name, "workers", { maxSize: 4 });
  await grant(ns.name, "bea", `dashboard:${USER.email}`, ["get", "list"]);
  const usersFile = await writeUsersFile(mkdtempSync(path.join(tmpdir(), "dash-basepath-")), [USER]);
  op = await startDashboardOperator(ns.name, {
    AUTH_SECRET: "base-path-secret-0123456789-abcdefghijklmnop",
    AUTH_CREDENTIALS_FILE: usersFile,
    AUTH_BASE_PATH: BASE_PATH,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser.close();
  await stopAll([op.process]);
  await ns.remove();
});

/**
 * Signs in from `start` through the built-in page and waits for the dashboard to settle: rendered,
 * and its live stream open. Every answer behind the guard refreshes the session cookie (rolling
 * expiry), the stream's too, and the stream is the page's last start-up call: until its answer has
 * arrived, a cookie cleared or a session signed out can come back with it.
 */
async function signIn(page: Page, start: string): Promise<void> {
  await page.goto(`${op.baseUrl}${start}`);
  await page.waitForURL((url) => url.pathname === `${BASE_PATH}/signin`);
  await page.fill('input[name="username"]', USER.username);
  await page.fill('input[name="password"]', USER.password);
  await page.click(`form[action$="${BASE_PATH}/callback/credentials"] button`);
  await page.locator('[data-group$="/workers"]').waitFor();
  await page.locator("#live.on").waitFor();
}

test("the sign-in endpoints live under the base path only", async () => {
  expect((await fetch(`${op.baseUrl}${BASE_PATH}/providers`)).status).toBe(200);
  const guarded = await fetch(`${op.baseUrl}/`, { redirect: "manual" });
  expect(guarded.headers.get("location")).toBe(`${BASE_PATH}/signin?callbackUrl=%2F`);
  // Nothing answers at the default base path.
  expect((await fetch(`${op.baseUrl}/auth/signin`, { redirect: "manual" })).status).toBe(404);
});

test("sign-out in Chromium ends the session through the base path", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, "/");
  const signOut = page.waitForRequest((req) => req.method() === "POST");
  await page.getByRole("button", { name: "Sign out" }).click();
  expect(new URL((await signOut).url()).pathname).toBe(`${BASE_PATH}/signout`);
  // Signed out, the dashboard sends the browser back to the sign-in page.
  await page.waitForURL((url) => url.pathname === `${BASE_PATH}/signin`);
  expect((await page.request.get(`${op.baseUrl}/dashboard/api/me`)).status()).toBe(401);
  await page.screenshot({ path: path.join(ARTIFACTS, "base-path-signed-out.png"), fullPage: true });
  await context.close();
});

test("a 401 from the JSON API sends the page to the sign-in page under the base path", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, "/#/groups");
  // The page has loaded and rendered (it follows hash changes from then on).
  await page.getByRole("heading", { name: "Instance groups" }).waitFor();
  // The session ends behind the page's back (expiry, sign-out in another tab), once no answer that
  // would set its cookie again is on its way (signIn waited for the live stream).
  await context.clearCookies();
  await page.evaluate('window.location.hash = "#/operations"');
  await page.waitForURL((url) => url.pathname === `${BASE_PATH}/signin`);
  // Back to where the user was after signing in again, fragment included.
  expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe("/#/operations");
  await context.close();
});
