// A row of the dashboard's JSON API table (api-reads.ts, api-writes.ts): method, path and the function
// that answers it, given the call and what the API reads from. The router (api.ts) mounts the rows;
// a row only computes its answer.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import type { FutureReservation } from "../api/future-reservation.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { groupLocation, type Location } from "../api/location.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { KubeEvent } from "../events/view.js";
import type { UserInfo } from "../rest/auth.js";
import type { RestDeps } from "../rest/deps.js";
import { NotFoundError } from "../rest/errors.js";
import type { Route } from "../rest/route.js";
import type { Informer } from "../runtime/informer.js";
import type { AuthPaths } from "./answers.js";
import type { DashboardAuthz } from "./authz.js";
import type { CapacityHistory } from "./capacity-history.js";
import type { DashboardSession } from "./session.js";

export interface DashboardApiDeps {
  readonly requests: Informer<ResizeRequest>;
  readonly groups: Informer<InstanceGroupManager>;
  /** Where FutureReservations are served: the queue's ETAs count approved bookings' windows. */
  readonly bookings?: Informer<FutureReservation>;
  readonly events: Informer<KubeEvent>;
  readonly history: CapacityHistory;
  readonly authz: DashboardAuthz;
  readonly identity: (session: DashboardSession) => UserInfo | undefined;
  readonly secrets: readonly string[];
  readonly secureCookies: (req: FastifyRequest) => boolean;
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

/** One call of the API, by a signed-in user with an identity (the router refuses any other). */
export interface ApiCall {
  readonly req: FastifyRequest;
  /** The reply, for headers (the CSRF cookie) set beside the JSON answer the row returns. */
  readonly reply: FastifyReply;
  readonly user: UserInfo;
  readonly session: DashboardSession;
}

export interface ApiRoute {
  readonly method: "get" | "post";
  /** Path below the API base, e.g. "/requests/:namespace/:name". */
  readonly path: string;
  /** The JSON answer (declared in answers.ts); an error thrown is answered by dashboard/errors.ts. */
  readonly answer: (call: ApiCall, deps: DashboardApiDeps) => unknown;
}

/** Namespace and object names as Kubernetes spells them; anything else names nothing. */
export const SEGMENT = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** A path parameter that is a valid name; NotFoundError otherwise. */
export function pathParam(req: FastifyRequest, name: string): string {
  const value = (req.params as Readonly<Record<string, unknown>>)[name];
  if (typeof value !== "string" || !SEGMENT.test(value)) throw new NotFoundError(`No such ${name}.`);
  return value;
}

/** The location (zone or region) of a group in the cache; undefined when there is no such group. */
export function locationOfGroup(
  groups: Informer<InstanceGroupManager>,
  namespace: string,
  group: string,
): Location | undefined {
  const g = groups.lister.get(`${namespace}/${group}`);
  return g && groupLocation(g.spec);
}
