// The dashboard's JSON API under /dashboard/api. Reads come from the manager's informer caches (and the
// operations store), filtered by RBAC for the signed-in identity: a namespace where the user cannot
// list resize requests does not exist for them. Create and cancel go through the REST API's invoker
// (src/rest/invoke.ts: parameters, RBAC, body validation, handler, Operations) as the signed-in
// identity, so the two paths cannot drift apart.
import { servedBy } from "../api/served-by.js";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import { z } from "zod";
import { groupLocation, locationField, locationPath, type Location } from "../api/location.js";
import { INSTANCE_GROUP_MANAGER, REST_RESOURCES, RESIZE_REQUEST } from "../api/names.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { Operation } from "../api/index.js";
import type { UserInfo } from "../rest/auth.js";
import type { RestDeps } from "../rest/deps.js";
import { BackendError, NotFoundError } from "../rest/errors.js";
import { invoke } from "../rest/invoke.js";
import type { Route } from "../rest/route.js";
import { parseBody } from "../rest/validate.js";
import { eventSummary, type EventSummary, type KubeEvent } from "../events/view.js";
import type { Informer } from "../runtime/informer.js";
import type {
  AuthPaths,
  CapacityAnswer,
  ItemsAnswer,
  MeAnswer,
  QueueAnswer,
  RequestDetailAnswer,
} from "./answers.js";
import type { DashboardSession } from "./session.js";
import type { DashboardAuthz } from "./authz.js";
import { issueCsrfToken, requireCsrf, setCsrfCookie } from "./csrf.js";
import { groupQueue } from "../controller/queue-view.js";
import { queueAnswer } from "./queue-view.js";
import {
  attempts,
  byNewest,
  groupSummary,
  requestSummary,
  timeline,
  type CapacityHistory,
  type GroupSummary,
  type RequestSummary,
} from "./views.js";

export const API_BASE = "/dashboard/api";

export interface DashboardApiDeps {
  readonly requests: Informer<ResizeRequest>;
  readonly groups: Informer<InstanceGroupManager>;
  readonly events: Informer<KubeEvent>;
  readonly history: CapacityHistory;
  readonly authz: DashboardAuthz;
  readonly identity: (session: DashboardSession) => UserInfo | undefined;
  readonly secrets: readonly string[];
  readonly secureCookies: (req: Request) => boolean;
  /**
   * Where the page signs in and out (AUTH_BASE_PATH, AUTH_PAGES_SIGN_IN): the UI has no path of its
   * own for them, so a custom base path works there too.
   */
  readonly auth: AuthPaths;
  /** REST deps (Redis-backed Operations); without them the dashboard is read-only. */
  readonly rest?: RestDeps;
  readonly routes: readonly Route[];
  readonly log: Logger;
}

const RR = RESIZE_REQUEST.plural;
const IGM = INSTANCE_GROUP_MANAGER.plural;

/** The identity of the request's session (the guard put the session there). */
export function userOf(res: Response, identity: DashboardApiDeps["identity"]): UserInfo | undefined {
  const session = res.locals.session as DashboardSession | null | undefined;
  return session ? identity(session) : undefined;
}

function namespacesOf(
  ...informers: readonly { lister: { list(): { metadata?: { namespace?: string } }[] } }[]
): string[] {
  return [
    ...new Set(
      informers.flatMap((i) => i.lister.list().map((o) => o.metadata?.namespace ?? "")).filter(Boolean),
    ),
  ].sort();
}

const segment = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * A new request from the UI: the REST insert body plus where it goes (namespace and group, which the
 * REST API takes from the path). The rest of the body is the REST route's to validate.
 */
const NewRequest = z.looseObject({
  namespace: z.string({ error: "required" }).regex(segment, "required"),
  group: z.string({ error: "required" }).regex(segment, "required"),
});
function pathParam(req: Request, name: string): string {
  const value = req.params[name];
  if (typeof value !== "string" || !segment.test(value)) throw new NotFoundError(`No such ${name}.`);
  return value;
}

export function dashboardApi(deps: DashboardApiDeps): express.Router {
  const { authz, requests, groups, events } = deps;
  const router = express.Router();
  const route = (id: string): Route => {
    const found = deps.routes.find((r) => r.id === id);
    if (!found) throw new Error(`REST route ${id} is missing`);
    return found;
  };
  /** The REST route of `verb` for a group's location (zonal or regional collection). */
  const routeFor = (location: Location, verb: "insert" | "cancel"): Route =>
    route(`compute.${REST_RESOURCES[location.scope].requests}.${verb}`);
  const locationOfGroup = (namespace: string, group: string): Location | undefined => {
    const g = groups.lister.get(`${namespace}/${group}`);
    return g && groupLocation(g.spec);
  };
  /** REST path values naming a location: `zone` or `region`. */
  const locationValues = (location: Location): Record<string, string> => ({
    [locationField(location)]: location.name,
  });

  const user = (res: Response): UserInfo => {
    const u = userOf(res, deps.identity);
    if (!u) throw new BackendError("The session has no identity.");
    return u;
  };
  const handle =
    (fn: (req: Request, res: Response) => unknown) => (req: Request, res: Response, next: NextFunction) => {
      Promise.resolve()
        .then(() => fn(req, res))
        .then((body) => {
          if (!res.headersSent) res.json(body);
        }, next);
    };

  router.use(express.json({ limit: 64 * 1024 }));
  router.use(requireCsrf(deps.secrets, (res) => userOf(res, deps.identity)?.username));

  router.get(
    "/me",
    handle((req, res): MeAnswer => {
      const u = user(res);
      const token = issueCsrfToken(deps.secrets, u.username);
      setCsrfCookie(res, token, deps.secureCookies(req));
      const session = res.locals.session as DashboardSession;
      return {
        user: session.user,
        expires: session.expires,
        kubernetes: { username: u.username, groups: u.groups },
        csrfToken: token,
        mutations: deps.rest !== undefined,
        auth: deps.auth,
      };
    }),
  );

  router.get(
    "/namespaces",
    handle(async (_req, res) => ({
      namespaces: [...(await authz.visible(user(res), namespacesOf(requests, groups), RR))].sort(),
    })),
  );

  router.get(
    "/groups",
    handle(async (_req, res): Promise<ItemsAnswer<GroupSummary>> => {
      const u = user(res);
      const visible = await authz.visible(u, namespacesOf(groups), IGM);
      return {
        items: groups.lister
          .list()
          .filter((g) => visible.has(g.metadata.namespace ?? ""))
          .map(groupSummary)
          .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name)),
      };
    }),
  );

  router.get(
    "/groups/:namespace/:name/capacity",
    handle(async (req, res): Promise<CapacityAnswer> => {
      const namespace = pathParam(req, "namespace");
      const name = pathParam(req, "name");
      await authz.require(user(res), { verb: "get", resource: IGM, namespace, name });
      const group = groups.lister.get(`${namespace}/${name}`);
      if (!group) throw new NotFoundError(`Group ${namespace}/${name} not found.`);
      return { group: groupSummary(group), points: deps.history.points(namespace, name), now: Date.now() };
    }),
  );

  // The queue shows the group's requests: whoever may list requests in the namespace may see it (the
  // group itself need not exist). Derived on read; the page fetches it again when the stream says the
  // group or one of its requests changed.
  router.get(
    "/groups/:namespace/:name/queue",
    handle(async (req, res): Promise<QueueAnswer> => {
      const namespace = pathParam(req, "namespace");
      const name = pathParam(req, "name");
      await authz.require(user(res), { verb: "list", resource: RR, namespace });
      const now = Date.now();
      return queueAnswer(groupQueue(groups.lister, requests.lister, `${namespace}/${name}`, now), now);
    }),
  );

  router.get(
    "/requests",
    handle(async (req, res): Promise<ItemsAnswer<RequestSummary>> => {
      const visible = await authz.visible(user(res), namespacesOf(requests), RR);
      const namespace = typeof req.query.namespace === "string" ? req.query.namespace : undefined;
      const group = typeof req.query.group === "string" ? req.query.group : undefined;
      return {
        items: requests.lister
          .list()
          .filter((rr) => visible.has(rr.metadata.namespace ?? ""))
          .filter((rr) => namespace === undefined || rr.metadata.namespace === namespace)
          .filter((rr) => group === undefined || rr.spec.instanceGroupManager === group)
          .map(requestSummary)
          .sort(byNewest),
      };
    }),
  );

  router.get(
    "/requests/:namespace/:name",
    handle(async (req, res): Promise<RequestDetailAnswer> => {
      const namespace = pathParam(req, "namespace");
      const name = pathParam(req, "name");
      await authz.require(user(res), { verb: "get", resource: RR, namespace, name });
      const rr = requests.lister.get(`${namespace}/${name}`);
      if (!rr) throw new NotFoundError(`Resize request ${namespace}/${name} not found.`);
      const store = deps.rest?.store;
      const location = locationOfGroup(namespace, rr.spec.instanceGroupManager);
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
        events: events.lister
          .list()
          .filter((e) => e.metadata?.namespace === namespace && e.regarding?.kind === RESIZE_REQUEST.kind)
          .filter(
            (e) => e.regarding?.name === name && (e.regarding.uid ?? rr.metadata.uid) === rr.metadata.uid,
          )
          .map(eventSummary)
          .sort((a, b) => a.time.localeCompare(b.time)),
        operations,
        servedBy: servedBy(rr.metadata.annotations),
      };
    }),
  );

  router.get(
    "/operations",
    handle(async (_req, res): Promise<ItemsAnswer<Operation>> => {
      const store = deps.rest?.store;
      if (!store) return { items: [] };
      const visible = await authz.visible(user(res), namespacesOf(requests, groups), RR);
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
    }),
  );

  router.get(
    "/events",
    handle(async (_req, res): Promise<ItemsAnswer<EventSummary>> => {
      const visible = await authz.visible(user(res), namespacesOf(requests, groups), RR);
      return {
        items: events.lister
          .list()
          .filter((e) => visible.has(e.metadata?.namespace ?? ""))
          .map(eventSummary)
          .sort((a, b) => b.time.localeCompare(a.time))
          .slice(0, 200),
      };
    }),
  );

  /** Create and cancel: the REST route's own call path, as the signed-in identity. */
  const restCall = async (
    res: Response,
    target: Route,
    path: Readonly<Record<string, string>>,
    body: unknown,
  ): Promise<unknown> => {
    const rest = deps.rest;
    if (!rest) throw new BackendError("Creating and cancelling needs the operations store (--redis-url).");
    const u = user(res);
    const reply = await invoke({
      route: target,
      path,
      query: {},
      body,
      user: u,
      // The dashboard's cached SubjectAccessReviews; the handler makes its own checks too.
      authorize: (who, check) => authz.require(who, check),
      log: deps.log.child({ method: target.id, user: u.username, via: "dashboard" }),
      res,
      deps: rest,
    });
    return reply.body ?? {};
  };

  router.post(
    "/requests",
    handle(async (req, res) => {
      const { namespace, group, ...body } = parseBody(NewRequest, req.body);
      const location = locationOfGroup(namespace, group);
      if (!location || !(await authz.can(user(res), { verb: "list", resource: RR, namespace })))
        throw new NotFoundError(`Group ${namespace}/${group} not found.`);
      return restCall(
        res,
        routeFor(location, "insert"),
        { project: namespace, ...locationValues(location), instanceGroupManager: group },
        body,
      );
    }),
  );

  router.post(
    "/requests/:namespace/:name/cancel",
    handle(async (req, res) => {
      const namespace = pathParam(req, "namespace");
      const name = pathParam(req, "name");
      const rr = requests.lister.get(`${namespace}/${name}`);
      const location = rr && locationOfGroup(namespace, rr.spec.instanceGroupManager);
      if (!rr || !location) throw new NotFoundError(`Resize request ${namespace}/${name} not found.`);
      return restCall(
        res,
        routeFor(location, "cancel"),
        {
          project: namespace,
          ...locationValues(location),
          instanceGroupManager: rr.spec.instanceGroupManager,
          resizeRequest: name,
        },
        undefined,
      );
    }),
  );

  return router;
}
