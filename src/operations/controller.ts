// The operations controller (leader only): follows ResizeRequests and advances their Operations —
// insert RUNNING → DONE when admitted or final, cancel DONE when CANCELLED (CONDITION_NOT_MET when the
// request ended otherwise), delete DONE when the object is gone (the API server asked where the cache
// has not seen the request: needsLiveRead) — and gives requests created with
// kubectl an insert Operation of their own. It writes only to Redis, never to the requests, so it
// cannot conflict with the resize controller's status writes.
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { groupLocation, operationTypeOf, type Location } from "../api/index.js";
import { groupKeyOf, locationUrl, numericId, resizeRequestLinks } from "../api/identity.js";
import { RESIZE_REQUESTS } from "../api/kinds.js";
import { RESIZE_REQUEST } from "../api/names.js";
import { isNotFound } from "../runtime/api-errors.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { Controller, type ReconcileResult, type Request } from "../runtime/controller.js";
import type { Informer } from "../runtime/informer.js";
import type { Manager } from "../runtime/manager.js";
import type { Lister } from "../runtime/store.js";
import { advance, needsLiveRead } from "./advance.js";
import { INSERT_OPERATION_ANNOTATION, mergeOperation, newOperation, type OperationRef } from "./model.js";
import { StoreUnavailableError, type OperationStore } from "./store.js";

export interface OperationsControllerOptions {
  readonly store: OperationStore;
  readonly publicUrl: string;
  /** Requests older than this get no insert Operation (it would have expired already). */
  readonly retentionMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Retry delay while Redis is unreachable. */
  readonly retryMs?: number;
}

/** A request as the API server has it now (undefined: no such name), asked where the cache cannot tell. */
export type ReadRequest = (namespace: string, name: string) => Promise<ResizeRequest | undefined>;

/** The location of a request: its group's, or the one the controller recorded on status. */
function locationOf(rr: ResizeRequest, groups: Lister<InstanceGroupManager>): Location | undefined {
  const group = groups.get(groupKeyOf(rr));
  if (group) return groupLocation(group.spec);
  const { zone, region } = rr.status ?? {};
  if (zone !== undefined) return { scope: "zones", name: zone.split("/").pop() ?? "" };
  if (region !== undefined) return { scope: "regions", name: region.split("/").pop() ?? "" };
  return undefined;
}

/** The insert Operation of a request created with kubectl is named after the request, so it is made once. */
export function kubectlInsertName(rr: ResizeRequest): string {
  const created = Date.parse(rr.metadata.creationTimestamp ?? "") || 0;
  const hash = createHash("sha256")
    .update(rr.metadata.uid ?? "")
    .digest("hex")
    .slice(0, 16);
  return `operation-${created}-${hash}`;
}

export function operationsReconciler(
  requests: Lister<ResizeRequest>,
  groups: Lister<InstanceGroupManager>,
  readRequest: ReadRequest,
  options: OperationsControllerOptions,
) {
  const { store } = options;
  const now = options.now ?? Date.now;
  const ensureInsertOperation = async (
    rr: ResizeRequest,
    project: string,
    location: Location,
  ): Promise<void> => {
    const created = Date.parse(rr.metadata.creationTimestamp ?? "");
    if (rr.metadata.annotations?.[INSERT_OPERATION_ANNOTATION] !== undefined) return;
    if (!(now() - created < options.retentionMs)) return;
    const name = rr.metadata.name ?? "";
    const id = numericId(rr.metadata.uid ?? "");
    const ref: OperationRef = { project, location, name: kubectlInsertName(rr) };
    const links = resizeRequestLinks(
      options.publicUrl,
      project,
      location,
      rr.spec.instanceGroupManager,
      name,
      id,
    );
    const op = newOperation({
      ref,
      id: numericId(`${rr.metadata.uid ?? ""}/insert`),
      operationType: operationTypeOf(location.scope, "insert"),
      locationUrl: locationUrl(options.publicUrl, project, location),
      targetLink: links.selfLink,
      targetId: id,
      // Who ran kubectl is not recorded on the object; the API server's audit log has it.
      user: "system",
      insertTime: new Date(created).toISOString(),
      description: "Created with the Kubernetes API.",
    });
    await store.create(mergeOperation(op, { status: "RUNNING" }, op.insertTime) ?? op, ref, {
      request: name,
    });
  };

  return async (request: Request, ctx: { log: Logger }): Promise<ReconcileResult | undefined> => {
    const project = request.namespace ?? "";
    const rr = requests.get(`${project}/${request.name}`);
    try {
      if (rr) {
        const location = locationOf(rr, groups);
        if (location !== undefined) await ensureInsertOperation(rr, project, location);
      }
      for (const ref of await store.pending(project, request.name)) {
        const op = await store.get(ref);
        const seen = op && needsLiveRead(op, rr) ? await readRequest(project, request.name) : rr;
        const patch = op && advance(op, seen, ref.location.name);
        const updated = patch ? await store.update(ref, patch) : op;
        if (updated?.status !== "DONE" && updated !== undefined) continue;
        await store.settle(project, request.name, ref);
        if (updated)
          ctx.log.info({ operation: ref.name, error: updated.error !== undefined }, "operation done");
      }
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      // Not a failure of this request: retry at a steady pace until Redis is back.
      ctx.log.debug({ err }, "operations store unavailable; retrying");
      return { requeueAfterMs: options.retryMs ?? 2000 };
    }
    return undefined;
  };
}

function readRequest(kube: KubeClient): ReadRequest {
  return (namespace, name) =>
    kube
      .resource(RESIZE_REQUESTS)
      .get({ namespace, name })
      .catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
}

/** The requests and groups to follow: the resize controller's informers (the manager shares one per collection). */
export interface OperationsInformers {
  readonly requests: Informer<ResizeRequest>;
  readonly groups: Informer<InstanceGroupManager>;
}

export function addOperationsController(
  mgr: Manager,
  { requests, groups }: OperationsInformers,
  options: OperationsControllerOptions,
): Controller {
  const controller = new Controller({
    // Keyed per request (the kind it reconciles), writing the requests' Operations.
    name: `${RESIZE_REQUEST.singular}-operations`,
    concurrency: 2,
    logger: options.logger,
    reconcile: operationsReconciler(requests.lister, groups.lister, readRequest(mgr.client), options),
  });
  controller.watchPrimary(requests);
  mgr.addController(controller);
  return controller;
}
