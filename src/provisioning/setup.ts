// Wires the ProvisioningRequest provisioner into a manager: an informer of ProvisioningRequests (all
// classes are listed — a field selector cannot filter on spec — but only ours are reconciled), the
// resize controller's shared caches of ResizeRequests and groups, and a controller keyed by request.
import type { FutureReservation } from "../api/future-reservation.js";
import type { KubernetesObject } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { PROVISIONING_REQUESTS } from "../api/kinds.js";
import {
  PROVISIONING_CLASS,
  PROVISIONING_REQUEST,
  ProvisioningRequest,
} from "../api/provisioning-request.js";
import { provisioningRequestOf } from "../cache/indexes.js";
import { resizeInformers } from "../cache/informers.js";
import type { Informer } from "../runtime/informer.js";
import type { EventRecorder } from "../events/recorder.js";
import { Controller } from "../runtime/controller.js";
import type { Manager } from "../runtime/manager.js";
import type { MetricsSink } from "../runtime/metrics.js";
import { generationChanged, generationOrDeletionChanged } from "../runtime/predicates.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { objectKey } from "../runtime/store.js";
import { stripUnreadMetadata } from "../runtime/transform.js";
import { consumptionCache } from "./observe.js";
import { FUTURE_RESERVATION_PARAMETER } from "./parameters.js";
import { provisioningReconciler } from "./reconciler.js";

export interface ProvisioningOptions {
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly concurrency: number;
  readonly metrics?: MetricsSink;
  /** Watch one namespace only; all namespaces when undefined. */
  readonly namespace?: string;
  readonly now?: () => number;
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
