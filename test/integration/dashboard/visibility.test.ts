// Who sees what on the dashboard, against the operator process, the real API server and real RBAC
// (docs/dashboard.md, "Who sees what"): Events only where the user may `list events`, and only the
// operator's own about its kinds — never a Pod's, not even to a user who may list events — in the
// JSON API and on the live stream alike; the stream narrows when RBAC is removed and ends when the
// session is signed out or revoked; by-name reads and cancel answer a request the caller may not see
// exactly like one that does not exist.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import { Redis } from "ioredis";
import { GROUP, INSTANCE_GROUP_MANAGER, REPORTING_CONTROLLER } from "../../../src/api/names.js";
import { redisAdapter } from "../../../src/dashboard/redis-adapter.js";
import { USER_ROLES } from "../../../src/rbac/user-roles.js";
import { ruleOf } from "../../../src/rbac/permissions.js";
import { installApi, kubectl } from "../api/install.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createRequest, createWorkers, untilState } from "../../support/resize.js";
import {
  grantRules,
  Jar,
  launchChromium,
  LIST_EVENTS,
  withStreams,
  revokeRules,
  startDashboardOperator,
  startOidcProvider,
  writeUsersFile,
  type DashboardOperator,
  type OidcProvider,
  type OpenStream,
  type StreamFrame,
} from "./support.js";
import { freePort } from "../../../testbed/processes.js";

/** --token-cache-ttl of the operator: RBAC answers and sessions are checked again this often. */
const TTL_MS = 2_000;
/** What a busy machine may add to a TTL before a change shows (a pass of the check, a read). */
const SLACK_MS = 3_000;
const SECRET = "visibility-test-secret-0123456789-abcdefghijkl";
const PASSWORD = "visibility password 1";
const user = (name: string) => ({ username: name, password: PASSWORD, email: `${name}@example.com` });
// Bound to the chart's requester role (and nothing else): ann, carl and eve; bob besides may list
// events; dan may do nothing at all; gil may only read groups.
const ANN = user("ann");
const BOB = user("bob");
const CARL = user("carl");
const DAN = user("dan");
const EVE = user("eve");
const GIL = user("gil");
const identity = (u: { email: string }) => `dashboard:${u.email}`;
/** What a Pod's probe may print: never to be shown by the dashboard. */
const SECRET_NOTE = "Readiness probe failed: password=hunter2";

let ns: { name: string; remove: () => Promise<void> };
let oidc: OidcProvider;
let op: DashboardOperator;
let redis: Redis;
const rbac = kubeConfig().makeApiClient(k8s.RbacAuthorizationV1Api);
const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const eventsApi = kubeConfig().makeApiClient(k8s.EventsV1Api);
const requester = () => `${ns.name}-requester`;

/** A Pod's Event as the kubelet writes it (core/v1), and one that names our controller (events.k8s.io). */
async function createPodEvents(suffix: string): Promise<void> {
  const now = new Date();
  await core.createNamespacedEvent({
    namespace: ns.name,
    body: {
      metadata: { name: `web-0.kubelet-${suffix}` },
      involvedObject: { apiVersion: "v1", kind: "Pod", name: "web-0", namespace: ns.name },
      reason: "Unhealthy",
      message: SECRET_NOTE,
      type: "Warning",
      source: { component: "kubelet" },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    },
  });
  await eventsApi.createNamespacedEvent({
    namespace: ns.name,
    body: {
      metadata: { name: `web-0.forged-${suffix}` },
      eventTime: new k8s.V1MicroTime(now.getTime()),
      regarding: { apiVersion: "v1", kind: "Pod", name: "web-0", namespace: ns.name },
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: "someone-else",
      action: "Probe",
      reason: "Unhealthy",
      note: SECRET_NOTE,
      type: "Warning",
    },
  });
}

async function signedIn(u: { username: string }): Promise<Jar> {
  const jar = new Jar(op.baseUrl);
  expect(await jar.signIn(u.username, PASSWORD)).toBe(`${op.baseUrl}/`);
  return jar;
}

async function getJson(jar: Jar, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await jar.fetch(`/dashboard/api${path}`, { headers: { accept: "application/json" } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface EventItem {
  readonly object: string;
  readonly note: string;
}

async function eventsOf(jar: Jar): Promise<EventItem[]> {
  const { status, body } = await getJson(jar, "/events");
  expect(status).toBe(200);
  return body.items as EventItem[];
}

const eventFrames = (s: OpenStream) => s.frames.filter((f) => f.event === "event");
/** Whether `stream` has received a change of the request `name` (after its first `from` frames). */
const changeOf = (stream: OpenStream, name: string, from = 0) =>
  stream.frames.slice(from).some((f) => f.event === "request" && f.data.data.name === name);
const about = (f: StreamFrame) => String(f.data.data.object);

/** Waits until `probe` is true (polling), failing with `what` after `timeoutMs`. */
const until = (what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 30_000) =>
  eventually(what, async () => ((await probe()) ? true : undefined), timeoutMs);

/**
 * Waits until `stream` has received every message published before now: a change of `name` made now
 * reaches it after them (each connection's messages are checked and sent in order).
 */
async function drained(stream: OpenStream, name: string): Promise<void> {
  const before = stream.frames.length;
  await kubectl("annotate", "--overwrite", "rr", name, "-n", ns.name, `drained=${String(Date.now())}`);
  await until(`the stream drained up to a change of ${name}`, () => changeOf(stream, name, before));
}

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("dash-who");
  await createWorkers(ns.name, "workers");
  await createGroup(ns.name, "workers", { maxSize: 5 });
  // The chart's requester role, from the declarations the chart is generated from (under a name of
  // this test's own, so that a later `helm install` finds no foreign ClusterRole in its way).
  const role = USER_ROLES.find((r) => r.suffix === "requester");
  if (!role) throw new Error("no requester role declared");
  await rbac.createClusterRole({
    body: {
      metadata: { name: requester() },
      // RBAC's types want mutable arrays; the declarations are read-only.
      rules: structuredClone(role.permissions.map(ruleOf)) as k8s.V1PolicyRule[],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: {
      metadata: { name: "requesters" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: requester() },
      subjects: [ANN, BOB, CARL, EVE].map((u) => ({
        apiGroup: "rbac.authorization.k8s.io",
        kind: "User",
        name: identity(u),
      })),
    },
  });
  await grantRules(ns.name, "bob-events", identity(BOB), [LIST_EVENTS]);
  await grantRules(ns.name, "gil-groups", identity(GIL), [
    { apiGroups: [GROUP], resources: [INSTANCE_GROUP_MANAGER.plural], verbs: ["get", "list"] },
  ]);
  const dir = mkdtempSync(path.join(tmpdir(), "dash-who-"));
  const usersFile = await writeUsersFile(dir, [ANN, BOB, CARL, DAN, EVE, GIL]);
  const port = await freePort();
  oidc = await startOidcProvider([`http://127.0.0.1:${port}/auth/callback/oidc`]);
  // Database sessions, so that a sign-out or a revocation ends a session on the server.
  op = await startDashboardOperator(
    ns.name,
    {
      AUTH_SECRET: SECRET,
      AUTH_CREDENTIALS_FILE: usersFile,
      // Auth.js wants a provider besides credentials for database sessions.
      AUTH_OIDC_ID: oidc.clientId,
      AUTH_OIDC_SECRET: oidc.clientSecret,
      AUTH_OIDC_ISSUER: oidc.issuer,
      AUTH_SESSION_STRATEGY: "database",
    },
    { port, args: [`--token-cache-ttl=${String(TTL_MS / 1000)}s`] },
  );
  redis = new Redis(process.env.REDIS_URL ?? "");
  await createPodEvents("before");
  await createRequest(ns.name, "vis-a", { instanceGroupManager: "workers", resizeBy: 1 });
  await untilState(ns.name, "vis-a", ["SUCCEEDED"]);
});

afterAll(async () => {
  redis.disconnect();
  await stopAll([op.process]);
  await oidc.close();
  await ns.remove();
  await rbac.deleteClusterRole({ name: requester() });
});

test("the API server serves the operator's Events by reportingController on events.k8s.io/v1", async () => {
  const selected = await eventsApi.listNamespacedEvent({
    namespace: ns.name,
    fieldSelector: `reportingController=${REPORTING_CONTROLLER}`,
  });
  const objects = selected.items.map((e) => `${e.regarding?.kind ?? ""}/${e.regarding?.name ?? ""}`);
  expect(objects).toContain("ResizeRequest/vis-a");
  // The kubelet's is left out by the server; the one naming our controller is not (the cache's
  // filter keeps it out, see below).
  expect(selected.items.map((e) => e.metadata?.name)).not.toContain("web-0.kubelet-before");
  expect(selected.items.map((e) => e.metadata?.name)).toContain("web-0.forged-before");
});

test("the stream relays an Event only to a user who may list events there, and never a Pod's", async () => {
  await withStreams(await signedIn(ANN), await signedIn(BOB), async (ann, bob) => {
    await createRequest(ns.name, "vis-b", { instanceGroupManager: "workers", resizeBy: 1 });
    await createPodEvents("streamed");
    await until("bob's stream relays vis-b's Events", () =>
      eventFrames(bob).some((f) => about(f) === "ResizeRequest/vis-b"),
    );
    await untilState(ns.name, "vis-b", ["SUCCEEDED"]);
    await drained(ann, "vis-b");
    await drained(bob, "vis-b");
    // Ann may list requests (she sees vis-b change) but not events.
    expect(changeOf(ann, "vis-b")).toBe(true);
    expect(eventFrames(ann)).toEqual([]);
    expect(eventFrames(bob).filter((f) => about(f).startsWith("Pod/"))).toEqual([]);
    expect(JSON.stringify(bob.frames)).not.toContain("hunter2");
  });
});

test("a Pod's Event is never shown, not even to a user who may list events", async () => {
  const bob = await signedIn(BOB);
  const events = await eventsOf(bob);
  expect(events.map((e) => e.object)).toContain("ResizeRequest/vis-a");
  expect(
    events.filter((e) => !/^(ResizeRequest|InstanceGroupManager|ProvisioningRequest)\//.test(e.object)),
  ).toEqual([]);
  expect(JSON.stringify(events)).not.toContain("hunter2");
});

test("a requester-only user gets no Events; once granted list events, she gets them", async () => {
  const ann = await signedIn(ANN);
  const bob = await signedIn(BOB);
  expect(await eventsOf(ann)).toEqual([]);
  // A request's own page: its Events only for whoever may list events.
  const detail = async (jar: Jar) =>
    (await getJson(jar, `/requests/${ns.name}/vis-a`)).body.events as unknown[];
  expect((await detail(bob)).length).toBeGreaterThan(0);
  expect(await detail(ann)).toEqual([]);

  // As docs/dashboard.md shows it; kubectl and the dashboard agree before and after.
  const canList = () => kubectl("auth", "can-i", "list", "events", "-n", ns.name, `--as=${identity(ANN)}`);
  await expect(canList()).rejects.toThrow();
  await kubectl("-n", ns.name, "create", "role", "events-reader", "--verb=list", "--resource=events");
  await kubectl(
    "-n",
    ns.name,
    "create",
    "rolebinding",
    "ann-events",
    "--role=events-reader",
    `--user=${identity(ANN)}`,
  );
  expect((await canList()).trim()).toBe("yes");
  await until(
    "ann sees Events once she may list them",
    async () => (await eventsOf(ann)).length > 0,
    TTL_MS * 2 + SLACK_MS,
  );
  const anns = await eventsOf(ann);
  expect(anns.map((e) => e.object)).toContain("ResizeRequest/vis-a");
  expect(anns.filter((e) => e.object.startsWith("Pod/"))).toEqual([]);
  expect((await detail(ann)).length).toBeGreaterThan(0);
});

test("removing list events narrows an open stream within the TTL", async () => {
  // Carl is a requester who may list events, until it is taken away while his stream is open.
  await grantRules(ns.name, "carl-events", identity(CARL), [LIST_EVENTS]);
  const carlJar = await signedIn(CARL);
  await until("carl sees Events", async () => (await eventsOf(carlJar)).length > 0, TTL_MS * 2 + SLACK_MS);
  // Ann may list events by now (granted above): her stream shows that vis-c's Events are relayed.
  await withStreams(carlJar, await signedIn(ANN), async (carl, ann) => {
    await revokeRules(ns.name, "carl-events");
    // Both caches of an allowed answer (the Authorizer's and the dashboard's) have expired after this.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2 + 500));
    await createRequest(ns.name, "vis-c", { instanceGroupManager: "workers", resizeBy: 1 });
    await until("ann's stream relays vis-c's Events", () =>
      eventFrames(ann).some((f) => about(f) === "ResizeRequest/vis-c"),
    );
    await untilState(ns.name, "vis-c", ["SUCCEEDED"]);
    await drained(carl, "vis-c");
    expect(changeOf(carl, "vis-c")).toBe(true);
    expect(eventFrames(carl).filter((f) => about(f) === "ResizeRequest/vis-c")).toEqual([]);
  });
});

test("the stream ends within the TTL after sign-out, and after the user's sessions are revoked", async () => {
  const jar = await signedIn(EVE);
  const ended = (s: OpenStream) =>
    Promise.race([
      s.ended.then(() => "ended"),
      new Promise((resolve) => setTimeout(resolve, TTL_MS + SLACK_MS, "still open")),
    ]);
  await withStreams(jar, await signedIn(EVE), async (stream, other) => {
    const csrfToken = await jar.csrf();
    const out = await jar.fetch("/auth/signout", { method: "POST", form: { csrfToken, callbackUrl: "/" } });
    expect(out.status).toBe(302);
    expect(await ended(stream)).toBe("ended");
    // The other session of hers stays open until an admin revokes them all.
    expect(await ended(other)).toBe("still open");
    expect(await redisAdapter(redis).revokeUserSessions(EVE.username)).toBeGreaterThanOrEqual(1);
    expect(await ended(other)).toBe("ended");
  });
});

test("the open page goes to sign-in once its session is revoked", async () => {
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${op.baseUrl}/`);
    await page.waitForURL(/\/auth\/signin/);
    await page.fill('input[name="username"]', EVE.username);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('form[action$="/auth/callback/credentials"] button');
    await page.locator("#live.on").waitFor();
    expect(await redisAdapter(redis).revokeUserSessions(EVE.username)).toBeGreaterThanOrEqual(1);
    // The stream ends at its next check; the browser's reconnect is refused, and the page, told so by
    // an API call, sends the user to sign in (the stream's retry and the page's wait: 2 s each).
    await page.waitForURL(/\/auth\/signin\?callbackUrl=/, { timeout: TTL_MS + 4_000 + SLACK_MS });
  } finally {
    await browser.close();
  }
});

test("cancel and reads by name answer a request the caller may not see exactly like a missing one", async () => {
  const dan = await signedIn(DAN);
  const me = await getJson(dan, "/me");
  const csrf = String(me.body.csrfToken);
  const post = async (path: string) => {
    const res = await dan.fetch(`/dashboard/api${path}`, {
      method: "POST",
      headers: { "x-csrf-token": csrf, "content-type": "application/json" },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const same = (
    hidden: { status: number; body: unknown },
    missing: { status: number; body: unknown },
    names: [string, string],
  ) => {
    expect(hidden.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(hidden.body).replaceAll(names[0], "NAME")).toBe(
      JSON.stringify(missing.body).replaceAll(names[1], "NAME"),
    );
  };
  const base = `/requests/${ns.name}`;
  same(await post(`${base}/vis-a/cancel`), await post(`${base}/no-such-rr/cancel`), ["vis-a", "no-such-rr"]);
  same(await getJson(dan, `${base}/vis-a`), await getJson(dan, `${base}/no-such-rr`), [
    "vis-a",
    "no-such-rr",
  ]);
  const groups = `/groups/${ns.name}`;
  same(
    await getJson(dan, `${groups}/workers/capacity`),
    await getJson(dan, `${groups}/no-such-group/capacity`),
    ["workers", "no-such-group"],
  );
  same(await getJson(dan, `${groups}/workers/queue`), await getJson(dan, `${groups}/no-such-group/queue`), [
    "workers",
    "no-such-group",
  ]);
  // Whoever may get the group is told why its queue is not shown: no secret is kept from them.
  const gil = await signedIn(GIL);
  expect((await getJson(gil, `${groups}/workers/capacity`)).status).toBe(200);
  expect(await getJson(gil, `${groups}/workers/queue`)).toMatchObject({
    status: 403,
    body: { error: { status: "PERMISSION_DENIED" } },
  });
  expect((await getJson(gil, `${groups}/no-such-group/queue`)).status).toBe(404);
  // Whoever may see requests gets the same answer for a missing one.
  const ann = await signedIn(ANN);
  const annMissing = await getJson(ann, `${base}/no-such-rr`);
  expect(annMissing).toEqual(await getJson(dan, `${base}/no-such-rr`));
  expect(annMissing.body).toMatchObject({
    error: { code: 404, status: "NOT_FOUND", message: `Resize request ${ns.name}/no-such-rr not found.` },
  });
  // Nothing was cancelled on the way.
  expect(await kubectl("get", "rr", "vis-a", "-n", ns.name, "-o", "jsonpath={.spec.cancel}")).toBe("false");
});
