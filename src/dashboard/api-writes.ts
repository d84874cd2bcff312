// The JSON API's writes: create and cancel go through the REST API's invoker (src/rest/invoke.ts:
// parameters, RBAC, body validation, handler, Operations) as the signed-in identity, so the two paths
// cannot drift apart. What the caller may not see (visibility.ts) is answered as missing, before the
// REST checks could tell it apart with a 403.
import { z } from "zod";
import { locationField, type Location } from "../api/location.js";
import { REST_RESOURCES } from "../api/names.js";
import { BackendError } from "../rest/errors.js";
import { invoke } from "../rest/invoke.js";
import type { Route } from "../rest/route.js";
import { parseBody } from "../rest/validate.js";
import {
  locationOfGroup,
  pathParam,
  SEGMENT,
  type ApiCall,
  type ApiRoute,
  type DashboardApiDeps,
} from "./api-route.js";
import { notFound } from "./visibility.js";

/**
 * A new request from the UI: the REST insert body plus where it goes (namespace and group, which the
 * REST API takes from the path). The rest of the body is the REST route's to validate.
 */
const NewRequest = z.looseObject({
  namespace: z.string({ error: "required" }).regex(SEGMENT, "required"),
  group: z.string({ error: "required" }).regex(SEGMENT, "required"),
});

/** The REST route of `verb` for a group's location (zonal or regional collection). */
function routeFor(routes: readonly Route[], location: Location, verb: "insert" | "cancel"): Route {
  const id = `compute.${REST_RESOURCES[location.scope].requests}.${verb}`;
  const found = routes.find((r) => r.id === id);
  if (!found) throw new Error(`REST route ${id} is missing`);
  return found;
}

/** The REST call of `target` with these path values, as the signed-in identity. */
async function restCall(
  { reply: answer, user }: ApiCall,
  deps: DashboardApiDeps,
  target: Route,
  path: Readonly<Record<string, string>>,
  body: unknown,
): Promise<unknown> {
  const rest = deps.rest;
  if (!rest) throw new BackendError("Creating and cancelling needs the operations store (--redis-url).");
  const reply = await invoke({
    route: target,
    path,
    query: {},
    body,
    user,
    // The dashboard's cached SubjectAccessReviews; the handler makes its own checks too.
    authorize: (who, check) => deps.authz.require(who, check),
    log: () => deps.log.child({ method: target.id, user: user.username, via: "dashboard" }),
    // Read, never written: its closing aborts the handler's waits.
    res: answer.raw,
    deps: rest,
  });
  return reply.body ?? {};
}

export const WRITES: readonly ApiRoute[] = [
  {
    method: "post",
    path: "/requests",
    answer: async (call, deps) => {
      const { namespace, group, ...body } = parseBody(NewRequest, call.req.body);
      const location = locationOfGroup(deps.groups, namespace, group);
      if (!location || !(await deps.authz.sees(call.user, "request", namespace)))
        throw notFound("group", namespace, group);
      return restCall(
        call,
        deps,
        routeFor(deps.routes, location, "insert"),
        { project: namespace, [locationField(location)]: location.name, instanceGroupManager: group },
        body,
      );
    },
  },
  {
    method: "post",
    path: "/requests/:namespace/:name/cancel",
    answer: async (call, deps) => {
      const namespace = pathParam(call.req, "namespace");
      const name = pathParam(call.req, "name");
      const rr = await deps.authz.find(call.user, "request", namespace, name, () =>
        deps.requests.lister.get(`${namespace}/${name}`),
      );
      const location = locationOfGroup(deps.groups, namespace, rr.spec.instanceGroupManager);
      if (!location) throw notFound("request", namespace, name);
      return restCall(
        call,
        deps,
        routeFor(deps.routes, location, "cancel"),
        {
          project: namespace,
          [locationField(location)]: location.name,
          instanceGroupManager: rr.spec.instanceGroupManager,
          resizeRequest: name,
        },
        undefined,
      );
    },
  },
];
