// The rows of the authorization matrix (test/security/authorization-matrix.test.ts), one per route of
// each table: REST rows are built from src/rest/routes.ts and take their permission from the row's
// `access` (plus `use` on the group for an insert, the handler's check); the dashboard's writes take
// their REST route's; the dashboard's reads, the plugin's commands and the stream's messages state
// theirs here (docs/kubectl-plugin.md for the commands; docs/reliability.md says what the rows hold to).
import {
  FUTURE_RESERVATION,
  FUTURE_RESERVATIONS_RESOURCE,
  GROUP,
  INSTANCE_GROUP_MANAGER,
  RESIZE_REQUEST,
  REST_RESOURCES,
  USE_VERB,
} from "../../src/api/names.js";
import type { LocationScope } from "../../src/api/location.js";
import type { Route } from "../../src/rest/route.js";
import { ROUTES } from "../../src/rest/routes.js";
import {
  dashboardOutcome,
  pluginOutcome,
  restOutcome,
  shownIn,
  type Outcome,
  type Row,
} from "./authorization-matrix.js";
import type { CanI, Identity, Permission } from "./can-i.js";
import type { DashboardClient } from "./dashboard-client.js";
import { kubectlResize } from "./kubectl-plugin.js";
import {
  BOOKING_GROUP,
  bookingWindow,
  GROUP_OF,
  ownBooking,
  ownRequest,
  SHARED_BOOKING,
  where,
  type MatrixFixtures,
} from "./matrix-fixtures.js";
import { call, routeUrl } from "./rest.js";
import type { RoleSubject } from "./role-subjects.js";

/** What the rows call and read. */
export interface MatrixContext {
  readonly baseUrl: string;
  readonly fixtures: MatrixFixtures;
  /** The namespaces the fixtures live in (bound, other): a list shows no other. */
  readonly namespaces: readonly string[];
  readonly oracle: CanI;
  /** Where the kubectl-resize executable is. */
  readonly binDir: string;
  readonly client: (subject: RoleSubject) => DashboardClient;
}

export const ours = (verb: string, resource: string, name?: string): Permission => ({
  verb,
  resource,
  group: GROUP,
  ...(name !== undefined && { name }),
});
/** The dashboard reads events.k8s.io Events: who may list them there may see them. */
export const LIST_EVENTS: Permission = { verb: "list", resource: "events", group: "events.k8s.io" };
const MISSING = "no-such-object";
const OUR_KINDS = /^(ResizeRequest|InstanceGroupManager)\//;

export const serviceAccount = (s: RoleSubject): Identity => s.serviceAccount;

/**
 * REST: the route's `access` in the project, and for an insert (a resize request's or a booking's)
 * `use` on the group it names, the handler's own check.
 */
export function restNeeds(route: Route): readonly Permission[] {
  const access = ours(route.access.verb, route.access.resource);
  if (route.method !== "insert") return [access];
  const group = route.resource === FUTURE_RESERVATIONS_RESOURCE ? BOOKING_GROUP : GROUP_OF[scopeOf(route)];
  return [access, ours(USE_VERB, INSTANCE_GROUP_MANAGER.plural, group)];
}

const ZONAL = new Set<string>([
  ...Object.values(REST_RESOURCES.zones),
  "instanceGroupManagers",
  FUTURE_RESERVATIONS_RESOURCE,
]);
export const scopeOf = (route: Route): LocationScope => (ZONAL.has(route.resource) ? "zones" : "regions");
const GROUP_RESOURCES = new Set(["instanceGroupManagers", "regionInstanceGroupManagers"]);
const kindOf = (route: Route) => {
  if (GROUP_RESOURCES.has(route.resource)) return "groups";
  if (route.resource === "advice") return "advice";
  if (route.resource === FUTURE_RESERVATIONS_RESOURCE) return "bookings";
  return Object.values(REST_RESOURCES).some((r) => r.requests === route.resource) ? "requests" : "operations";
};
const zonal = (kind: "requests" | "operations", method: string): Route => {
  const id = `compute.${REST_RESOURCES.zones[kind]}.${method}`;
  const route = ROUTES.find((r) => r.id === id);
  if (!route) throw new Error(`no REST route ${id}`);
  return route;
};

type Values = Record<string, string>;
/** What advice.calendarMode is asked in the matrix: one instance for a minute. */
const ADVICE_SPEC = {
  targetResources: { specificSkuResources: { instanceCount: "1" } },
  timeRangeSpec: { minDuration: "60s" },
};
/** What a subject's call of each kind of REST method acts on; `absent` names a missing object instead. */
const REST_TARGETS: Readonly<
  Record<
    string,
    { target: (f: MatrixFixtures, s: RoleSubject, ns: string, sc: LocationScope) => Values; absent?: Values }
  >
> = {
  "requests.insert": { target: () => ({}) },
  "requests.list": { target: () => ({}), absent: { instanceGroupManager: MISSING } },
  "requests.get": {
    target: (f, _s, _ns, sc) => ({ resizeRequest: f.shared(sc) }),
    absent: { resizeRequest: MISSING },
  },
  "requests.cancel": {
    target: (_f, s, _ns, sc) => ({ resizeRequest: ownRequest("rest-cancel", sc, s.role) }),
    absent: { resizeRequest: MISSING },
  },
  "requests.delete": {
    target: (_f, s, _ns, sc) => ({ resizeRequest: ownRequest("rest-delete", sc, s.role) }),
    absent: { resizeRequest: MISSING },
  },
  "operations.get": {
    target: (f, _s, ns, sc) => ({ operation: f.operation(ns, sc, f.done(sc)) }),
    absent: { operation: MISSING },
  },
  "operations.list": { target: () => ({}) },
  "operations.wait": {
    target: (f, _s, ns, sc) => ({ operation: f.operation(ns, sc, f.done(sc)) }),
    absent: { operation: MISSING },
  },
  "bookings.insert": { target: () => ({}) },
  "bookings.list": { target: () => ({}) },
  "bookings.get": {
    target: () => ({ futureReservation: SHARED_BOOKING }),
    absent: { futureReservation: MISSING },
  },
  "bookings.cancel": {
    target: (_f, s) => ({ futureReservation: ownBooking("rest-cancel", s.role) }),
    absent: { futureReservation: MISSING },
  },
  "bookings.delete": {
    target: (_f, s) => ({ futureReservation: ownBooking("rest-delete", s.role) }),
    absent: { futureReservation: MISSING },
  },
  // A read of the project's groups, requests and bookings in the region.
  "advice.calendarMode": { target: () => ({}) },
  // A read of the group: its requests' instances.
  "groups.listManagedInstances": { target: () => ({}), absent: { instanceGroupManager: MISSING } },
  "operations.delete": {
    target: (f, s, ns, sc) => ({ operation: f.operation(ns, sc, ownRequest("rest-delete", sc, s.role)) }),
    absent: { operation: MISSING },
  },
};

/** What a subject's insert (named `name`) or advice call sends. */
export function bodyOf(route: Route, name: string): object | undefined {
  if (route.resource === FUTURE_RESERVATIONS_RESOURCE && route.method === "insert")
    return {
      name: `fr-${name}`,
      specificSkuProperties: { totalCount: "1", instanceProperties: { machineType: BOOKING_GROUP } },
      timeWindow: bookingWindow(),
    };
  if (route.method === "insert") return { name, resizeBy: 1 };
  if (route.method === "calendarMode") return { futureResourcesSpecs: { a: ADVICE_SPEC } };
  return undefined;
}

/** A row for every REST route the matrix knows how to call (the test checks that is every route). */
export function restRows(ctx: MatrixContext): Row[] {
  return ROUTES.flatMap((route): Row[] => {
    const spec = REST_TARGETS[`${kindOf(route)}.${route.method}`];
    if (!spec) return [];
    const sc = scopeOf(route);
    const send = async (s: RoleSubject, ns: string, values: Values): Promise<Outcome> => {
      const body = bodyOf(route, `insert-${sc[0] ?? ""}-${s.role}`);
      const url = routeUrl(ctx.baseUrl, route, where(ns, sc, values));
      return restOutcome(await call(route.httpMethod, url, { token: s.token, ...(body && { body }) }));
    };
    const target = (s: RoleSubject, ns: string) => spec.target(ctx.fixtures, s, ns, sc);
    return [
      {
        id: route.id,
        needs: () => restNeeds(route),
        identity: serviceAccount,
        probe: (s, ns) => send(s, ns, target(s, ns)),
        ...(spec.absent && {
          absent: {
            probe: (s, ns) => send(s, ns, { ...target(s, ns), ...spec.absent }),
            reads: () => [ours("get", route.access.resource)],
          },
        }),
      },
    ];
  });
}

/** The dashboard's rows, keyed by `METHOD path` as its route table (src/dashboard/api.ts) has them. */
export function dashboardRows(ctx: MatrixContext): Row[] {
  const { client, fixtures, oracle } = ctx;
  const dashboard = (s: RoleSubject): Identity => ({
    user: client(s).identity.username,
    groups: client(s).identity.groups,
  });
  const get = async (s: RoleSubject, path: string) => dashboardOutcome(await client(s).get(path));
  const post = async (s: RoleSubject, path: string, body: unknown) =>
    dashboardOutcome(await client(s).post(path, body));
  /** A list answer's outcome in `ns`: allowed when it shows something of `ns` (`read` says where each item is). */
  const listed = async (
    s: RoleSubject,
    ns: string,
    path: string,
    read: (body: unknown) => readonly string[],
  ) => {
    const reply = await client(s).get(path);
    const outcome = dashboardOutcome(reply);
    return {
      outcome: outcome.allowed ? shownIn(read(reply.body), ns, ctx.namespaces, outcome.answer) : outcome,
      body: reply.body,
    };
  };
  const items = (body: unknown) => (body as { items: { namespace: string }[] }).items.map((i) => i.namespace);
  const projects = (body: unknown) =>
    (body as { items: { selfLink: string }[] }).items.map(
      (o) => /\/projects\/([^/]+)\//.exec(o.selfLink)?.[1] ?? "",
    );
  const shared = fixtures.shared("zones");
  const rows: Readonly<Record<string, Omit<Row, "id" | "identity">>> = {
    "GET /me": { needs: () => [], probe: (s) => get(s, "/me") },
    "GET /namespaces": {
      needs: () => [ours("list", RESIZE_REQUEST.plural)],
      probe: async (s, ns) =>
        (await listed(s, ns, "/namespaces", (b) => (b as { namespaces: string[] }).namespaces)).outcome,
    },
    "GET /groups": {
      needs: () => [ours("list", INSTANCE_GROUP_MANAGER.plural)],
      probe: async (s, ns) => (await listed(s, ns, "/groups", items)).outcome,
    },
    "GET /groups/:namespace/:name/capacity": {
      needs: () => [ours("get", INSTANCE_GROUP_MANAGER.plural, GROUP_OF.zones)],
      probe: (s, ns) => get(s, `/groups/${ns}/${GROUP_OF.zones}/capacity`),
      absent: {
        probe: (s, ns) => get(s, `/groups/${ns}/${MISSING}/capacity`),
        reads: () => [ours("get", INSTANCE_GROUP_MANAGER.plural)],
      },
    },
    "GET /groups/:namespace/:name/queue": {
      needs: () => restNeeds(zonal("requests", "list")),
      probe: (s, ns) => get(s, `/groups/${ns}/${GROUP_OF.zones}/queue`),
    },
    "GET /bookings": {
      needs: () => [ours("list", FUTURE_RESERVATION.plural)],
      probe: async (s, ns) => (await listed(s, ns, "/bookings", items)).outcome,
    },
    "GET /requests": {
      needs: () => restNeeds(zonal("requests", "list")),
      probe: async (s, ns) => (await listed(s, ns, "/requests", items)).outcome,
    },
    "GET /requests/:namespace/:name": {
      needs: () => restNeeds(zonal("requests", "get")),
      probe: async (s, ns) => {
        const reply = await client(s).get(`/requests/${ns}/${shared}`);
        const outcome = dashboardOutcome(reply);
        if (!outcome.allowed) return outcome;
        // Its Events (the fixtures made one about it) only for a caller who may list Events.
        const events = (reply.body as { events: { name: string }[] }).events;
        const findings = (await oracle.ask(dashboard(s), LIST_EVENTS, ns))
          ? events.some((e) => e.name === "about-request")
            ? []
            : ["shows no Event of the request to a caller who may list Events"]
          : events.length > 0
            ? [
                `shows ${events.length} Events (${events.map((e) => e.name).join(", ")}) to a caller who may not list Events`,
              ]
            : [];
        return { ...outcome, findings };
      },
      absent: {
        probe: (s, ns) => get(s, `/requests/${ns}/${MISSING}`),
        reads: () => [ours("get", RESIZE_REQUEST.plural)],
      },
    },
    "GET /operations": {
      needs: () => restNeeds(zonal("operations", "list")),
      probe: async (s, ns) => (await listed(s, ns, "/operations", projects)).outcome,
    },
    "GET /events": {
      needs: () => [LIST_EVENTS],
      probe: async (s, ns) => {
        const { outcome, body } = await listed(s, ns, "/events", items);
        if (!outcome.allowed) return outcome;
        const shown = (body as { items: { namespace: string; object: string }[] }).items;
        const foreign = notOurKinds(shown.filter((e) => e.namespace === ns).map((e) => e.object));
        return { ...outcome, findings: [...(outcome.findings ?? []), ...foreign] };
      },
    },
    "POST /requests": {
      needs: () => restNeeds(zonal("requests", "insert")),
      probe: (s, ns) =>
        post(s, "/requests", {
          namespace: ns,
          group: GROUP_OF.zones,
          name: `dash-insert-${s.role}`,
          resizeBy: 1,
        }),
      absent: {
        probe: (s, ns) => post(s, "/requests", { namespace: ns, group: MISSING, name: "x", resizeBy: 1 }),
        reads: () => [ours("get", INSTANCE_GROUP_MANAGER.plural, GROUP_OF.zones)],
      },
    },
    "POST /requests/:namespace/:name/cancel": {
      needs: () => restNeeds(zonal("requests", "cancel")),
      probe: (s, ns) =>
        post(s, `/requests/${ns}/${ownRequest("dashboard-cancel", "zones", s.role)}/cancel`, {}),
      absent: {
        probe: (s, ns) => post(s, `/requests/${ns}/${MISSING}/cancel`, {}),
        reads: () => [ours("get", RESIZE_REQUEST.plural)],
      },
    },
  };
  return Object.entries(rows).map(([id, row]) => ({ id, identity: dashboard, ...row }));
}

/** What each `kubectl resize` command needs (docs/kubectl-plugin.md) and its words, by command. */
export function pluginRows(ctx: MatrixContext): Row[] {
  const { fixtures } = ctx;
  const [shared, done, group] = [fixtures.shared("zones"), fixtures.done("zones"), GROUP_OF.zones];
  const rr = RESIZE_REQUEST.plural;
  const igm = INSTANCE_GROUP_MANAGER.plural;
  const commands: Readonly<
    Record<string, { needs: readonly Permission[]; words: (s: RoleSubject) => string[] }>
  > = {
    queue: { needs: [ours("get", igm, group), ours("list", rr)], words: () => ["queue", group] },
    explain: {
      needs: [ours("get", rr, shared), ours("get", igm, group), ours("list", rr), LIST_EVENTS],
      words: () => ["explain", shared],
    },
    cancel: {
      needs: [ours("patch", rr)],
      words: (s) => ["cancel", ownRequest("plugin-cancel", "zones", s.role)],
    },
    wait: {
      needs: [ours("get", rr, done), ours("watch", rr)],
      words: () => ["wait", done, "--for=cancelled", "--timeout=30s"],
    },
    // The named group, the namespace's requests and its bookings (docs/kubectl-plugin.md).
    advise: {
      needs: [ours("get", igm, group), ours("list", rr), ours("list", FUTURE_RESERVATION.plural)],
      words: () => ["advise", group, "--count=1", "--duration=1m"],
    },
  };
  return Object.entries(commands).map(([command, { needs, words }]) => ({
    id: command,
    needs: () => needs,
    identity: serviceAccount,
    probe: async (s, ns) =>
      pluginOutcome(await kubectlResize(ctx.binDir, [...words(s), "-n", ns, "--kubeconfig", s.kubeconfig])),
  }));
}

/** What a live message is about, and what its receiver must be allowed to list, by message type. */
export const STREAM_ROWS: Readonly<Record<string, { readonly needs: Permission; readonly marker: string }>> =
  {
    request: { needs: ours("list", RESIZE_REQUEST.plural), marker: "live-request" },
    group: { needs: ours("list", INSTANCE_GROUP_MANAGER.plural), marker: GROUP_OF.zones },
    event: { needs: LIST_EVENTS, marker: "live-about-request" },
  };

/** One finding naming the kinds, other than ours, that Events about `objects` (`Kind/name`) are about. */
export function notOurKinds(objects: readonly unknown[]): string[] {
  const kinds = [
    ...new Set(
      objects
        .map(String)
        .filter((o) => !OUR_KINDS.test(o))
        .map((o) => o.split("/")[0]),
    ),
  ];
  return kinds.length === 0 ? [] : [`shows Events about ${kinds.sort().join(", ")}, kinds that are not ours`];
}
