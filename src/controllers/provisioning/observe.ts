// What one pass of the provisioner reads for a ProvisioningRequest key, its snapshot (snapshot.ts):
// the time, the retention, the request (cache), its
// ResizeRequest — only at the place recorded at acceptance, in the group's namespace (cache, and one
// live read where a cache miss would otherwise fail a request whose ResizeRequest was created a moment
// ago) — or, before acceptance, the namesakes in the groups' namespaces; the ResizeRequests a deleted
// request left (cache index), the groups (cache), and — only while they matter — its pod templates,
// its namespace's labels and whether a pod consumes its capacity. Labels only find candidates; which
// one is the request's is decided by owner references (ownership.ts). Its parameters are parsed and its
// booking computed here, once per pass, for the decision to read.
//
// Whether a pod consumes the capacity is asked once the booking window is over, and only then: a list
// of the pods selected by the labels of the request's first pod template (Kueue copies the workload's
// pod labels there, so this finds that workload's pods, never the whole namespace's), whose answer
// "consumed" is remembered per request (it stays true), so later passes read nothing; "not consumed"
// is answered by BookingExpired, after which nothing is read either.
import type { FutureReservation } from "../../api/future-reservation.js";
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { POD_TEMPLATES, RESIZE_REQUESTS } from "../../api/kinds.js";
import {
  CONSUME_ANNOTATION,
  PROVISIONING_CLASS,
  PROVISIONING_REQUEST_UID_LABEL,
  ProvisioningCondition as C,
  type PodTemplate,
  type ProvisioningRequest,
} from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import { groupKeyOf } from "../../api/identity.js";
import { groupQueue } from "../../cache/group-queue.js";
import { BY_PROVISIONING_REQUEST } from "../../cache/indexes.js";
import { isNotFound } from "../../runtime/api-errors.js";
import { NAMESPACES, PODS } from "../../runtime/builtin-kinds.js";
import type { Addressable, KubeClient } from "../../runtime/resource-client.js";
import type { ObjectKey, ResourceKind } from "../../runtime/resource-kind.js";
import type { Lister } from "../../runtime/store.js";
import { TtlCache } from "../../runtime/ttl-cache.js";
import { bookingEndsAt } from "./booking.js";
import { groupOf, recordedNamespace } from "./ownership.js";
import { parseParameters } from "./parameters.js";
import { groupQueues } from "./obtainability.js";
import { needsNamespaceLabels } from "./placement.js";
import { resizeRequestName } from "./resize-request.js";
import type { ProvisioningSnapshot } from "./snapshot.js";

export interface ProvisioningObserveDeps {
  readonly provisioningRequests: Lister<ProvisioningRequest>;
  readonly resizeRequests: Lister<ResizeRequest>;
  readonly groups: Lister<InstanceGroupManager>;
  /** FutureReservations, where served: the queue's ETAs count them. */
  readonly bookings?: Lister<FutureReservation>;
  readonly client: KubeClient;
  readonly now: () => number;
  /** Requests (by uid) a pod was found consuming; only that answer is kept (`consumptionCache`). */
  readonly consumption: TtlCache<string, boolean>;
  /** How long a ResizeRequest of a finished ProvisioningRequest is kept once nothing is held. */
  readonly retentionMs: number;
}

const isTrue = (pr: ProvisioningRequest, type: string): boolean =>
  pr.status?.conditions?.some((c) => c.type === type && c.status === "True") ?? false;

export async function observeProvisioning(
  deps: ProvisioningObserveDeps,
  namespace: string,
  name: string,
): Promise<ProvisioningSnapshot> {
  const key = `${namespace}/${name}`;
  const pr = deps.provisioningRequests.get(key);
  const served = deps.resizeRequests.byIndex(BY_PROVISIONING_REQUEST, key);
  const groups = deps.groups.list();
  const nowMs = deps.now();
  const pass = { nowMs, retentionMs: deps.retentionMs, groups };
  // Of another class: none of its business. Gone: every ResizeRequest it left is an orphan.
  if (!pr || pr.spec.provisioningClassName !== PROVISIONING_CLASS)
    return { ...pass, request: undefined, orphans: pr ? [] : served };
  const uid = pr.metadata.uid ?? "";
  const orphans = served.filter((rr) => rr.metadata.labels?.[PROVISIONING_REQUEST_UID_LABEL] !== uid);
  const accepted = isTrue(pr, C.Accepted);
  const failed = isTrue(pr, C.Failed);
  const provisioned = isTrue(pr, C.Provisioned);
  const admitting = !accepted && !failed && !provisioned;
  const parameters = parseParameters(pr.spec.parameters);
  // Served from a booking: its delivery request is the booking's, so no ResizeRequest of ours is read.
  const booked = parameters.ok ? parameters.value.futureReservation : undefined;
  const rrName = resizeRequestName(pr);
  const recorded = booked === undefined ? recordedNamespace(pr) : undefined;
  // Before acceptance: the namesakes in the groups' namespaces (one made before a crash is adopted).
  const namesakes =
    admitting && booked === undefined
      ? [...new Set(groups.map((g) => g.metadata.namespace ?? ""))].flatMap((ns) => {
          const rr = deps.resizeRequests.get(`${ns}/${rrName}`);
          return rr ? [rr] : [];
        })
      : [];
  let resizeRequest: ResizeRequest | undefined;
  if (recorded !== undefined) {
    resizeRequest = deps.resizeRequests.get(`${recorded}/${rrName}`);
    // After Provisioned=True the cache has seen it: one missing then was deleted (retention, cleanup).
    if (!resizeRequest && !failed && !provisioned)
      resizeRequest = await getIfExists(deps.client, RESIZE_REQUESTS, { namespace: recorded, name: rrName });
  }
  const groupKey = resizeRequest && groupKeyOf(resizeRequest);
  const queue =
    groupKey && deps.groups.get(groupKey)
      ? groupQueue(deps.groups, deps.resizeRequests, groupKey, nowMs, deps.bookings)
      : undefined;
  const booking =
    resizeRequest &&
    bookingEndsAt(pr.status?.conditions, parameters, groupOf(groups, resizeRequest), resizeRequest, nowMs);
  // Consuming pods matter only once the booking window is over.
  const bookingDue = provisioned && booking !== undefined && nowMs >= booking;
  return {
    ...pass,
    orphans,
    request: pr,
    parameters,
    bookingEndsAt: booking,
    resizeRequest,
    namesakes,
    templates: admitting ? await templatesOf(deps.client, pr) : new Map(),
    namespaceLabels:
      admitting && needsNamespaceLabels(groups) ? await namespaceLabels(deps.client, namespace) : undefined,
    insight: queue?.insight.requests.find((r) => r.name === resizeRequest?.metadata.name),
    queueLength: queue?.insight.queueLength ?? 0,
    consumed: bookingDue ? await deps.consumption.get(uid, () => consumed(deps.client, pr)) : false,
    // Placement reads them (OBTAINABILITY), and the acceptance tells the position and ETA they give.
    ...(admitting && parameters.ok && !booked && { queues: groupQueues(groups, deps.resizeRequests) }),
    ...(booked !== undefined && {
      futureReservationsServed: deps.bookings !== undefined,
      ...withBooking(deps.bookings?.get(`${namespace}/${booked}`)),
    }),
  };
}

const withBooking = (b: FutureReservation | undefined): { futureReservation?: FutureReservation } =>
  b ? { futureReservation: b } : {};

/** The object at `key`, or undefined when there is none. */
async function getIfExists<T extends Addressable>(
  client: KubeClient,
  kind: ResourceKind<T>,
  key: ObjectKey,
): Promise<T | undefined> {
  try {
    return await client.resource(kind).get(key);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const templateOf = (client: KubeClient, namespace: string, name: string): Promise<PodTemplate | undefined> =>
  getIfExists(client, POD_TEMPLATES, { namespace, name });

async function templatesOf(
  client: KubeClient,
  pr: ProvisioningRequest,
): Promise<Map<string, PodTemplate | undefined>> {
  const out = new Map<string, PodTemplate | undefined>();
  for (const set of pr.spec.podSets) {
    const name = set.podTemplateRef.name ?? "";
    if (out.has(name) || name === "") continue;
    out.set(name, await templateOf(client, pr.metadata.namespace ?? "", name));
  }
  return out;
}

async function namespaceLabels(client: KubeClient, namespace: string): Promise<Record<string, string>> {
  const ns = await client.resource(NAMESPACES).get({ name: namespace });
  return ns.metadata.labels ?? {};
}

/** How long a request found consumed is remembered (it stays consumed; the bound only frees memory). */
const CONSUMED_TTL_MS = 24 * 60 * 60 * 1000;

/** The cache of `ProvisioningObserveDeps.consumption`: only "consumed" is kept, bounded. */
export function consumptionCache(): TtlCache<string, boolean> {
  return new TtlCache<string, boolean>({
    ttlMs: CONSUMED_TTL_MS,
    maxEntries: 10_000,
    keep: (consumed) => consumed,
  });
}

/**
 * The label selector of the pods made from the request's first pod template (its labels, all of them),
 * or undefined when the template is gone or has no labels.
 */
export function podSelector(template: PodTemplate | undefined): string | undefined {
  const labels = Object.entries(template?.template.metadata?.labels ?? {});
  return labels.length > 0 ? labels.map(([k, v]) => `${k}=${v}`).join(",") : undefined;
}

/**
 * Whether a pod carries Kueue's annotation naming this request (it consumes the capacity): one read of
 * the first pod template, one list of the pods its labels select (the namespace's, for a template
 * without labels — one written by hand).
 */
async function consumed(client: KubeClient, pr: ProvisioningRequest): Promise<boolean> {
  const namespace = pr.metadata.namespace ?? "";
  const first = pr.spec.podSets[0]?.podTemplateRef.name;
  const labelSelector = podSelector(first ? await templateOf(client, namespace, first) : undefined);
  const pods = await client.resource(PODS).list({ namespace, ...(labelSelector && { labelSelector }) });
  return pods.items.some((p) => p.metadata?.annotations?.[CONSUME_ANNOTATION] === pr.metadata.name);
}
