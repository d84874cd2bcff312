// Carries out a provisioner plan: create the ResizeRequest (idempotent: an existing one the provisioner
// made for the same request — its uid label and owner references — counts as created), cancel one,
// write the request's status through its status subresource guarded by its resourceVersion, and emit
// the events of the condition changes.
import { PROVISIONING_REQUESTS, RESIZE_REQUESTS } from "../api/kinds.js";
import { INSTANCE_GROUP_MANAGER } from "../api/names.js";
import type { ProvisioningRequest } from "../api/provisioning-request.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { EventRecorder } from "../events/recorder.js";
import { isAlreadyExists, isConflict, isNotFound } from "../runtime/api-errors.js";
import type { KubeClient } from "../runtime/resource-client.js";
import type { ProvisioningPlan } from "./decide.js";
import { notMadeFor, ownersOf } from "./ownership.js";

export interface ProvisioningExecuteDeps {
  readonly client: KubeClient;
  readonly recorder: EventRecorder;
}

/**
 * Creates the ResizeRequest of `pr`; one of the same name the cache had not seen yet counts as created
 * only when the provisioner made it for `pr` (the next pass, seeing it, fails the request otherwise).
 */
export async function createResizeRequest(
  client: KubeClient,
  pr: ProvisioningRequest,
  rr: ResizeRequest,
): Promise<void> {
  const resource = client.resource(RESIZE_REQUESTS);
  try {
    await resource.create(rr);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const existing = await resource.get({
      namespace: rr.metadata.namespace ?? "",
      name: rr.metadata.name ?? "",
    });
    const owners = ownersOf(rr.metadata);
    const group = owners.find((o) => o.kind === INSTANCE_GROUP_MANAGER.kind);
    const foreign = notMadeFor(
      existing,
      pr,
      group && {
        metadata: { namespace: rr.metadata.namespace ?? "", name: group.name, uid: group.uid },
      },
    );
    if (foreign) throw new Error(foreign, { cause: err });
  }
}

/** Sets spec.cancel on a ResizeRequest that is still the one we saw (uid precondition). */
export async function cancelResizeRequest(client: KubeClient, rr: ResizeRequest): Promise<void> {
  try {
    await client
      .resource(RESIZE_REQUESTS)
      .mergePatch(
        { namespace: rr.metadata.namespace ?? "", name: rr.metadata.name ?? "" },
        { metadata: { uid: rr.metadata.uid }, spec: { cancel: true } },
      );
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Returns "conflict" when the request moved on under us (the next pass decides again). */
export async function executeProvisioningPlan(
  deps: ProvisioningExecuteDeps,
  pr: ProvisioningRequest,
  plan: ProvisioningPlan,
): Promise<"done" | "conflict"> {
  if (plan.create) await createResizeRequest(deps.client, pr, plan.create);
  if (plan.cancel) await cancelResizeRequest(deps.client, plan.cancel);
  if (plan.status) {
    try {
      await deps.client.resource(PROVISIONING_REQUESTS).updateStatus({
        ...pr,
        status: { ...pr.status, ...plan.status },
      });
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return "conflict";
      throw err;
    }
  }
  const regarding = {
    apiVersion: pr.apiVersion ?? PROVISIONING_REQUESTS.apiVersion,
    kind: PROVISIONING_REQUESTS.kind,
    namespace: pr.metadata.namespace ?? "",
    name: pr.metadata.name ?? "",
    uid: pr.metadata.uid ?? "",
  };
  for (const e of plan.events) deps.recorder.emit({ ...e.definition, regarding, note: e.note });
  return "done";
}
