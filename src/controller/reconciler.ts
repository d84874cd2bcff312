// The resize reconciler: observe a group, decide, execute. One key per InstanceGroupManager
// ("namespace/name"), so a group's queue, its single attempt and its scale changes are serialised by
// the work queue (never two workers on one key).
import { API_VERSION, INSTANCE_GROUP_MANAGER } from "../api/names.js";
import { genericEvents } from "../events/generic.js";
import type { Reconciler } from "../runtime/controller.js";
import { WriteCoalescer } from "./coalesce.js";
import { decide } from "./decide/index.js";
import { executePlan, type ExecuteDeps } from "./execute.js";
import { observeGroup, type ObserveDeps } from "./observe.js";
import type { DecideConfig } from "./snapshot.js";

/** The group's status is written at most once per this interval (per group). */
export const GROUP_STATUS_INTERVAL_MS = 1000;

export function resizeReconciler(
  deps: ObserveDeps & ExecuteDeps,
  config: DecideConfig,
  groupStatusIntervalMs = GROUP_STATUS_INTERVAL_MS,
): Reconciler {
  const groupStatusWrites = new WriteCoalescer(groupStatusIntervalMs);
  return async (request, { log }) => {
    const namespace = request.namespace ?? "";
    const key = `${namespace}/${request.name}`;
    try {
      const obs = await observeGroup(deps, namespace, request.name);
      if (!obs.group) groupStatusWrites.forget(key);
      const decided = decide(obs.snapshot, config, obs.group?.status);
      // The group's summary waits for its interval; the pass after it writes the summary of that time.
      const wait = decided.groupStatus ? groupStatusWrites.waitMs(key, obs.snapshot.nowMs) : 0;
      const plan = wait > 0 ? { ...decided, groupStatus: undefined, groupEvents: [] } : decided;
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
        obs,
        plan,
      );
      if (outcome === "conflict") {
        log.debug("state moved under us; reconciling again with fresh state");
        return { requeue: true };
      }
      if (plan.groupStatus) groupStatusWrites.wrote(key, obs.snapshot.nowMs);
      const requeues = [plan.requeueAfterMs, wait > 0 ? wait : undefined].filter((v) => v !== undefined);
      return requeues.length === 0 ? undefined : { requeueAfterMs: Math.min(...requeues) };
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
