// The ProvisioningRequest provisioner: its reconcile and its watches. One key per ProvisioningRequest
// ("namespace/name"); a pass is observe → snapshot → decide → plan → execute (observe.ts, snapshot.ts,
// decide.ts, execute.ts), and the reconcile only wires them and turns the outcome into a requeue.
// A key whose request is gone (or is not ours) only cancels the ResizeRequests a deleted request left
// queued: once provisioned, capacity is released by its run duration, never pulled from under running
// pods because the request went away. The ResizeRequests of a finished (or deleted) request are deleted
// after the provisioner's retention once nothing is held (cleanup.ts), through the same requeue as
// every other wait.
//
// Wired into a manager: an informer of ProvisioningRequests (all classes are listed — a field selector
// cannot filter on spec — but only ours are reconciled), the resize controller's shared caches of
// ResizeRequests and groups, and a controller keyed by request.
import type { FutureReservation } from "../../api/future-reservation.js";
import type { KubernetesObject } from "@kubernetes/client-node";
import type { ControllerSettings } from "../options.js";
import { PROVISIONING_REQUESTS } from "../../api/kinds.js";
import {
  PROVISIONING_CLASS,
  PROVISIONING_REQUEST,
  ProvisioningRequest,
} from "../../api/provisioning-request.js";
import { provisioningRequestOf } from "../../cache/indexes.js";
import { resizeInformers } from "../../cache/informers.js";
import type { Informer } from "../../runtime/informer.js";
import { Controller, type Reconciler } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import { generationChanged, generationOrDeletionChanged } from "../../runtime/predicates.js";
import { resourcePath } from "../../runtime/resource-kind.js";
import { objectKey } from "../../runtime/store.js";
import { stripUnreadMetadata } from "../../runtime/transform.js";
import { decideProvisioning } from "./decide.js";
import { executeProvisioningPlan, type ProvisioningExecuteDeps } from "./execute.js";
import { consumptionCache, observeProvisioning, type ProvisioningObserveDeps } from "./observe.js";
import { FUTURE_RESERVATION_PARAMETER } from "./parameters.js";

/** GKE's: its finished ProvisioningRequests' resize requests are deleted an hour later. */
export const DEFAULT_PROVISIONING_RETENTION = "1h";

export interface ProvisioningOptions extends ControllerSettings {
  readonly concurrency: number;
  /** How long a ResizeRequest of a finished ProvisioningRequest is kept once nothing is held (cleanup.ts). */
  readonly retentionMs: number;
  /** FutureReservations, where served: the ETAs it reports count approved bookings' windows. */
  readonly bookings?: Informer<FutureReservation>;
}

const ours = (pr: ProvisioningRequest): boolean => pr.spec.provisioningClassName === PROVISIONING_CLASS;

export function addProvisioningController(mgr: Manager, options: ProvisioningOptions): Controller {
  const scope = { namespace: options.namespace || undefined };
  const requests = mgr.informer<ProvisioningRequest>({
    name: PROVISIONING_REQUEST.plural,
    path: resourcePath(PROVISIONING_REQUESTS, scope),
    decode: (raw: KubernetesObject) => ProvisioningRequest.parse(raw),
    transform: stripUnreadMetadata,
  });
  const { requests: resizeRequests, groups } = resizeInformers(mgr, options.namespace);
  const controller = new Controller({
    name: PROVISIONING_REQUEST.kind.toLowerCase(),
    concurrency: options.concurrency,
    logger: options.logger,
    ...(options.metrics && { metrics: options.metrics }),
    reconcile: provisioningReconciler({
      provisioningRequests: requests.lister,
      resizeRequests: resizeRequests.lister,
      groups: groups.lister,
      ...(options.bookings && { bookings: options.bookings.lister }),
      client: mgr.client,
      recorder: options.recorder,
      now: options.now ?? Date.now,
      consumption: consumptionCache(),
      retentionMs: options.retentionMs,
    }),
  });
  // Our own status writes change no spec: only a new generation, a deletion or a resync needs a pass.
  controller.watchMapped(requests, (pr) => (ours(pr) ? [objectKey(pr)] : []), generationOrDeletionChanged);
  // Every change of a ResizeRequest serving a request (its state, its queue) and its deletion.
  controller.watchMapped(resizeRequests, provisioningRequestOf);
  // A group appearing or its spec changing can place a request that found none (status writes, every
  // second while a group is busy, would only repeat what the periodic refresh of a waiting request sees).
  controller.watchMapped(groups, () => requests.lister.list().filter(ours).map(objectKey), generationChanged);
  // A booking's status (approved, provisioning, fulfilled, ended) moves the requests it serves.
  if (options.bookings)
    controller.watchMapped(options.bookings, (b) =>
      requests.lister
        .list(b.metadata.namespace ?? "")
        .filter((pr) => ours(pr) && pr.spec.parameters?.[FUTURE_RESERVATION_PARAMETER] === b.metadata.name)
        .map(objectKey),
    );
  mgr.addController(controller);
  return controller;
}

export type ProvisioningReconcilerDeps = ProvisioningObserveDeps & ProvisioningExecuteDeps;

/** One pass: observe, decide, execute; the plan's wait, or a pass at once when the request moved on. */
export function provisioningReconciler(deps: ProvisioningReconcilerDeps): Reconciler {
  return async (request, { log }) => {
    const snapshot = await observeProvisioning(deps, request.namespace ?? "", request.name);
    const plan = decideProvisioning(snapshot);
    for (const rr of plan.cancelOrphans ?? [])
      log.info(
        { resizeRequest: `${rr.metadata.namespace ?? ""}/${rr.metadata.name ?? ""}` },
        "its ProvisioningRequest is gone before provisioning: cancelling",
      );
    for (const e of plan.events) log.info({ reason: e.definition.reason }, e.note);
    const outcome = await executeProvisioningPlan(deps, snapshot.request, plan);
    if (outcome === "conflict") return { requeue: true };
    return plan.requeueAfterMs === undefined ? undefined : { requeueAfterMs: plan.requeueAfterMs };
  };
}
