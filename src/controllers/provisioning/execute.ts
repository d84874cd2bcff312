// Carries out a provisioner plan, in this order: cancel the ResizeRequests a deleted request left;
// create the request's ResizeRequest (idempotent: an existing one the provisioner made for the same
// request — its uid label and owner references — counts as created) or cancel it; write the request's
// status through its status subresource guarded by its resourceVersion, and emit the events of the
// condition changes; then delete the ResizeRequests whose retention is over, each conditionally on
// what was decided on (the retention controller's delete, with its RetentionExpired Event).
import { PROVISIONING_REQUESTS, RESIZE_REQUESTS } from "../../api/kinds.js";
import { INSTANCE_GROUP_MANAGER } from "../../api/names.js";
import type { ProvisioningRequest } from "../../api/provisioning-request.js";
import type { ResizeRequest } from "../../api/resize-request.js";
import type { InstanceGroupManager } from "../../api/instance-group-manager.js";
import type { EventRecorder } from "../../events/recorder.js";
import { isAlreadyExists, isConflict, isNotFound } from "../../runtime/api-errors.js";
import type { KubeClient } from "../../runtime/resource-client.js";
import type { Lister } from "../../runtime/store.js";
import { deleteFinishedRequest } from "../retention/controller.js";
import type { ProvisioningPlan } from "./decide.js";
import { notMadeFor, ownersOf } from "./ownership.js";

export interface ProvisioningExecuteDeps {
  readonly client: KubeClient;
  readonly recorder: EventRecorder;
  /** The groups, for the related object of a deleted ResizeRequest's Event. */
  readonly groups: Lister<InstanceGroupManager>;
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

/**
 * Returns "conflict" when the request moved on under us (the next pass decides again); `pr` is the
 * request the plan was decided on, undefined when it is gone (the plan then holds no write of it).
 */
export async function executeProvisioningPlan(
  deps: ProvisioningExecuteDeps,
  pr: ProvisioningRequest | undefined,
  plan: ProvisioningPlan,
): Promise<"done" | "conflict"> {
  for (const rr of plan.cancelOrphans ?? []) await cancelResizeRequest(deps.client, rr);
  if (pr && (await executeRequestPlan(deps, pr, plan)) === "conflict") return "conflict";
  for (const d of plan.delete ?? []) await deleteFinishedRequest(deps, d.resizeRequest, d.note);
  return "done";
}

/** The request's own part: its ResizeRequest created or cancelled, its status, its events. */
async function executeRequestPlan(
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
