// The authorization matrix: every REST route (src/rest/routes.ts), every dashboard JSON route (the table
// of src/dashboard/api.ts), the live stream, every `kubectl resize` command, a group's widening fields
// and `kubectl create` of a FutureReservation (test/support/booking-rows.ts), called by a user of
// each documented role (test/support/role-subjects.ts: none, viewer, requester, requester with `use`
// on the groups, group admin, and the built-in view, edit and admin the user roles are aggregated into), all
// bound in one namespace. Each answer must be "allowed" exactly when `kubectl auth can-i` says yes, for
// that same user, to every permission the route needs (test/support/matrix-rows.ts) — there, and in
// another namespace where nothing is bound (always denied). A route, dashboard route, command or
// stream message type without a row fails the test, and so does a row no role is allowed (or denied).
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { API_ROUTES } from "../../src/dashboard/api.js";
import { COMMANDS } from "../../src/plugin/args.js";
import { ROUTES } from "../../src/rest/routes.js";
import { installApi } from "../integration/api/install.js";
import { startDashboardOperator, type DashboardOperator } from "../integration/dashboard/support.js";
import { exhaustive, runMatrix, type MatrixScope, type Row } from "../support/authorization-matrix.js";
import { CanI } from "../support/can-i.js";
import { DashboardClient } from "../support/dashboard-client.js";
import { createTestNamespace, eventually } from "../support/kube.js";
import { pluginBinDir } from "../support/kubectl-plugin.js";
import { BOOKING_GROUP, GROUP_OF, MatrixFixtures, where } from "../support/matrix-fixtures.js";
import { FUTURE_RESERVATIONS_RESOURCE } from "../../src/api/names.js";
import {
  bodyOf,
  dashboardRows,
  notOurKinds,
  pluginRows,
  restNeeds,
  restRows,
  scopeOf,
  serviceAccount,
  STREAM_ROWS,
  type MatrixContext,
} from "../support/matrix-rows.js";
import { stopAll } from "../support/operator.js";
import { labelGroup } from "../support/resize.js";
import { call, routeUrl } from "../support/rest.js";
import { ROLES, setUpRoleSubjects, type RoleSubject, type RoleSubjects } from "../support/role-subjects.js";
import { createWidenedGroup, wideningRows } from "../support/widening-rows.js";
import { BOOKING_ROW, bookingRows } from "../support/booking-rows.js";
import { WIDENING_FIELD_NAMES } from "../../src/api/group-widening.js";
import { kubectl } from "../integration/api/install.js";

let bound: { name: string; remove: () => Promise<void> };
let other: { name: string; remove: () => Promise<void> };
let dir: string;
let roles: RoleSubjects;
let op: DashboardOperator;
let ctx: MatrixContext;
const clients = new Map<string, DashboardClient>();
const oracle = new CanI();

/** What afterAll undoes, in reverse: whatever part of the set-up was made. */
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  await installApi();
  [bound, other] = await Promise.all([createTestNamespace("matrix"), createTestNamespace("matrix-other")]);
  cleanups.push(() => Promise.all([bound.remove(), other.remove()]).then(() => undefined));
  dir = mkdtempSync(path.join(tmpdir(), "matrix-"));
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  // requester-use may use the groups requests are made on and the one bookings are made on.
  const useGroups = [...Object.values(GROUP_OF), BOOKING_GROUP];
  roles = await setUpRoleSubjects({ bound: bound.name, other: other.name, useGroups, dir });
  cleanups.push(() => roles.remove());
  // Across all namespaces, as the chart runs it: what it must not show of the other one, it has.
  op = await startDashboardOperator(
    bound.name,
    { AUTH_SECRET: randomUUID() + randomUUID(), AUTH_CREDENTIALS_FILE: roles.usersFile },
    { watchAllNamespaces: true },
  );
  cleanups.push(() => stopAll([op.process]));
  const fixtures = new MatrixFixtures(op.baseUrl, roles.fixturesToken);
  const names = ROLES.map((r) => r.name);
  await Promise.all([fixtures.create(bound.name, names), fixtures.create(other.name, names)]);
  for (const s of roles.subjects) clients.set(s.role, await DashboardClient.signIn(op.baseUrl, s.login));
  ctx = {
    baseUrl: op.baseUrl,
    fixtures,
    namespaces: [bound.name, other.name],
    oracle,
    binDir: pluginBinDir(path.join(dir, "bin")),
    client: (s) => {
      const c = clients.get(s.role);
      if (!c) throw new Error(`${s.role} is not signed in`);
      return c;
    },
  };
}, 300_000);

afterAll(async () => {
  for (const undo of cleanups.reverse()) await undo();
});

const matrix = (parallel: number): MatrixScope => ({
  subjects: roles.subjects,
  bound: bound.name,
  other: other.name,
  oracle,
  parallel,
});
const dashboardUser = (s: RoleSubject) => ({
  user: ctx.client(s).identity.username,
  groups: ctx.client(s).identity.groups,
});

test("the dashboard authorizes each user as dashboard:<email> with its groups, the identity can-i is asked about", () => {
  for (const s of roles.subjects) expect(dashboardUser(s)).toEqual(s.dashboard);
});

/** The table's routes without a row (and rows without a route), then every cell that breaks a rule. */
async function check(table: string, ids: readonly string[], rows: readonly Row[], parallel: number) {
  const names = rows.map((r) => r.id);
  return [...exhaustive(table, ids, names), ...(await runMatrix(rows, matrix(parallel)))];
}

test("every REST route, as every role: allowed exactly when can-i says yes, never in another namespace", async () => {
  const problems = await check(
    "REST",
    ROUTES.map((r) => r.id),
    restRows(ctx),
    6,
  );
  // Discovery is public: it needs no token.
  const discovery = await call("GET", `${op.baseUrl}/discovery/v1/apis/compute/v1/rest`);
  if (discovery.status !== 200) problems.push(`discovery without a token: ${discovery.status}`);
  expect(problems).toEqual([]);
}, 300_000);

test("every dashboard JSON route, as every role's user: allowed exactly when can-i says yes, never elsewhere", async () => {
  const ids = API_ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`);
  expect(await check("dashboard", ids, dashboardRows(ctx), 6)).toEqual([]);
}, 300_000);

test("every kubectl resize command, with every role's kubeconfig: allowed exactly when can-i says yes", async () => {
  // Each call is a process (node with tsx's loader): four at a time.
  expect(await check("kubectl resize", COMMANDS, pluginRows(ctx), 4)).toEqual([]);
}, 600_000);

test("the live stream carries to each role's user exactly what can-i lets it list, and Events of our kinds only", async () => {
  const streams = roles.subjects.map((s) => ({ s, stream: ctx.client(s).stream() }));
  const problems: string[] = [];
  for (const { s, stream } of streams) {
    const status = await stream.opened;
    if (status !== 200) problems.push(`the stream of ${s.role} answered ${status}`);
  }
  const namespaces = [bound.name, other.name];
  for (const ns of namespaces) {
    await ctx.fixtures.active(ns, "zones", "live-request");
    await labelGroup(ns, GROUP_OF.zones, { "matrix.test/touched": "yes" });
    await ctx.fixtures.event(ns, "live-about-request", await ctx.fixtures.regarding(ns, "live-request"));
    const pod = { apiVersion: "v1", kind: "Pod", name: "not-ours", namespace: ns };
    await ctx.fixtures.event(ns, "live-about-a-pod", pod);
  }
  const may = async (s: RoleSubject, type: string, ns: string): Promise<boolean> => {
    const row = STREAM_ROWS[type];
    return row !== undefined && (await oracle.ask(dashboardUser(s), row.needs, ns));
  };
  const cells = streams.flatMap(({ s, stream }) =>
    Object.entries(STREAM_ROWS).flatMap(([type, row]) =>
      namespaces.map((ns) => ({
        s,
        type,
        ns,
        arrived: () =>
          stream.messages.some(
            (m) => m.type === type && m.data.namespace === ns && m.data.name === row.marker,
          ),
      })),
    ),
  );
  // Until every message a user may see has come; then a little longer, for any it must not see.
  await eventually(
    "every allowed live message",
    async () => {
      for (const c of cells) if ((await may(c.s, c.type, c.ns)) && !c.arrived()) return undefined;
      return true;
    },
    30_000,
  ).catch(() => undefined);
  await sleep(2_000);
  for (const { stream } of streams) stream.close();
  for (const c of cells) {
    const expected = await may(c.s, c.type, c.ns);
    if (c.arrived() !== expected)
      problems.push(
        `stream ${c.type} as ${c.s.role} in the ${c.ns === bound.name ? "bound" : "other"} namespace: ${expected ? "not received" : "received"}, can-i ${expected ? "yes" : "no"}`,
      );
  }
  for (const { s, stream } of streams) {
    const unknown = new Set(stream.messages.map((m) => m.type).filter((t) => !(t in STREAM_ROWS)));
    for (const type of unknown) problems.push(`stream: message type ${type} has no row in the matrix`);
    // Any message at all (not only the markers) of a namespace the user may not list.
    const unseen = new Map<string, string[]>();
    for (const m of stream.messages) {
      const key = `${m.type} messages of namespace ${String(m.data.namespace)}`;
      if (!unknown.has(m.type) && !(await may(s, m.type, String(m.data.namespace))))
        unseen.set(key, [...(unseen.get(key) ?? []), String(m.data.name)]);
    }
    for (const [key, names] of unseen)
      problems.push(
        `stream as ${s.role}: ${names.length} ${key} received, can-i no (${names.slice(0, 3).join(", ")})`,
      );
    const events = stream.messages.filter((m) => m.type === "event").map((m) => m.data.object);
    for (const finding of notOurKinds(events)) problems.push(`stream as ${s.role}: ${finding}`);
  }
  expect([...new Set(problems)].sort()).toEqual([]);
}, 120_000);

test("every widening field of a group, as every role: changed exactly when can-i allows the group's patch and its target's scale (and list nodes for a node selector)", async () => {
  await Promise.all([createWidenedGroup(bound.name), createWidenedGroup(other.name)]);
  // One role may also list Nodes (cluster-wide, as the policy asks), so the node-selector row has a yes.
  const lister = `matrix-list-nodes-${bound.name}`;
  await kubectl("create", "clusterrole", lister, "--verb=list", "--resource=nodes");
  await kubectl(
    "create",
    "clusterrolebinding",
    lister,
    `--clusterrole=${lister}`,
    `--serviceaccount=${bound.name}:matrix-admin`,
  );
  cleanups.push(() =>
    kubectl("delete", `clusterrolebinding/${lister}`, `clusterrole/${lister}`).then(() => undefined),
  );
  await eventually("the Node grant to reach RBAC", async () =>
    (await oracle.ask(
      { user: `system:serviceaccount:${bound.name}:matrix-admin`, groups: [] },
      { verb: "list", resource: "nodes", group: "" },
      bound.name,
    ))
      ? true
      : undefined,
  );
  expect(await check("group widening", WIDENING_FIELD_NAMES, wideningRows(serviceAccount), 1)).toEqual([]);
}, 300_000);

test("booking a group with kubectl, as every role: created exactly when can-i allows create on futurereservations and use on the group", async () => {
  expect(await check("booking", [BOOKING_ROW], bookingRows(serviceAccount), 4)).toEqual([]);
}, 300_000);

test("a requestId replay binds to its first caller: another caller never gets that caller's operation", async () => {
  const problems: string[] = [];
  for (const route of ROUTES.filter((r) => r.parameters.some((p) => p.name === "requestId"))) {
    const sc = scopeOf(route);
    const allowed: RoleSubject[] = [];
    for (const s of roles.subjects)
      if (await oracle.all(serviceAccount(s), restNeeds(route), bound.name)) allowed.push(s);
    const [first, second] = allowed;
    if (!first || !second) {
      problems.push(`${route.id}: fewer than two roles may call it`);
      continue;
    }
    const nameOf = (s: RoleSubject) => `replay-${route.method}-${sc[0] ?? ""}-${s.role}`;
    const booking = route.resource === FUTURE_RESERVATIONS_RESOURCE;
    for (const s of [first, second]) {
      if (booking && route.method !== "insert")
        await ctx.fixtures.booking(bound.name, nameOf(s), route.method === "delete");
      if (booking) continue;
      if (route.method === "cancel") await ctx.fixtures.active(bound.name, sc, nameOf(s));
      if (route.method === "delete") await ctx.fixtures.final(bound.name, sc, nameOf(s));
    }
    const requestId = randomUUID();
    const send = async (s: RoleSubject) => {
      const named: Record<string, string> = { [booking ? "futureReservation" : "resizeRequest"]: nameOf(s) };
      const values = where(bound.name, sc, route.method === "insert" ? {} : named);
      const body = bodyOf(route, nameOf(s));
      const url = `${routeUrl(op.baseUrl, route, values)}?requestId=${requestId}`;
      const reply = await call(route.httpMethod, url, { token: s.token, ...(body && { body }) });
      return { status: reply.status, op: (reply.body ?? {}) as { name?: string; user?: string } };
    };
    const original = await send(first);
    const again = await send(first);
    if (original.op.user !== first.serviceAccount.user || again.op.name !== original.op.name) {
      problems.push(`${route.id} as ${first.role}, twice: ${JSON.stringify([original, again])}`);
      continue;
    }
    // Refused (400/409) or served as its own call; never the first caller's operation.
    const theirs = await send(second);
    if (
      theirs.status === 200
        ? theirs.op.user !== second.serviceAccount.user
        : ![400, 409].includes(theirs.status)
    )
      problems.push(
        `${route.id}: ${second.role} replaying ${first.role}'s requestId ${theirs.status === 200 ? `got operation ${theirs.op.name ?? ""} of ${theirs.op.user ?? ""}` : `answered ${theirs.status}`}`,
      );
  }
  expect(problems).toEqual([]);
}, 180_000);
