// The provisioner's reconciler: one key per ProvisioningRequest ("namespace/name"); observe, decide,
// execute. A key whose request is gone (or is not ours) only cancels the ResizeRequests a deleted
// request left queued: once provisioned, capacity is released by its run duration, never pulled from
// under running pods because the request went away.
import { isFinalState } from "../api/lifecycle.js";
import type { Reconciler } from "../runtime/controller.js";
import { decideProvisioning } from "./decide.js";
import { cancelResizeRequest, executeProvisioningPlan, type ProvisioningExecuteDeps } from "./execute.js";
import { observeProvisioning, type ProvisioningObserveDeps } from "./observe.js";

export function provisioningReconciler(deps: ProvisioningObserveDeps & ProvisioningExecuteDeps): Reconciler {
  return async (request, { log }) => {
    const obs = await observeProvisioning(deps, request.namespace ?? "", request.name);
    for (const rr of obs.orphans) {
      if (isFinalState(rr.status?.state) || rr.spec.cancel) continue;
      log.info(
        { resizeRequest: `${rr.metadata.namespace ?? ""}/${rr.metadata.name ?? ""}` },
        "its ProvisioningRequest is gone before provisioning: cancelling",
      );
      await cancelResizeRequest(deps.client, rr);
    }
    if (!obs.ours) return undefined;
    const plan = decideProvisioning(obs.snapshot);
    for (const e of plan.events) log.info({ reason: e.definition.reason }, e.note);
    const outcome = await executeProvisioningPlan(deps, obs.snapshot.request, plan);
    if (outcome === "conflict") return { requeue: true };
    return plan.requeueAfterMs === undefined ? undefined : { requeueAfterMs: plan.requeueAfterMs };
  };
}
