// The resize controller: its reconcile (a pass: observe a group's snapshot, decide a plan, execute it)
// and its watches. One key per InstanceGroupManager ("namespace/name"), so a group's queue, its single
// attempt and its scale changes are serialised by the work queue (never two workers on one key).
//
// Wired into a manager: cluster-wide informers for both kinds (decoded and
// validated with the model), a controller keyed by group, the reconciler, the Node informers of
// groups that count ready Nodes (created when such a group is first reconciled, node-informers.ts), and
// the informers of the targets' kinds (likewise, targets/informers.ts), whose changes reach their groups.
import type { ControllerSettings } from "../options.js";
import { API_VERSION, INSTANCE_GROUP_MANAGER } from "../../api/names.js";
import { bookingGroupKey, bookingInformer } from "../../cache/bookings.js";
import { inPlay } from "../../cache/in-play.js";
import { BY_NODE_SELECTOR, groupOf, groupsOfTarget } from "../../cache/indexes.js";
import { resizeInformers } from "../../cache/informers.js";
import { requestView } from "../../cache/request-view.js";
import { genericEvents } from "../../events/generic.js";
import { Controller, type Reconciler } from "../../runtime/controller.js";
import type { Manager } from "../../runtime/manager.js";
import { generationOrDeletionChanged } from "../../runtime/predicates.js";
import { objectKey } from "../../runtime/store.js";
import { TargetInformers } from "../../targets/informers.js";
import { NodeInformers } from "../../targets/node-informers.js";
import { ScaleClient } from "../../targets/scale-client.js";
import { AdmissionGuard } from "./admission-guard.js";
import { decide } from "./decide/index.js";
import { executePlan, type ExecuteDeps } from "./execute.js";
import { observeGroup, type ObserveDeps } from "./observe.js";
import { GROUP_STATUS_INTERVAL_MS, TARGET_RECHECK_POLLS, type DecideConfig } from "./snapshot.js";

/** The decision's settings as the operator's flags give them; the group status interval has its default. */
export type ResizeSettings = Omit<DecideConfig, "groupStatusIntervalMs"> &
  Partial<Pick<DecideConfig, "groupStatusIntervalMs">>;

export interface ResizeControllerOptions extends ControllerSettings {
  readonly config: ResizeSettings;
  readonly concurrency: number;
  readonly onPlanEvent?: ExecuteDeps["onPlanEvent"];
  /** `Kind.group` of the cluster-scoped kinds a group may target (--cluster-scoped-targets). */
  readonly clusterScopedTargets: readonly string[];
  /**
   * Whether the API server serves FutureReservations: then a queued request may not take capacity an
   * approved booking holds (decide/bookings.ts), and a booking's change reaches its group.
   */
  readonly bookings?: boolean;
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

/**
 * The reconcile of one key, a pass: observe → snapshot → decide → plan → execute. It decides nothing:
 * it wires the steps, remembers when it wrote each group's status (the snapshot carries it, so that
 * decide() withholds a write within its interval, decide/coalesce.ts), and maps the executor's outcome
 * to a requeue.
 */
export function resizeReconciler(deps: ObserveDeps & ExecuteDeps, settings: ResizeSettings): Reconciler {
  const config: DecideConfig = { groupStatusIntervalMs: GROUP_STATUS_INTERVAL_MS, ...settings };
  /** When each group's status was last written, by key: kept between passes, forgotten when the group goes. */
  const groupStatusWritten = new Map<string, number>();
  return async (request, { log }) => {
    const namespace = request.namespace ?? "";
    const key = `${namespace}/${request.name}`;
    try {
      const { snapshot, objects } = await observeGroup(
        deps,
        namespace,
        request.name,
        config,
        groupStatusWritten.get(key),
      );
      if (!snapshot.group) groupStatusWritten.delete(key);
      const plan = decide(snapshot);
      // A state change is logged where its Event is emitted (its record written), not when decided: a
      // pass that loses a conflict decides it again, and logging both passes printed it twice.
      const outcome = await executePlan(
        {
          ...deps,
          onPlanEvent: (e) => {
            log.info({ request: e.event.request, reason: e.event.event.reason }, e.event.note);
            deps.onPlanEvent?.(e);
          },
        },
        objects,
        plan,
      );
      if (outcome === "conflict") {
        log.debug("state moved under us; reconciling again with fresh state");
        return { requeue: true };
      }
      if (plan.groupStatus) groupStatusWritten.set(key, snapshot.nowMs);
      return plan.requeueAfterMs === undefined ? undefined : { requeueAfterMs: plan.requeueAfterMs };
    } catch (err) {
      // Shown on the group (`kubectl events --for igm/NAME`); the runtime retries with backoff.
      const group = deps.groups.get(`${namespace}/${request.name}`);
      if (group?.metadata.uid) {
        deps.recorder.emit({
          ...genericEvents.ReconcileFailed,
          regarding: {
            apiVersion: API_VERSION,
            kind: INSTANCE_GROUP_MANAGER.kind,
            namespace,
            name: request.name,
            uid: group.metadata.uid,
          },
          note: err instanceof Error ? err.message : String(err),
        });
      }
      throw err;
    }
  };
}
