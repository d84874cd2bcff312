// The objects the authorization matrix reads and changes, the same in the namespace where the roles
// are bound and in another one: a zonal and a regional group whose targets are at maxSize (so requests
// stay queued, active, for as long as the test needs), active requests to cancel, final ones to delete
// (each cancelled through REST, which leaves an operation to delete), shared ones to read, and Events
// about a request and about something that is not ours. Every object a call may change is a subject's
// own, so calls run in parallel and in any order.
import * as k8s from "@kubernetes/client-node";
import { FUTURE_RESERVATIONS } from "../../src/api/kinds.js";
import {
  API_VERSION,
  FUTURE_RESERVATION,
  GROUP,
  REPORTING_CONTROLLER,
  RESIZE_REQUEST,
  REST_RESOURCES,
  VERSION,
} from "../../src/api/names.js";
import type { LocationScope } from "../../src/api/location.js";
import { ROUTES } from "../../src/rest/routes.js";
import { EVENTS } from "../../src/runtime/builtin-kinds.js";
import { httpKubeClient } from "../../src/runtime/http-kube-client.js";
import { KubeHttp } from "../../src/runtime/kube-http.js";
import { formatMicroTime } from "../../src/runtime/lease-client.js";
import { eventually, kubeConfig } from "./kube.js";
import { createGroup, createRequest, createWorkers, getRequest, untilState } from "./resize.js";
import { call, routeUrl } from "./rest.js";

const kube = httpKubeClient(new KubeHttp(kubeConfig()));

export const SCOPES: readonly LocationScope[] = ["zones", "regions"];
/** The group of each scope, in both namespaces. */
export const GROUP_OF: Readonly<Record<LocationScope, string>> = { zones: "zg", regions: "rg" };
const LOCATION: Readonly<Record<LocationScope, Record<string, string>>> = {
  zones: { zone: "local-a" },
  regions: { region: "local" },
};

/**
 * The zonal group bookings are made on: with room to spare (maxSize 1000, nothing running), so every
 * booking of the fixtures and of the inserts is APPROVED and stays cancellable.
 */
export const BOOKING_GROUP = "fg";
/** A window a month ahead: approved, and nowhere near its delivery while the matrix runs. */
export const bookingWindow = () => ({
  startTime: new Date(Date.now() + 30 * 24 * 3600_000).toISOString(),
  duration: { seconds: "3600" },
});
/** What a subject's own booking is for: the REST call that acts on it. */
export type BookingPurpose = "rest-cancel" | "rest-delete";
/** The name of `role`'s own booking for `purpose` (the same in every namespace). */
export const ownBooking = (purpose: BookingPurpose, role: string): string => `fr-${purpose}-${role}`;
/** The booking every subject reads. */
export const SHARED_BOOKING = "fr-shared";

/** What a subject's own request is for: the call that acts on it. */
export type Purpose = "rest-cancel" | "rest-delete" | "dashboard-cancel" | "plugin-cancel";
const FINAL: readonly Purpose[] = ["rest-delete"];
const ZONAL_ONLY: readonly Purpose[] = ["dashboard-cancel", "plugin-cancel"];
const PURPOSES: readonly Purpose[] = ["rest-cancel", "rest-delete", "dashboard-cancel", "plugin-cancel"];

/** The path values of a REST call in `namespace` and `scope`: project, location, group, plus `more`. */
export function where(namespace: string, scope: LocationScope, more: Record<string, string> = {}) {
  return { project: namespace, ...LOCATION[scope], instanceGroupManager: GROUP_OF[scope], ...more };
}

/** The name of `role`'s own request for `purpose` in `scope` (the same in every namespace). */
export function ownRequest(purpose: Purpose, scope: LocationScope, role: string): string {
  return `${purpose}-${scope[0] ?? ""}-${role}`;
}

export class MatrixFixtures {
  /** Operations left by cancelling requests, by `namespace/scope/request`. */
  private readonly operations = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    /** An admin of both namespaces (RoleBindings). */
    private readonly adminToken: string,
  ) {}

  /** Creates everything for `roles` in `namespace`; waits until final requests are final. */
  async create(namespace: string, roles: readonly string[]): Promise<void> {
    for (const scope of SCOPES) {
      await createWorkers(namespace, GROUP_OF[scope], 0, 1);
      await createGroup(namespace, GROUP_OF[scope], { ...LOCATION[scope], maxSize: 1 });
    }
    const own = roles.flatMap((role) =>
      PURPOSES.flatMap((purpose) =>
        SCOPES.filter((s) => s === "zones" || !ZONAL_ONLY.includes(purpose)).map((scope) => ({
          scope,
          name: ownRequest(purpose, scope, role),
          final: FINAL.includes(purpose),
        })),
      ),
    );
    const shared = SCOPES.flatMap((scope) => [
      { scope, name: this.shared(scope), final: false },
      { scope, name: this.done(scope), final: true },
    ]);
    await Promise.all(
      [...own, ...shared].map(({ scope, name, final }) =>
        final ? this.final(namespace, scope, name) : this.active(namespace, scope, name),
      ),
    );
    await this.bookings(namespace, roles);
    await this.event(namespace, "about-request", await this.regarding(namespace, this.shared("zones")));
    await this.event(namespace, "about-a-pod", {
      apiVersion: "v1",
      kind: "Pod",
      name: "not-ours",
      namespace,
    });
    // operations.wait answers at once only for a DONE operation.
    await Promise.all(
      SCOPES.map((scope) =>
        this.untilDone(namespace, scope, this.operation(namespace, scope, this.done(scope))),
      ),
    );
  }

  /**
   * The booking group, a booking every subject reads, and each role's own bookings: one to cancel,
   * one already cancelled (spec.cancel) to delete.
   */
  private async bookings(namespace: string, roles: readonly string[]): Promise<void> {
    await createWorkers(namespace, BOOKING_GROUP, 0, 0);
    await createGroup(namespace, BOOKING_GROUP, { maxSize: 1000 });
    await Promise.all([
      this.booking(namespace, SHARED_BOOKING, false),
      ...roles.flatMap((role) => [
        this.booking(namespace, ownBooking("rest-cancel", role), false),
        this.booking(namespace, ownBooking("rest-delete", role), true),
      ]),
    ]);
  }

  /** A booking of the booking group: approved, or already cancelled (then it may be deleted). */
  async booking(namespace: string, name: string, cancel: boolean): Promise<void> {
    await kube.resource(FUTURE_RESERVATIONS).create({
      apiVersion: API_VERSION,
      kind: FUTURE_RESERVATION.kind,
      metadata: { name, namespace },
      spec: { instanceGroupManager: BOOKING_GROUP, totalCount: 1, timeWindow: bookingWindow(), cancel },
    });
  }

  /** A request every subject reads: active, in the group of `scope`. */
  shared(scope: LocationScope): string {
    return `shared-${scope[0] ?? ""}`;
  }

  /** A request every subject reads: cancelled; its operation is the one every subject reads. */
  done(scope: LocationScope): string {
    return `done-${scope[0] ?? ""}`;
  }

  /** The operation that cancelling `request` (a final fixture) left. */
  operation(namespace: string, scope: LocationScope, request: string): string {
    const name = this.operations.get(`${namespace}/${scope}/${request}`);
    if (name === undefined) throw new Error(`no operation cancelled ${namespace}/${request}`);
    return name;
  }

  /** A queued request (its group is at maxSize). */
  async active(namespace: string, scope: LocationScope, name: string): Promise<void> {
    await createRequest(namespace, name, { instanceGroupManager: GROUP_OF[scope], resizeBy: 1 });
  }

  /** A request cancelled through REST by the fixtures' admin; its operation is kept. */
  async final(namespace: string, scope: LocationScope, name: string): Promise<void> {
    await this.active(namespace, scope, name);
    const route = this.route(scope, "requests", "cancel");
    const url = routeUrl(this.baseUrl, route, where(namespace, scope, { resizeRequest: name }));
    const reply = await call("POST", url, { token: this.adminToken });
    const op = (reply.body as { name?: string } | undefined)?.name;
    if (reply.status !== 200 || op === undefined)
      throw new Error(
        `cancelling fixture ${namespace}/${name}: ${reply.status} ${JSON.stringify(reply.body)}`,
      );
    this.operations.set(`${namespace}/${scope}/${name}`, op);
    await untilState(namespace, name, ["CANCELLED"]);
  }

  /**
   * An events.k8s.io Event in `namespace` about `regarding`, reported under the operator's controller
   * name: the dashboard caches only those, so one about a Pod shows that the kind, not the reporter,
   * keeps it off the page.
   */
  async event(namespace: string, name: string, regarding: k8s.V1ObjectReference): Promise<void> {
    const event = {
      apiVersion: EVENTS.apiVersion,
      kind: EVENTS.kind,
      metadata: { name, namespace },
      eventTime: formatMicroTime(Date.now()),
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: "matrix",
      action: "Testing",
      reason: "MatrixFixture",
      type: "Normal",
      note: `an event about ${regarding.kind ?? ""}/${regarding.name ?? ""}`,
      regarding,
    };
    await kube.resource(EVENTS).create(event);
  }

  /** A reference to one of our requests, as the controller's events carry it. */
  async regarding(namespace: string, request: string): Promise<k8s.V1ObjectReference> {
    const rr = await getRequest(namespace, request);
    return {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: RESIZE_REQUEST.kind,
      name: request,
      namespace,
      ...(rr.metadata.uid !== undefined && { uid: rr.metadata.uid }),
    };
  }

  private route(scope: LocationScope, what: "requests" | "operations", method: string) {
    const id = `compute.${REST_RESOURCES[scope][what]}.${method}`;
    const route = ROUTES.find((r) => r.id === id);
    if (!route) throw new Error(`no REST route ${id}`);
    return route;
  }

  private async untilDone(namespace: string, scope: LocationScope, operation: string): Promise<void> {
    const url = routeUrl(this.baseUrl, this.route(scope, "operations", "get"), {
      ...where(namespace, scope),
      operation,
    });
    await eventually(`operation ${namespace}/${operation} DONE`, async () => {
      const reply = await call("GET", url, { token: this.adminToken });
      return (reply.body as { status?: string } | undefined)?.status === "DONE" ? true : undefined;
    });
  }
}
