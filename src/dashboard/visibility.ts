// Who sees what on the dashboard: for each kind of object it shows, the RBAC permission (in the
// object's namespace) that shows it. The one copy of the rule: the JSON API's reads (api-reads.ts), its
// writes (api-writes.ts) and the live stream (sse.ts) all ask it through DashboardAuthz (authz.ts), so
// a change is never on the stream that the JSON API would not answer, nor the other way round.
import { FUTURE_RESERVATION, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../api/names.js";
import type { StreamPayloads } from "./answers.js";
import type { AccessCheck } from "../rest/auth.js";
import { NotFoundError } from "../rest/errors.js";

/** What the dashboard shows (also the types of the stream's messages). */
export type Shown = keyof StreamPayloads;

/** Shown by name too (a page of its own, an action): the kinds of our API group. */
export type Named = Exclude<Shown, "event">;

/** The permission that shows an object of each kind, asked in the object's namespace. */
const LISTED_WITH: Readonly<Record<Shown, Omit<AccessCheck, "namespace">>> = {
  request: { verb: "list", resource: RESIZE_REQUEST.plural },
  group: { verb: "list", resource: INSTANCE_GROUP_MANAGER.plural },
  booking: { verb: "list", resource: FUTURE_RESERVATION.plural },
  // The core group's, which `kubectl get events` and `kubectl auth can-i list events` ask about (the
  // built-in view, edit and admin roles grant it together with events.k8s.io's).
  event: { verb: "list", group: "", resource: "events" },
};

/** The check that shows the objects of kind `shown` in `namespace` (lists, the live stream). */
export function listCheck(shown: Shown, namespace: string): AccessCheck {
  return { ...LISTED_WITH[shown], namespace };
}

/** The check that shows one object by name (its page, its chart, an action on it). */
export function getCheck(shown: Named, namespace: string, name: string): AccessCheck {
  return { verb: "get", resource: LISTED_WITH[shown].resource, namespace, name };
}

/** What a missing object and one the caller may not see are both answered with. */
export function notFound(shown: Named, namespace: string, name: string): NotFoundError {
  const what = { request: "Resize request", group: "Group", booking: "Future reservation" }[shown];
  return new NotFoundError(`${what} ${namespace}/${name} not found.`);
}
