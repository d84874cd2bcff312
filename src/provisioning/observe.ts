// What one pass of the provisioner reads for a ProvisioningRequest key: the request (cache), its
// ResizeRequest — only at the place recorded at acceptance, in the group's namespace (cache, and one
// live read where a cache miss would otherwise fail a request whose ResizeRequest was created a moment
// ago) — or, before acceptance, the namesakes in the groups' namespaces; the ResizeRequests a deleted
// request left (cache index), the groups (cache), and — only while they matter — its pod templates,
// its namespace's labels and whether a pod consumes its capacity. Labels only find candidates; which
// one is the request's is decided by owner references (ownership.ts).
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { POD_TEMPLATES, RESIZE_REQUESTS } from "../api/kinds.js";
import {
  CONSUME_ANNOTATION,
  PROVISIONING_CLASS,
  PROVISIONING_REQUEST_UID_LABEL,
  ProvisioningCondition as C,
  type PodTemplate,
  type ProvisioningRequest,
} from "../api/provisioning-request.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { groupKeyOf } from "../api/identity.js";
import { groupQueue } from "../controller/group-queue.js";
import { BY_PROVISIONING_REQUEST } from "../controller/indexes.js";
import { isNotFound } from "../runtime/api-errors.js";
import { NAMESPACES, PODS } from "../runtime/builtin-kinds.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { Lister } from "../runtime/store.js";
import { bookingExpiresAt, type ProvisioningSnapshot } from "./decide.js";
import { recordedNamespace } from "./ownership.js";
import { groupQueues } from "./obtainability.js";
import { needsNamespaceLabels } from "./placement.js";
import { resizeRequestName } from "./resize-request.js";

export interface ProvisioningObserveDeps {
  readonly provisioningRequests: Lister<ProvisioningRequest>;
  readonly resizeRequests: Lister<ResizeRequest>;
  readonly groups: Lister<InstanceGroupManager>;
  readonly client: KubeClient;
  readonly now: () => number;
}

export type ProvisioningObservation =
  /** Not ours: another class, or gone; `orphans` are ResizeRequests left behind by a deleted request. */
  | { readonly ours: false; readonly orphans: readonly ResizeRequest[] }
  | {
      readonly ours: true;
      readonly snapshot: ProvisioningSnapshot;
      readonly orphans: readonly ResizeRequest[];
    };

const isTrue = (pr: ProvisioningRequest, type: string): boolean =>
  pr.status?.conditions?.some((c) => c.type === type && c.status === "True") ?? false;

export async function observeProvisioning(
  deps: ProvisioningObserveDeps,
  namespace: string,
  name: string,
): Promise<ProvisioningObservation> {
  const key = `${namespace}/${name}`;
  const pr = deps.provisioningRequests.get(key);
  const served = deps.resizeRequests.byIndex(BY_PROVISIONING_REQUEST, key);
  if (!pr || pr.spec.provisioningClassName !== PROVISIONING_CLASS)
    return { ours: false, orphans: pr ? [] : served };
  const uid = pr.metadata.uid ?? "";
  const orphans = served.filter((rr) => rr.metadata.labels?.[PROVISIONING_REQUEST_UID_LABEL] !== uid);
  const accepted = isTrue(pr, C.Accepted);
  const failed = isTrue(pr, C.Failed);
  const admitting = !accepted && !failed && !isTrue(pr, C.Provisioned);
  const groups = deps.groups.list();
  const rrName = resizeRequestName(pr);
  const recorded = recordedNamespace(pr);
  // Before acceptance: the namesakes in the groups' namespaces (one made before a crash is adopted).
  const namesakes = admitting
    ? [...new Set(groups.map((g) => g.metadata.namespace ?? ""))].flatMap((ns) => {
        const rr = deps.resizeRequests.get(`${ns}/${rrName}`);
        return rr ? [rr] : [];
      })
    : [];
  let resizeRequest: ResizeRequest | undefined;
  if (recorded !== undefined) {
    resizeRequest = deps.resizeRequests.get(`${recorded}/${rrName}`);
    if (!resizeRequest && !failed) resizeRequest = await liveResizeRequest(deps.client, recorded, rrName);
  }
  const nowMs = deps.now();
  const groupKey = resizeRequest && groupKeyOf(resizeRequest);
  const queue =
    groupKey && deps.groups.get(groupKey)
      ? groupQueue(deps.groups, deps.resizeRequests, groupKey, nowMs)
      : undefined;
  // Consuming pods matter only once the booking window is over (a list of the namespace's pods).
  const expires =
    resizeRequest && isTrue(pr, C.Provisioned)
      ? bookingExpiresAt(pr, groups, resizeRequest, pr.status?.conditions, nowMs)
      : undefined;
  const bookingDue = expires !== undefined && nowMs >= expires;
  return {
    ours: true,
    orphans,
    snapshot: {
      request: pr,
      nowMs,
      resizeRequest,
      namesakes,
      groups,
      templates: admitting ? await templatesOf(deps.client, pr) : new Map(),
      namespaceLabels:
        admitting && needsNamespaceLabels(groups) ? await namespaceLabels(deps.client, namespace) : undefined,
      insight: queue?.insight.requests.find((r) => r.name === resizeRequest?.metadata.name),
      queueLength: queue?.insight.queueLength ?? 0,
      consumed: bookingDue ? await consumed(deps.client, namespace, name) : false,
      ...(admitting &&
        pr.spec.parameters?.capacitySearchStrategy === "OBTAINABILITY" && {
          queues: groupQueues(groups, deps.resizeRequests),
        }),
    },
  };
}

async function liveResizeRequest(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<ResizeRequest | undefined> {
  try {
    return await client.resource(RESIZE_REQUESTS).get({ namespace, name });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function templatesOf(
  client: KubeClient,
  pr: ProvisioningRequest,
): Promise<Map<string, PodTemplate | undefined>> {
  const out = new Map<string, PodTemplate | undefined>();
  for (const set of pr.spec.podSets) {
    const name = set.podTemplateRef.name ?? "";
    if (out.has(name) || name === "") continue;
    try {
      out.set(
        name,
        await client.resource(POD_TEMPLATES).get({ namespace: pr.metadata.namespace ?? "", name }),
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
      out.set(name, undefined);
    }
  }
  return out;
}

async function namespaceLabels(client: KubeClient, namespace: string): Promise<Record<string, string>> {
  const ns = await client.resource(NAMESPACES).get({ name: namespace });
  return ns.metadata.labels ?? {};
}

/** Whether a pod of the namespace carries Kueue's annotation naming this request (it consumes the capacity). */
async function consumed(client: KubeClient, namespace: string, name: string): Promise<boolean> {
  const pods = await client.resource(PODS).list({ namespace });
  return pods.items.some((p) => p.metadata?.annotations?.[CONSUME_ANNOTATION] === name);
}
