// The resize reconciler: observe a group, decide, execute. One key per InstanceGroupManager
// ("namespace/name"), so a group's queue, its single attempt and its scale changes are serialised by
// the work queue (never two workers on one key).
import { API_VERSION, INSTANCE_GROUP_MANAGER } from "../api/names.js";
import { genericEvents } from "../events/generic.js";
import type { Reconciler } from "../runtime/controller.js";
import { decide } from "./decide.js";
import { executePlan, type ExecuteDeps } from "./execute.js";
import { observeGroup, type ObserveDeps } from "./observe.js";
import type { DecideConfig } from "./snapshot.js";

export function resizeReconciler(deps: ObserveDeps & ExecuteDeps, config: DecideConfig): Reconciler {
  return async (request, { log }) => {
    const namespace = request.namespace ?? "";
    try {
      const obs = await observeGroup(deps, namespace, request.name);
      const plan = decide(obs.snapshot, config, obs.group?.status);
      for (const e of plan.events) log.info({ request: e.request, reason: e.event.reason }, e.note);
      const outcome = await executePlan(deps, obs, plan);
      if (outcome === "conflict") {
        log.debug("state moved under us; reconciling again with fresh state");
        return { requeue: true };
      }
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
