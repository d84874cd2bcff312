// A group's bookings on its dashboard timeline, in Chromium against the operator process and the real
// API server: FutureReservations created with kubectl appear on the open group page (APPROVED, and
// DECLINED with the controller's message naming the earliest window that fits), one near enough to be
// delivered shows its delivery request linked, stays in its window and drops off when it ends, a
// cancel shows live (no reload), and a user who may not list futurereservations in the namespace sees
// none of them, neither on the page nor from the JSON API, while seeing the group and its requests.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { API_VERSION, FUTURE_RESERVATION, GROUP } from "../../../src/api/names.js";
import { rfc3339 } from "../../../src/api/time.js";
import { installApi, kubectl } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers } from "../../support/resize.js";
import {
  ARTIFACTS,
  grant,
  grantRules,
  launchChromium,
  startDashboardOperator,
  writeUsersFile,
  type DashboardOperator,
} from "./support.js";

const PLANNER = { username: "planner", password: "planner password 1", email: "planner@example.com" };
// May read groups and requests, not bookings.
const OUTSIDER = { username: "outsider", password: "outsider password 1", email: "outsider@example.com" };
const MIN = 60_000;

let ns: { name: string; remove: () => Promise<void> };
let op: DashboardOperator;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  await installApi();
  await kubectl(
    "wait",
    "--for=condition=Established",
    "--timeout=60s",
    `crd/${FUTURE_RESERVATION.plural}.${GROUP}`,
  );
  ns = await createTestNamespace("dash-book");
  await createWorkers(ns.name, "workers");
  await createGroup(ns.name, "workers", { maxSize: 3 });
  await grant(ns.name, "dash-planner", `dashboard:${PLANNER.email}`, ["get", "list"]);
  await grantRules(ns.name, "dash-planner-bookings", `dashboard:${PLANNER.email}`, [
    { apiGroups: [GROUP], resources: [FUTURE_RESERVATION.plural], verbs: ["get", "list"] },
  ]);
  await grant(ns.name, "dash-outsider", `dashboard:${OUTSIDER.email}`, ["get", "list"]);
  dir = mkdtempSync(path.join(tmpdir(), "dash-book-"));
  const usersFile = await writeUsersFile(dir, [PLANNER, OUTSIDER]);
  op = await startDashboardOperator(ns.name, {
    AUTH_SECRET: "bookings-test-secret-0123456789-abcdefghijk",
    AUTH_CREDENTIALS_FILE: usersFile,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser.close();
  await stopAll([op.process]);
  await ns.remove();
});

async function groupPageAs(user: typeof PLANNER): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${op.baseUrl}/`);
  await page.waitForURL(/\/auth\/signin/);
  await page.fill('input[name="username"]', user.username);
  await page.fill('input[name="password"]', user.password);
  await page.click('form[action$="/auth/callback/credentials"] button');
  await page.getByRole("heading", { name: "Instance groups" }).waitFor();
  await page.locator("#live.on").waitFor();
  await page.goto(`${op.baseUrl}/#/groups/${ns.name}/workers`);
  await page.getByRole("heading", { name: "Group workers" }).waitFor();
  return page;
}

/** `kubectl create` of a booking of `count` instances from `start` for `seconds`. */
async function book(name: string, count: number, start: number, seconds: number): Promise<void> {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `apiVersion: ${API_VERSION}`,
      `kind: ${FUTURE_RESERVATION.kind}`,
      `metadata: { name: ${name}, namespace: ${ns.name} }`,
      "spec:",
      "  instanceGroupManager: workers",
      `  totalCount: ${String(count)}`,
      `  timeWindow: { startTime: "${rfc3339(start)}", duration: { seconds: "${String(seconds)}" } }`,
      "",
    ].join("\n"),
  );
  await kubectl("create", "-f", file);
}

const bookingRow = (page: Page, name: string) => page.locator(`li[data-booking="${ns.name}/${name}"]`);
const statusOf = (page: Page, name: string, status: string, timeout = 15_000) =>
  bookingRow(page, name).locator("[data-field=status]").filter({ hasText: status }).waitFor({ timeout });
const marker = (page: Page) => page.evaluate(() => (window as unknown as { marker?: number }).marker);

test("bookings appear on the group's timeline, change status live, drop off when ended, and only for who may read them", async () => {
  const page = await groupPageAs(PLANNER);
  await page.getByText("No bookings ahead.").waitFor();
  // A marker that a reload would wipe out.
  await page.evaluate(() => {
    (window as unknown as { marker: number }).marker = 42;
  });

  // Ahead: 2 of maxSize 3 for 10 minutes in an hour, approved; 3 more overlapping it, declined.
  const inAnHour = Date.now() + 60 * MIN;
  await book("ahead", 2, inAnHour, 600);
  await statusOf(page, "ahead", "APPROVED");
  const ahead = bookingRow(page, "ahead");
  expect(await ahead.locator("[data-field=count]").textContent()).toBe("2 instance(s)");
  expect(await ahead.locator("[data-field=window]").textContent()).toContain("→");
  expect(await ahead.locator("[data-field=delivery]").textContent()).toBe("fr-ahead (not created)");
  await page.locator('figure.bookings-chart rect.window.APPROVED[data-window="ahead"]').waitFor();

  await book("too-big", 3, inAnHour + 5 * MIN, 600);
  await statusOf(page, "too-big", "DECLINED");
  const declined = JSON.parse(
    await kubectl("get", FUTURE_RESERVATION.plural, "too-big", "-n", ns.name, "-o", "json"),
  ) as { status: { message: string } };
  expect(declined.status.message).toContain("The earliest window of the same length that fits is");
  expect(await bookingRow(page, "too-big").locator("[data-field=message]").textContent()).toBe(
    declined.status.message,
  );
  // By start: ahead first.
  expect(
    await page
      .locator("li[data-booking]")
      .evaluateAll((lis) => lis.map((li) => li.getAttribute("data-booking"))),
  ).toEqual([`${ns.name}/ahead`, `${ns.name}/too-big`]);

  // Soon: delivered right away (the lead time is longer than 40 s), in its window, then ended.
  await book("soon", 1, Date.now() + 40_000, 20);
  const soon = bookingRow(page, "soon");
  await soon.locator('[data-field=delivery] a[href$="/fr-soon"]').waitFor({ timeout: 20_000 });
  expect(await soon.locator("[data-field=delivery] a").getAttribute("href")).toBe(
    `#/requests/${ns.name}/fr-soon`,
  );
  await statusOf(page, "soon", "FULFILLED", 60_000);
  await page.locator(`li.in-window[data-booking="${ns.name}/soon"]`).waitFor({ timeout: 60_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, "group-bookings.png"), fullPage: true });
  await soon.waitFor({ state: "detached", timeout: 60_000 });

  // Cancelled with kubectl: the open page shows it, without a reload.
  await kubectl(
    "patch",
    FUTURE_RESERVATION.plural,
    "ahead",
    "-n",
    ns.name,
    "--type=merge",
    "-p",
    '{"spec":{"cancel":true}}',
  );
  await statusOf(page, "ahead", "CANCELLED");
  await page.locator('figure.bookings-chart rect.window.CANCELLED[data-window="ahead"]').waitFor();
  expect(await marker(page)).toBe(42);

  // The outsider sees the group and its requests, no booking: not on the page, not from the API,
  // not on the stream (a booking created while their page is open stays away).
  const outside = await groupPageAs(OUTSIDER);
  await outside.locator(`tr[data-request="${ns.name}/fr-soon"]`).first().waitFor();
  await outside.getByText("No bookings ahead.").waitFor();
  const answer = await outside.request.get(`${op.baseUrl}/dashboard/api/bookings`);
  expect(answer.status()).toBe(200);
  expect(((await answer.json()) as { items: unknown[] }).items).toEqual([]);
  const planned = await page.request.get(`${op.baseUrl}/dashboard/api/bookings`);
  expect(((await planned.json()) as { items: { name: string }[] }).items.map((b) => b.name).sort()).toEqual([
    "ahead",
    "soon",
    "too-big",
  ]);
  await book("later", 1, inAnHour + 30 * MIN, 600);
  await statusOf(page, "later", "APPROVED");
  // A request created after it reaches the outsider's open page: each stream's messages come in order,
  // so the booking's would have come before it.
  const file = path.join(dir, "after-later.yaml");
  writeFileSync(
    file,
    `apiVersion: ${API_VERSION}\nkind: ResizeRequest\nmetadata: { name: after-later, namespace: ${ns.name} }\nspec: { instanceGroupManager: workers, resizeBy: 1 }\n`,
  );
  await kubectl("create", "-f", file);
  await outside.locator(`tr[data-request="${ns.name}/after-later"]`).first().waitFor({ timeout: 10_000 });
  expect(await outside.locator("li[data-booking]").count()).toBe(0);
  expect(await outside.getByText("No bookings ahead.").isVisible()).toBe(true);
  await outside.context().close();
  await page.context().close();
});
