// Wires the resize controller into a manager: cluster-wide informers for both kinds (decoded and
// validated with the model), a controller keyed by group, the reconciler, the Node informers of
// groups that count ready Nodes (created when such a group is first reconciled, node-informers.ts), and
// the informers of the targets' kinds (likewise, target-informers.ts), whose changes reach their groups.
import type { KubernetesObject } from "@kubernetes/client-node";
import type { Logger } from "pino";
import { InstanceGroupManager } from "../api/instance-group-manager.js";
import { INSTANCE_GROUP_MANAGERS, RESIZE_REQUESTS } from "../api/kinds.js";
import { INSTANCE_GROUP_MANAGER, RESIZE_REQUEST } from "../api/names.js";
import { ResizeRequest } from "../api/resize-request.js";
import type { EventRecorder } from "../events/recorder.js";
import { Controller } from "../runtime/controller.js";
import type { Informer } from "../runtime/informer.js";
import type { Manager } from "../runtime/manager.js";
import type { MetricsSink } from "../runtime/metrics.js";
import { generationOrDeletionChanged } from "../runtime/predicates.js";
import { objectKey } from "../runtime/store.js";
import { resourcePath } from "../runtime/resource-kind.js";
import { stripUnreadMetadata } from "../runtime/transform.js";
import { internStrings, perObjectKeys, StringTable } from "../runtime/intern.js";
import type { ExecuteDeps } from "./execute.js";
import { inPlay } from "./in-play.js";
import {
  BY_NODE_SELECTOR,
  GROUP_INDEXERS,
  groupOf,
  groupsOfTarget,
  REQUEST_COUNTERS,
  REQUEST_INDEXERS,
} from "./indexes.js";
import { AdmissionGuard } from "./admission-guard.js";
import { bookingGroupKey, bookingInformer } from "./booking-informer.js";
import { NodeInformers } from "./node-informers.js";
import { resizeReconciler } from "./reconciler.js";
import { requestView, TARGET_RECHECK_POLLS, type DecideConfig } from "./snapshot.js";
import { ScaleClient } from "./target.js";
import { TargetInformers } from "./target-informers.js";

export interface ResizeControllerOptions {
  readonly recorder: EventRecorder;
  readonly config: DecideConfig;
  readonly concurrency: number;
  readonly logger: Logger;
  readonly metrics?: MetricsSink;
  /** Watch one namespace only; all namespaces when undefined. */
  readonly namespace?: string;
  readonly now?: () => number;
  readonly onPlanEvent?: ExecuteDeps["onPlanEvent"];
  /** `Kind.group` of the cluster-scoped kinds a group may target (--cluster-scoped-targets). */
  readonly clusterScopedTargets: readonly string[];
  /**
   * Whether the API server serves FutureReservations: then a queued request may not take capacity an
   * approved booking holds (decide/bookings.ts), and a booking's change reaches its group.
   */
  readonly bookings?: boolean;
}

/**
 * The cached requests' shared strings (runtime/intern.ts): at 100,000 requests, one copy of each
 * namespace, group, zone, condition and reason instead of one per request. Links and ids are per request.
 */
const requestStrings = new StringTable();
const perRequest = perObjectKeys(["selfLink", "selfLinkWithId", "id"]);

/** The shared informers of both kinds (the manager hands every caller of a collection the same one). */
export function resizeInformers(
  mgr: Manager,
  namespace: string | undefined,
): { requests: Informer<ResizeRequest>; groups: Informer<InstanceGroupManager> } {
  // An empty namespace means all namespaces, as in the Manager's other options.
  const scope = { namespace: namespace || undefined };
  const requests = mgr.informer<ResizeRequest>({
    name: RESIZE_REQUEST.plural,
    path: resourcePath(RESIZE_REQUESTS, scope),
    decode: (raw: KubernetesObject) => internStrings(ResizeRequest.parse(raw), requestStrings, perRequest),
    transform: stripUnreadMetadata,
    indexers: REQUEST_INDEXERS,
    counters: REQUEST_COUNTERS,
  });
  const groups = mgr.informer<InstanceGroupManager>({
    name: INSTANCE_GROUP_MANAGER.plural,
    path: resourcePath(INSTANCE_GROUP_MANAGERS, scope),
    decode: (raw: KubernetesObject) => InstanceGroupManager.parse(raw),
    transform: stripUnreadMetadata,
    indexers: GROUP_INDEXERS,
  });
  return { requests, groups };
}

export function addResizeController(mgr: Manager, options: ResizeControllerOptions): Controller {
  const { requests, groups } = resizeInformers(mgr, options.namespace);
  const bookings = options.bookings ? bookingInformer(mgr, options.namespace) : undefined;
  // A Node change that can change a count reaches the groups counting under its selector.
  const nodes = new NodeInformers({
    informer: (spec) => mgr.informer(spec),
    client: mgr.client,
    onChange: (selector) => {
      for (const group of groups.lister.byIndex(BY_NODE_SELECTOR, selector))
        controller.enqueue(objectKey(group));
    },
  });
  // No target is scaled while the admission policies are not enforcing; a change looks at every group.
  const admission = new AdmissionGuard({
    informer: (spec) => mgr.informer(spec),
    metrics: options.metrics,
    onChange: () => {
      for (const group of groups.lister.list()) controller.enqueue(objectKey(group));
    },
  });
  const recheckMs = options.config.pollIntervalMs * TARGET_RECHECK_POLLS;
  // A target change reaches the groups pointing at it (in its namespace, unless it is cluster-scoped).
  const targets = new TargetInformers({
    informer: (spec) => mgr.informer(spec),
    client: mgr.client,
    namespace: options.namespace || undefined,
    retryMs: recheckMs,
    onChange: (target) => {
      for (const group of groupsOfTarget(groups.lister, target)) controller.enqueue(objectKey(group));
    },
  });
  const controller = new Controller({
    // Named for the kind it reconciles (its key is a group), as controller-runtime names controllers.
    name: INSTANCE_GROUP_MANAGER.singular,
    concurrency: options.concurrency,
    logger: options.logger,
    ...(options.metrics && { metrics: options.metrics }),
    reconcile: resizeReconciler(
      {
        groups: groups.lister,
        requests: requests.lister,
        ...(bookings && { bookings: bookings.lister }),
        // A refused /scale update is tried again when the group's refusal is re-checked (decide/admission.ts).
        // Where the cache cannot serve a target (list/watch forbidden, unknown /scale fields), this is
        // also how long the operator reads it from the API server before trying the cache again.
        scale: new ScaleClient(mgr.client, {
          refusedUpdateTtlMs: recheckMs,
          clusterScopedTargets: new Set(options.clusterScopedTargets),
          cache: targets,
          ...(options.metrics && { metrics: options.metrics }),
        }),
        client: mgr.client,
        nodes,
        admission,
        recorder: options.recorder,
        now: options.now ?? Date.now,
        ...(options.onPlanEvent && { onPlanEvent: options.onPlanEvent }),
      },
      options.config,
    ),
  });
  // A group's own status writes (ours) need no pass: only its spec (generation) and deletion do.
  // A resync (the same object again) refreshes the group's status from its target.
  controller.watchPrimary(groups, generationOrDeletionChanged);
  // A change to a request out of play before and after (a finished one's labels, a resync) needs no pass.
  controller.watchMapped(
    requests,
    groupOf,
    (before, after) => inPlay(requestView(before)) || inPlay(requestView(after)),
  );
  // A booking approved, cancelled or ended changes what its group's head may take: its procurement
  // status moving (the booking controller's writes) is what counts.
  if (bookings)
    controller.watchMapped(
      bookings,
      (b) => [bookingGroupKey(b)],
      (before, after) => before.status?.procurementStatus !== after.status?.procurementStatus,
      undefined,
      // Each group is reconciled at start anyway (its own add).
      { skipInitialList: true },
    );
  mgr.addController(controller);
  return controller;
}
