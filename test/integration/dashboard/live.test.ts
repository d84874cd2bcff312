// The dashboard in Chromium against the operator process: a ResizeRequest created with kubectl shows
// up on the open page within 2 s and its state changes arrive live (no reload); cancel from the UI
// works for a user RBAC allows and is refused for one it does not; CSRF is enforced; a queued request
// shows what it waits for and its exact ETA (on its page, in the group's queue table and as a forecast
// on the capacity chart), computed by the queue model on the server; a navigation moves the focus to
// the page's content without framing it unless the keyboard navigated. Screenshots of the main pages
// (desktop and phone) go to test-artifacts/dashboard/.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { API_VERSION } from "../../../src/api/names.js";
import { installApi, kubectl } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers, getRequest, untilState } from "../../support/resize.js";
import {
  ARTIFACTS,
  grant,
  grantRules,
  launchChromium,
  LIST_EVENTS,
  startDashboardOperator,
  writeUsersFile,
  type DashboardOperator,
} from "./support.js";

const ADMIN = { username: "admin", password: "admin password 1", email: "admin@example.com" };
const VIEWER = { username: "viewer", password: "viewer password 1", email: "viewer@example.com" };

let ns: { name: string; remove: () => Promise<void> };
let op: DashboardOperator;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("dash-live");
  await createWorkers(ns.name, "workers");
  await createGroup(ns.name, "workers", { maxSize: 3 });
  await grant(ns.name, "dash-admin", "dashboard:admin@example.com", ["get", "list", "create", "update"]);
  // Events are shown only to whoever may list them (the request page's events, the Events page).
  await grantRules(ns.name, "dash-admin-events", "dashboard:admin@example.com", [LIST_EVENTS]);
  await grant(ns.name, "dash-viewer", "dashboard:viewer@example.com", ["get", "list"]);
  dir = mkdtempSync(path.join(tmpdir(), "dash-live-"));
  const usersFile = await writeUsersFile(dir, [ADMIN, VIEWER]);
  op = await startDashboardOperator(ns.name, {
    AUTH_SECRET: "live-test-secret-0123456789-abcdefghijklmnop",
    AUTH_CREDENTIALS_FILE: usersFile,
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser.close();
  await stopAll([op.process]);
  await ns.remove();
});

async function signedIn(
  user: typeof ADMIN,
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${op.baseUrl}/`);
  await page.waitForURL(/\/auth\/signin/);
  await page.fill('input[name="username"]', user.username);
  await page.fill('input[name="password"]', user.password);
  await page.click('form[action$="/auth/callback/credentials"] button');
  await page.getByRole("heading", { name: "Instance groups" }).waitFor();
  await page.locator("#live.on").waitFor();
  return { context, page };
}

async function kubectlCreate(name: string, resizeBy: number, runSeconds?: number): Promise<void> {
  const run = runSeconds === undefined ? "" : `, requestedRunDuration: { seconds: "${runSeconds}" }`;
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `apiVersion: ${API_VERSION}`,
      "kind: ResizeRequest",
      `metadata: { name: ${name}, namespace: ${ns.name} }`,
      `spec: { instanceGroupManager: workers, resizeBy: ${resizeBy}, description: created with kubectl${run} }`,
      "",
    ].join("\n"),
  );
  await kubectl("create", "-f", file);
}

const row = (page: Page, name: string) => page.locator(`tr[data-request="${ns.name}/${name}"]`).first();

test("kubectl-created requests appear within 2 s and change state live; cancel works and is RBAC-checked", async () => {
  const { context, page } = await signedIn(ADMIN);
  await page.screenshot({ path: path.join(ARTIFACTS, "groups-empty.png"), fullPage: true });
  await page.click('a[data-nav="requests"]');
  await page.getByRole("heading", { name: "Resize requests" }).waitFor();
  // A marker that a reload would wipe out.
  await page.evaluate(() => {
    (window as unknown as { marker: number }).marker = 42;
  });

  // With a run duration: its release is when capacity frees, so the ETA of the request behind is exact.
  await kubectlCreate("live-a", 1, 3600);
  const created = Date.now();
  await row(page, "live-a").waitFor({ timeout: 2_000 });
  expect(Date.now() - created).toBeLessThan(2_000);

  await untilState(ns.name, "live-a", ["SUCCEEDED"]);
  await page
    .locator(`tr[data-request="${ns.name}/live-a"] [data-field=state]`)
    .filter({ hasText: "SUCCEEDED" })
    .waitFor({ timeout: 5_000 });
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);

  // Target 1 of max 3: a request for 3 waits for capacity, queued.
  await kubectlCreate("live-b", 3);
  await page
    .locator(`tr[data-request="${ns.name}/live-b"] [data-field=state]`)
    .filter({ hasText: "ACCEPTED" })
    .waitFor({ timeout: 10_000 });
  await page.screenshot({ path: path.join(ARTIFACTS, "requests.png"), fullPage: true });

  // Its page says what it waits for and when it is expected: exact, as live-a's release frees the room.
  await row(page, "live-b").getByRole("link", { name: "live-b" }).click();
  await page.getByRole("heading", { name: "Request live-b" }).waitFor();
  await page
    .locator("[data-field=waitingFor]")
    .filter({ hasText: "Room under maxSize: it needs 3 instances, 2 free (1 of 3 in use)." })
    .waitFor();
  await page
    .locator('[data-field=eta] .eta[data-basis="exact"]')
    .filter({ hasText: /in 1h|in 59m/ })
    .waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "request-queued.png"), fullPage: true });
  // The group page: the queue table's ETA column, and the forecast on the capacity chart.
  await page.getByRole("link", { name: `${ns.name}/workers` }).click();
  await page.getByRole("heading", { name: "Group workers" }).waitFor();
  const queued = page.locator(`tr[data-queue="${ns.name}/live-b"]`);
  await queued.locator('[data-field=eta] .eta[data-basis="exact"]').waitFor();
  expect(await queued.locator("[data-field=waitingFor]").textContent()).toContain("Room under maxSize");
  await page.locator('figure.chart circle.eta.exact[data-request="live-b"]').waitFor();
  await page.locator("figure.chart path.release").first().waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "group-queue.png"), fullPage: true });
  // Kept live: a request queued behind shows up in the open queue table (no reload), and leaves it.
  await kubectlCreate("live-c", 2);
  const behind = page.locator(`tr[data-queue="${ns.name}/live-c"]`);
  await behind
    .locator("[data-field=waitingFor]")
    .filter({ hasText: "Its turn: 1 request ahead of it, first live-b" })
    .waitFor({ timeout: 10_000 });
  await kubectl("delete", "resizerequest", "live-c", "-n", ns.name);
  await behind.waitFor({ state: "detached", timeout: 15_000 });
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
  await page.click('a[data-nav="requests"]');
  await row(page, "live-b").waitFor();

  // The viewer may read but not cancel: the UI's cancel is refused by RBAC, nothing changes.
  const viewer = await signedIn(VIEWER);
  await viewer.page.click('a[data-nav="requests"]');
  viewer.page.on("dialog", (d) => void d.accept());
  await row(viewer.page, "live-b").getByRole("button", { name: "Cancel live-b" }).click();
  await viewer.page
    .locator("#toast")
    .filter({ hasText: /Not cancelled: Permission denied/ })
    .waitFor();
  expect((await getRequest(ns.name, "live-b")).spec.cancel).toBe(false);
  // Without the CSRF header the admin is refused too.
  const noCsrf = await page.request.post(`${op.baseUrl}/dashboard/api/requests/${ns.name}/live-b/cancel`, {
    data: {},
  });
  expect(noCsrf.status()).toBe(403);
  await viewer.context.close();

  page.on("dialog", (d) => void d.accept());
  await row(page, "live-b").getByRole("button", { name: "Cancel live-b" }).click();
  await page
    .locator(`tr[data-request="${ns.name}/live-b"] [data-field=state]`)
    .filter({ hasText: "CANCELLED" })
    .waitFor({ timeout: 15_000 });
  expect((await getRequest(ns.name, "live-b")).status?.state).toBe("CANCELLED");
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);

  // Request detail: timeline, attempts, events, operations (the cancel's Operation).
  await page.goto(`${op.baseUrl}/#/requests/${ns.name}/live-b`);
  await page.getByRole("heading", { name: "Request live-b" }).waitFor();
  await page
    .getByText("compute.instanceGroupManagerResizeRequests.cancel".split(".").pop() ?? "cancel")
    .first()
    .waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "request-detail.png"), fullPage: true });
  await page.goto(`${op.baseUrl}/#/requests/${ns.name}/live-a`);
  await page.getByRole("heading", { name: "Request live-a" }).waitFor();
  await page.getByText("Succeeded=True").waitFor();
  await page.getByText("— (finished)").waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "request-detail-succeeded.png"), fullPage: true });

  await page.goto(`${op.baseUrl}/#/groups/${ns.name}/workers`);
  await page.getByRole("heading", { name: "Group workers" }).waitFor();
  await page.locator("figure.chart svg").waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "group-capacity.png"), fullPage: true });
  await page.goto(`${op.baseUrl}/#/operations`);
  await page.getByRole("heading", { name: "Operations" }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "operations.png"), fullPage: true });
  await page.goto(`${op.baseUrl}/#/events`);
  await page.getByRole("heading", { name: "Events" }).waitFor();
  await page.getByRole("cell", { name: "ResizeRequest/live-b" }).first().waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "events.png"), fullPage: true });
  await page.goto(`${op.baseUrl}/#/groups`);
  await page.locator(`[data-group="${ns.name}/workers"]`).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, "groups.png"), fullPage: true });
  await context.close();

  const phone = await signedIn(ADMIN, { width: 390, height: 844 });
  await phone.page.screenshot({ path: path.join(ARTIFACTS, "phone-groups.png"), fullPage: true });
  await phone.page.click('a[data-nav="requests"]');
  await row(phone.page, "live-a").waitFor();
  await phone.page.screenshot({ path: path.join(ARTIFACTS, "phone-requests.png"), fullPage: true });
  await phone.context.close();
});

/** Whether the page's main region has the focus, and the outline it draws. */
function mainFocus(page: Page): Promise<{ focused: boolean; outline: string }> {
  return page.evaluate(() => {
    const main = document.getElementById("main");
    return {
      focused: main !== null && document.activeElement === main,
      outline: main ? getComputedStyle(main).outlineStyle : "(no main)",
    };
  });
}

test("a navigation focuses the page's content, framed only when the keyboard navigated", async () => {
  const { context, page } = await signedIn(ADMIN);
  // A click: the focus moves (screen readers read on from there), no frame around the page.
  await page.click('a[data-nav="requests"]');
  await page.getByRole("heading", { name: "Resize requests" }).waitFor();
  expect(await mainFocus(page)).toEqual({ focused: true, outline: "none" });
  await page.screenshot({ path: path.join(ARTIFACTS, "focus-after-click.png"), fullPage: true });
  // A link followed from elsewhere, with no input on the page: the same.
  await page.goto(`${op.baseUrl}/#/groups/${ns.name}/workers`);
  await page.getByRole("heading", { name: "Group workers" }).waitFor();
  expect(await mainFocus(page)).toEqual({ focused: true, outline: "none" });
  // The keyboard: Enter on a link frames the content, so its user sees where Tab goes next.
  await page.locator('a[data-nav="events"]').focus();
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Events" }).waitFor();
  expect(await mainFocus(page)).toEqual({ focused: true, outline: "solid" });
  await page.screenshot({ path: path.join(ARTIFACTS, "focus-after-keyboard.png"), fullPage: true });
  // A click after that: no frame again.
  await page.click('a[data-nav="groups"]');
  await page.getByRole("heading", { name: "Instance groups" }).waitFor();
  expect(await mainFocus(page)).toEqual({ focused: true, outline: "none" });
  // A page that had no input at all (a link opened in a new tab, then followed within the app).
  const fresh = await context.newPage();
  await fresh.goto(`${op.baseUrl}/#/groups`);
  await fresh.getByRole("heading", { name: "Instance groups" }).waitFor();
  await fresh.goto(`${op.baseUrl}/#/requests`);
  await fresh.getByRole("heading", { name: "Resize requests" }).waitFor();
  expect(await mainFocus(fresh)).toEqual({ focused: true, outline: "none" });
  await fresh.evaluate(`window.location.hash = "#/groups/${ns.name}/workers"`);
  await fresh.getByRole("heading", { name: "Group workers" }).waitFor();
  expect(await mainFocus(fresh)).toEqual({ focused: true, outline: "none" });
  await fresh.screenshot({ path: path.join(ARTIFACTS, "focus-without-input.png"), fullPage: true });
  await context.close();
});

test("create from the UI goes through the REST logic (an Operation) and is keyboard operable", async () => {
  const { context, page } = await signedIn(ADMIN);
  // Keyboard only: tab to the group's "New request" button and press Enter.
  await page.locator(`[data-group="${ns.name}/workers"] button`).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  await page.keyboard.type("from-ui");
  await dialog.getByLabel("Instances").fill("1");
  await dialog.getByLabel("Description").fill("created in the dashboard");
  await page.screenshot({ path: path.join(ARTIFACTS, "create-dialog.png"), fullPage: true });
  await dialog.getByRole("button", { name: "Create" }).press("Enter");
  await page.getByRole("heading", { name: "Request from-ui" }).waitFor({ timeout: 10_000 });
  const rr = await getRequest(ns.name, "from-ui");
  expect(rr.spec.description).toBe("created in the dashboard");
  expect(rr.metadata.annotations?.["compute.resize-operator.dev/insert-operation"]).toBeDefined();
  await context.close();
});
