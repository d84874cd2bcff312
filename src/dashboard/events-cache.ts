// The dashboard's cache of Events: only the operator's own, about the kinds it serves (ResizeRequests,
// InstanceGroupManagers and the ProvisioningRequests of its class), so a replica never holds — and the
// dashboard can never show — a Pod's probe output or any other Event of the cluster. The API server
// sends only the operator's Events (a field selector on events.k8s.io/v1's `reportingController`); the
// informer's filter keeps of those only the ones about our kinds, since a field selector cannot say
// "one of these kinds", and anyone who may create Events could name our controller.
import { GROUP, INSTANCE_GROUP_MANAGER, REPORTING_CONTROLLER, RESIZE_REQUEST } from "../api/names.js";
import { PROVISIONING_API_GROUP, PROVISIONING_REQUEST } from "../api/provisioning-request.js";
import { KubeEventView, type KubeEvent } from "../events/view.js";
import type { InformerSpec } from "../runtime/manager.js";
import type { KubeObject } from "../runtime/object.js";
import type { Lister } from "../runtime/store.js";
import { stripUnreadMetadata } from "../runtime/transform.js";

/** The API group of each kind whose Events the dashboard shows. */
const SHOWN_KINDS: ReadonlyMap<string, string> = new Map([
  [RESIZE_REQUEST.kind, GROUP],
  [INSTANCE_GROUP_MANAGER.kind, GROUP],
  // Only the operator writes Events about the ProvisioningRequests of its class (and only those).
  [PROVISIONING_REQUEST.kind, PROVISIONING_API_GROUP],
]);

/** What the API server is asked for: the operator's own Events. */
export const OWN_EVENTS_SELECTOR = `reportingController=${REPORTING_CONTROLLER}`;

/** The API group of an apiVersion ("group/version"; a bare version is the core group's, ""). */
function groupOf(apiVersion: unknown): string | undefined {
  if (typeof apiVersion !== "string") return undefined;
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** Whether the dashboard keeps (and may show) a raw events.k8s.io/v1 Event. */
export function isShownEvent(raw: KubeObject): boolean {
  const event = raw as {
    reportingController?: unknown;
    regarding?: { kind?: unknown; apiVersion?: unknown };
  };
  const kind = event.regarding?.kind;
  const group = typeof kind === "string" ? SHOWN_KINDS.get(kind) : undefined;
  return (
    event.reportingController === REPORTING_CONTROLLER &&
    group !== undefined &&
    groupOf(event.regarding?.apiVersion) === group
  );
}

const BY_REGARDING = "regarding";
/** A counter per namespace: its values are the namespaces that have Events, read without a scan. */
const PER_NAMESPACE = "namespaces";

function regardingKey(namespace: string, kind: string, name: string): string {
  return `${namespace}/${kind}/${name}`;
}

/** The events informer of the dashboard (one namespace with the operator's --namespace). */
export function eventsInformerSpec(namespace?: string): InformerSpec<KubeEvent> {
  return {
    name: "events",
    path: `/apis/events.k8s.io/v1${namespace ? `/namespaces/${namespace}` : ""}/events`,
    fieldSelector: OWN_EVENTS_SELECTOR,
    filter: isShownEvent,
    decode: (raw) => KubeEventView.parse(raw),
    transform: stripUnreadMetadata,
    indexers: {
      [BY_REGARDING]: (e) => [
        regardingKey(e.metadata?.namespace ?? "", e.regarding?.kind ?? "", e.regarding?.name ?? ""),
      ],
    },
    counters: { [PER_NAMESPACE]: (e) => (e.metadata?.namespace ? [e.metadata.namespace] : []) },
  };
}

/** The cached Events about one object (by kind and name: the caller tells incarnations apart by uid). */
export function eventsAbout(
  events: Lister<KubeEvent>,
  namespace: string,
  kind: string,
  name: string,
): KubeEvent[] {
  return events.byIndex(BY_REGARDING, regardingKey(namespace, kind, name));
}

/** The namespaces that have cached Events. */
export function eventNamespaces(events: Lister<KubeEvent>): string[] {
  return [...events.counts(PER_NAMESPACE).keys()];
}

/**
 * The `limit` items with the latest `time` (ISO 8601, compared as text), latest first; items of equal
 * time keep their order. One pass that keeps only the newest `limit` in order, rather than sorting
 * everything to throw most of it away.
 */
export function newest<T>(items: Iterable<T>, limit: number, time: (item: T) => string): T[] {
  const kept: { item: T; at: string }[] = [];
  if (limit <= 0) return [];
  for (const item of items) {
    const at = time(item);
    const last = kept[limit - 1];
    if (last !== undefined && at <= last.at) continue;
    // After every kept item at least as late: the first position whose time is earlier.
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((kept[mid]?.at ?? "") >= at) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, { item, at });
    if (kept.length > limit) kept.pop();
  }
  return kept.map((k) => k.item);
}
