// The provisioner's reconciler: one key per ProvisioningRequest ("namespace/name"); observe, decide,
// execute. A key whose request is gone (or is not ours) only cancels the ResizeRequests a deleted
// request left queued: once provisioned, capacity is released by its run duration, never pulled from
// under running pods because the request went away. The ResizeRequests of a finished (or deleted)
// request are deleted after the provisioner's retention once nothing is held (cleanup.ts), through the
// same requeue as every other wait.
import { isFinalState } from "../api/lifecycle.js";
import type { ProvisioningRequest } from "../api/provisioning-request.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { deleteFinishedRequest } from "../controllers/retention/controller.js";
import type { EventRecorder } from "../events/recorder.js";
import type { Reconciler } from "../runtime/controller.js";
import { cleanupDecision, cleanupNote } from "./cleanup.js";
import { decideProvisioning } from "./decide.js";
import { cancelResizeRequest, executeProvisioningPlan, type ProvisioningExecuteDeps } from "./execute.js";
import { observeProvisioning, type ProvisioningObserveDeps } from "./observe.js";

export interface ProvisioningReconcilerDeps extends ProvisioningObserveDeps, ProvisioningExecuteDeps {
  readonly recorder: EventRecorder;
  /** How long a ResizeRequest of a finished ProvisioningRequest is kept once nothing is held. */
  readonly retentionMs: number;
}

export function provisioningReconciler(deps: ProvisioningReconcilerDeps): Reconciler {
  /** Deletes the ResizeRequests that are due; the time until the next one is, if any. */
  const cleanUp = async (
    served: readonly ResizeRequest[],
    request: ProvisioningRequest | undefined,
  ): Promise<number | undefined> => {
    let next: number | undefined;
    const groups = deps.groups.list();
    for (const rr of served) {
      const decision = cleanupDecision(rr, request, groups, deps.retentionMs, deps.now());
      if (decision.action === "wait") next = Math.min(next ?? Infinity, decision.afterMs);
      if (decision.action !== "delete") continue;
      await deleteFinishedRequest(
        deps,
        rr,
        cleanupNote(rr, request, decision.finishedTime, deps.retentionMs),
      );
    }
    return next;
  };
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
    if (!obs.ours) {
      const next = await cleanUp(obs.orphans, undefined);
      return next === undefined ? undefined : { requeueAfterMs: next };
    }
    const pr = obs.snapshot.request;
    const plan = decideProvisioning(obs.snapshot);
    for (const e of plan.events) log.info({ reason: e.definition.reason }, e.note);
    const outcome = await executeProvisioningPlan(deps, pr, plan);
    if (outcome === "conflict") return { requeue: true };
    // Decided on the request as this pass left it: the pass that finishes it schedules the cleanup.
    const after = plan.status ? { ...pr, status: { ...pr.status, ...plan.status } } : pr;
    const rr = obs.snapshot.resizeRequest;
    const next = await cleanUp([...obs.orphans, ...(rr ? [rr] : [])], after);
    const requeueAfterMs = Math.min(plan.requeueAfterMs ?? Infinity, next ?? Infinity);
    return requeueAfterMs === Infinity ? undefined : { requeueAfterMs };
  };
}
