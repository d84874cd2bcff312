// The retention controller (leader only), one key per request, apart from the group's pass as
// Kubernetes keeps its TTL-after-finished controller apart from the Job controller: finished requests
// cost the resize controller nothing, and their expiry costs one timer each. The deletion is
// conditional on the request being exactly what was decided on (uid and resourceVersion).
import type { ControllerSettings } from "../options.js";
import { parseKubeDuration } from "../../api/duration.js";
import { groupKeyOf } from "../../api/identity.js";
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import { RESIZE_REQUESTS } from "../../api/kinds.js";
import { isFinalState } from "../../api/lifecycle.js";
import { API_VERSION, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../../api/names.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import type { EventRecorder } from "../../events/recorder.js";
import { isConflict, isNotFound } from "../../runtime/api-errors.js";
import { Controller, type Reconciler } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import { generationChanged } from "../../runtime/predicates.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import { objectKey, type Lister } from "../../runtime/store.js";
import { resizeEvents as E } from "../events.js";
import { BY_GROUP } from "../../cache/indexes.js";
import { retentionDecision } from "../retention-rule.js";
import { resizeInformers } from "../../cache/informers.js";

export interface RetentionDeps {
  readonly requests: Lister<ResizeRequest>;
  readonly groups: Lister<InstanceGroupManager>;
  readonly client: KubeClient;
  readonly recorder: EventRecorder;
  /** The operator's default, for groups without spec.finishedRequestRetention. */
  readonly defaultRetentionMs: number;
  readonly now: () => number;
}

/** The retention that applies to `rr`: its group's setting, else the operator's default. */
export function retentionOf(
  rr: ResizeRequest,
  deps: Pick<RetentionDeps, "groups" | "defaultRetentionMs">,
): number {
  const setting = deps.groups.get(groupKeyOf(rr))?.spec.finishedRequestRetention;
  return (setting !== undefined ? parseKubeDuration(setting) : undefined) ?? deps.defaultRetentionMs;
}

/** A duration as people write it: `1h`, `30m`, `45s`. */
export function humanDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s % 3600 === 0 && s > 0) return `${s / 3600}h`;
  if (s % 60 === 0 && s > 0) return `${s / 60}m`;
  return `${s}s`;
}

/** When `rr` is next due for a retention reconcile: in ms from now, or never (kept: active, releasing). */
export function dueIn(
  rr: ResizeRequest,
  deps: Pick<RetentionDeps, "groups" | "defaultRetentionMs" | "now">,
): number | undefined {
  const decision = retentionDecision(rr, retentionOf(rr, deps), deps.now());
  if (decision.action === "keep") return undefined;
  return decision.action === "wait" ? decision.afterMs : 0;
}

export function retentionReconciler(deps: RetentionDeps): Reconciler {
  return async (request, { log }) => {
    const namespace = request.namespace ?? "";
    const rr = deps.requests.get(`${namespace}/${request.name}`);
    if (!rr) return undefined;
    const retentionMs = retentionOf(rr, deps);
    const decision = retentionDecision(rr, retentionMs, deps.now());
    if (decision.action === "keep") return undefined;
    if (decision.action === "wait") return { requeueAfterMs: decision.afterMs };
    const note = `Deleted: ${rr.status?.state ?? ""} since ${decision.finishedTime}, past the group's finishedRequestRetention of ${humanDuration(retentionMs)}.`;
    if (await deleteFinishedRequest(deps, rr, note))
      log.info({ state: rr.status?.state, finishedTime: decision.finishedTime }, note);
    return undefined;
  };
}

/**
 * Deletes a finished request on condition that it is exactly what was decided on (uid and
 * resourceVersion), and records RetentionExpired with `note`. False when it is gone already or changed
 * since the cache saw it (the change brings its key back if it is still due). Also used by the
 * provisioner for the ResizeRequests of finished ProvisioningRequests.
 */
export async function deleteFinishedRequest(
  deps: Pick<RetentionDeps, "client" | "recorder" | "groups">,
  rr: ResizeRequest,
  note: string,
): Promise<boolean> {
  const namespace = rr.metadata.namespace ?? "";
  const name = rr.metadata.name ?? "";
  const { uid, resourceVersion } = rr.metadata;
  try {
    await deps.client
      .resource(RESIZE_REQUESTS)
      .delete({ namespace, name }, { preconditions: { uid, resourceVersion } });
  } catch (err) {
    if (isNotFound(err) || isConflict(err)) return false;
    throw err;
  }
  const group = deps.groups.get(groupKeyOf(rr));
  deps.recorder.emit({
    ...E.RetentionExpired,
    note,
    regarding: { apiVersion: API_VERSION, kind: RESIZE_REQUEST.kind, namespace, name, uid: uid ?? "" },
    ...(group?.metadata.uid && {
      related: {
        apiVersion: API_VERSION,
        kind: INSTANCE_GROUP_MANAGER.kind,
        namespace,
        name: rr.spec.instanceGroupManager,
        uid: group.metadata.uid,
      },
    }),
  });
  return true;
}

export interface RetentionControllerOptions extends Omit<ControllerSettings, "metrics"> {
  readonly defaultRetentionMs: number;
}

export function addRetentionController(mgr: Manager, options: RetentionControllerOptions): Controller {
  const { requests, groups } = resizeInformers(mgr, options.namespace);
  const deps: RetentionDeps = {
    requests: requests.lister,
    groups: groups.lister,
    client: mgr.client,
    recorder: options.recorder,
    defaultRetentionMs: options.defaultRetentionMs,
    now: options.now ?? Date.now,
  };
  const controller = new Controller({
    // Keyed per request: named for the kind it reconciles, then for its one job.
    name: `${RESIZE_REQUEST.singular}-retention`,
    concurrency: 2,
    logger: options.logger,
    reconcile: retentionReconciler(deps),
  });
  // Only a finished request can expire, and it is queued for when it does: at start-up over 10,000
  // finished requests that is 10,000 timers, not 10,000 reconciles competing with the resize
  // controller's first passes. The reconcile decides again on the state of that moment.
  const schedule = (key: string): number | undefined => {
    const rr = deps.requests.get(key);
    return rr && dueIn(rr, deps);
  };
  controller.watchPrimary(requests, (_, after) => isFinalState(after.status?.state), schedule);
  // A group's retention, new or changed, reschedules its finished requests. Not for the groups there
  // when the controller starts: each of their requests is scheduled by its own initial add, with every
  // group already cached, and mapping them again would walk every finished request at once (at a
  // takeover with 250,000 cached over 1,000 groups, all 250,000 in the groups' first replay chunk).
  controller.watchMapped(
    groups,
    (g) =>
      requests.lister
        .byIndex(BY_GROUP, objectKey(g))
        .filter((rr) => isFinalState(rr.status?.state))
        .map(objectKey),
    generationChanged,
    schedule,
    { skipInitialList: true },
  );
  mgr.addController(controller);
  return controller;
}
