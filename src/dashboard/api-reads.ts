// The JSON API's reads. They come from the manager's informer caches (and the operations store),
// filtered by RBAC for the signed-in identity as visibility.ts says per kind of object: a namespace
// where the user cannot list resize requests has no requests for them, one where they cannot list
// events no Events, and an object they may not get is answered exactly like one that does not exist.
import { servedBy } from "../api/served-by.js";
import { groupLocation, locationPath, type Location } from "../api/location.js";
import { RESIZE_REQUEST } from "../api/names.js";
import type { Operation } from "../api/index.js";
import { eventSummary, eventTime, type EventSummary } from "../events/view.js";
import { groupQueue } from "../cache/group-queue.js";
import type { CapacityAnswer, ItemsAnswer, MeAnswer, QueueAnswer, RequestDetailAnswer } from "./answers.js";
import { locationOfGroup, pathParam, type ApiRoute } from "./api-route.js";
import { issueCsrfToken, setCsrfCookie } from "./csrf.js";
import { eventNamespaces, eventsAbout, newest } from "./events-cache.js";
import type { BookingSummary } from "./booking-timeline.js";
import { bookingSummary } from "./bookings-view.js";
import { queueAnswer } from "./queue-answer.js";
import {
  attempts,
  byNewest,
  groupSummary,
  requestSummary,
  timeline,
  type GroupSummary,
  type RequestSummary,
} from "./views.js";
import { listCheck } from "./visibility.js";

/** The Events page shows this many, the newest. */
const EVENTS_SHOWN = 200;

/** The namespaces the informers' objects live in, sorted. */
function namespacesOf(
  ...informers: readonly { lister: { list(): { metadata?: { namespace?: string } }[] } }[]
): string[] {
  return [
    ...new Set(
      informers.flatMap((i) => i.lister.list().map((o) => o.metadata?.namespace ?? "")).filter(Boolean),
    ),
  ].sort();
}

export const READS: readonly ApiRoute[] = [
  {
    method: "get",
    path: "/me",
    answer: ({ req, reply, user, session }, deps): MeAnswer => {
      const token = issueCsrfToken(deps.secrets, user.username);
      setCsrfCookie(reply, token, deps.secureCookies(req));
      return {
        user: session.user,
        expires: session.expires,
        kubernetes: { username: user.username, groups: user.groups },
        csrfToken: token,
        mutations: deps.rest !== undefined,
        auth: deps.auth,
      };
    },
  },
  {
    method: "get",
    path: "/namespaces",
    answer: async ({ user }, { authz, requests, groups }) => ({
      namespaces: [...(await authz.visible(user, namespacesOf(requests, groups), "request"))].sort(),
    }),
  },
  {
    method: "get",
    path: "/groups",
    answer: async ({ user }, { authz, groups }): Promise<ItemsAnswer<GroupSummary>> => {
      const visible = await authz.visible(user, namespacesOf(groups), "group");
      return {
        items: groups.lister
          .list()
          .filter((g) => visible.has(g.metadata.namespace ?? ""))
          .map(groupSummary)
          .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name)),
      };
    },
  },
  {
    method: "get",
    path: "/groups/:namespace/:name/capacity",
    answer: async ({ req, user }, { authz, groups, history }): Promise<CapacityAnswer> => {
      const namespace = pathParam(req, "namespace");
      const name = pathParam(req, "name");
      const group = await authz.find(user, "group", namespace, name, () =>
        groups.lister.get(`${namespace}/${name}`),
      );
      return { group: groupSummary(group), points: history.points(namespace, name), now: Date.now() };
    },
  },
  // The queue shows the group's requests: whoever may list requests in the namespace may see it (the
  // group itself need not exist). Anyone else is told why if they may see the group, and otherwise
  // that there is no such group, as for a missing one. Derived on read; the page fetches it again
  // when the stream says the group or one of its requests changed.
  {
    method: "get",
    path: "/groups/:namespace/:name/queue",
    answer: async ({ req, user }, { authz, groups, requests, bookings }): Promise<QueueAnswer> => {
      const namespace = pathParam(req, "namespace");
      const name = pathParam(req, "name");
      const key = `${namespace}/${name}`;
      if (!(await authz.sees(user, "request", namespace))) {
        await authz.find(user, "group", namespace, name, () => groups.lister.get(key));
        await authz.require(user, listCheck("request", namespace));
      }
      const now = Date.now();
      return queueAnswer(groupQueue(groups.lister, requests.lister, key, now, bookings?.lister), now);
    },
  },
  {
    method: "get",
    path: "/requests",
    answer: async ({ req, user }, { authz, requests }): Promise<ItemsAnswer<RequestSummary>> => {
      const visible = await authz.visible(user, namespacesOf(requests), "request");
      const query = req.query as Readonly<Record<string, unknown>>;
      const namespace = typeof query.namespace === "string" ? query.namespace : undefined;
      const group = typeof query.group === "string" ? query.group : undefined;
      return {
        items: requests.lister
          .list()
          .filter((rr) => visible.has(rr.metadata.namespace ?? ""))
          .filter((rr) => namespace === undefined || rr.metadata.namespace === namespace)
          .filter((rr) => group === undefined || rr.spec.instanceGroupManager === group)
          .map(requestSummary)
          .sort(byNewest),
      };
    },
  },
  // Bookings where the user may list futurereservations, as requests where they may list those; none
  // where the operator does not serve the kind. The group timelines pick theirs (booking-timeline.ts).
  {
    method: "get",
    path: "/bookings",
    answer: async ({ user }, { authz, bookings }): Promise<ItemsAnswer<BookingSummary>> => {
      if (!bookings) return { items: [] };
      const visible = await authz.visible(user, namespacesOf(bookings), "booking");
      return {
        items: bookings.lister
          .list()
          .filter((b) => visible.has(b.metadata.namespace ?? ""))
          .map(bookingSummary),
      };
    },
  },
  {
    method: "get",
    path: "/requests/:namespace/:name",
    answer: async ({ req, user }, deps): Promise<RequestDetailAnswer> => {
      const namespace = pathParam(req, "namespace");
      const name = pathParam(req, "name");
      const rr = await deps.authz.find(user, "request", namespace, name, () =>
        deps.requests.lister.get(`${namespace}/${name}`),
      );
      const showEvents = await deps.authz.sees(user, "event", namespace);
      const store = deps.rest?.store;
      const location = locationOfGroup(deps.groups, namespace, rr.spec.instanceGroupManager);
      // Every Operation whose target is this request (insert, cancel, delete), oldest first.
      const operations: Operation[] =
        store && location
          ? (await store.list(namespace, location)).filter((op) =>
              op.targetLink.endsWith(`/resizeRequests/${name}`),
            )
          : [];
      return {
        request: requestSummary(rr),
        spec: rr.spec,
        timeline: timeline(rr),
        attempts: attempts(rr),
        events: showEvents
          ? eventsAbout(deps.events.lister, namespace, RESIZE_REQUEST.kind, name)
              .filter((e) => (e.regarding?.uid ?? rr.metadata.uid) === rr.metadata.uid)
              .map(eventSummary)
              .sort((a, b) => a.time.localeCompare(b.time))
          : [],
        operations,
        servedBy: servedBy(rr.metadata.annotations),
      };
    },
  },
  {
    method: "get",
    path: "/operations",
    answer: async ({ user }, { authz, requests, groups, rest }): Promise<ItemsAnswer<Operation>> => {
      const store = rest?.store;
      if (!store) return { items: [] };
      const visible = await authz.visible(user, namespacesOf(requests, groups), "request");
      // One listing per project and location, however many groups share it.
      const locations = new Map<string, { project: string; location: Location }>();
      for (const g of groups.lister.list()) {
        const project = g.metadata.namespace ?? "";
        if (!visible.has(project)) continue;
        const location = groupLocation(g.spec);
        locations.set(`${project}/${locationPath(location)}`, { project, location });
      }
      const lists = await Promise.all(
        [...locations.values()].map(({ project, location }) => store.list(project, location)),
      );
      return {
        items: lists.flat().sort((a, b) => b.insertTime.localeCompare(a.insertTime)),
      };
    },
  },
  {
    method: "get",
    path: "/events",
    answer: async ({ user }, { authz, events }): Promise<ItemsAnswer<EventSummary>> => {
      const visible = await authz.visible(user, eventNamespaces(events.lister), "event");
      const shown = [...visible].flatMap((namespace) => events.lister.list(namespace));
      return { items: newest(shown, EVENTS_SHOWN, eventTime).map(eventSummary) };
    },
  },
];
