// Handlers of `instanceGroupManagerResizeRequests`: insert, list, get, cancel, delete. Every mutation
// records an Operation before it touches the cluster (so the operations controller can follow it),
// and removes it again if the cluster refuses the change, so that a retry starts afresh.
import { FINAL_STATES, type ResizeRequestInsert } from "../api/resize-request.js";
import { INSTANCE_GROUP_MANAGER, REST_KIND, USE_VERB } from "../api/names.js";
import type { Operation, OperationType } from "../api/index.js";
import { numericId, resizeRequestLinks, zoneUrl } from "../controller/identity.js";
import { cancelTooLate } from "../operations/advance.js";
import {
  INSERT_OPERATION_ANNOTATION,
  mergeOperation,
  newOperation,
  newOperationId,
  newOperationName,
  type OperationPatch,
  type OperationRef,
} from "../operations/model.js";
import {
  cancelRequest,
  createRequest,
  deleteRequest,
  findGroup,
  findRequest,
  listRequests,
} from "./cluster.js";
import { fromRestInsert, toRestResizeRequest } from "./convert.js";
import { page } from "./query.js";
import type { CallContext, Reply } from "./route.js";

interface Target {
  readonly project: string;
  readonly zone: string;
  readonly group: string;
  readonly name: string;
  readonly id?: string;
}

/** Records a new operation on `target` (or finds the one of the same requestId). */
async function startOperation(
  call: CallContext,
  type: OperationType,
  target: Target,
  initial?: OperationPatch,
): Promise<{ operation: Operation; ref: OperationRef; created: boolean; requestId?: string }> {
  const { deps, params, user } = call;
  const now = deps.now();
  const ref: OperationRef = { project: target.project, zone: target.zone, name: newOperationName(now) };
  const requestId = params.optionalString("requestId");
  const links = resizeRequestLinks(
    deps.publicUrl,
    target.project,
    target.zone,
    target.group,
    target.name,
    target.id ?? "0",
  );
  const fresh = newOperation({
    ref,
    id: newOperationId(),
    operationType: type,
    zoneUrl: zoneUrl(deps.publicUrl, target.project, target.zone),
    targetLink: links.selfLink,
    ...(target.id !== undefined && { targetId: target.id }),
    user: user.username,
    insertTime: new Date(now).toISOString(),
    ...(requestId !== undefined && { requestId }),
  });
  const operation = (initial && mergeOperation(fresh, initial, fresh.insertTime)) ?? fresh;
  const result = await deps.store.create(operation, ref, {
    ...(requestId !== undefined && { requestId }),
    request: target.name,
  });
  const stored = result.operation;
  const storedRef = { project: target.project, zone: target.zone, name: stored.name };
  call.log.info(
    { operation: stored.name, operationType: type, created: result.created, requestId },
    result.created ? "operation started" : "operation of requestId reused",
  );
  return { operation: stored, ref: storedRef, created: result.created, ...(requestId && { requestId }) };
}

/** Runs the cluster change of a just-recorded operation; forgets the operation if the change fails. */
async function mutate<T>(
  call: CallContext,
  ref: OperationRef,
  requestId: string | undefined,
  change: () => Promise<T>,
): Promise<T> {
  try {
    return await change();
  } catch (err) {
    await call.deps.store.delete(ref, requestId);
    throw err;
  }
}

function path(call: CallContext) {
  const { params } = call;
  return {
    project: params.string("project"),
    zone: params.string("zone"),
    groupParam: params.string("instanceGroupManager"),
  };
}

export async function insert(call: CallContext): Promise<Reply> {
  const { deps } = call;
  const { project, zone, groupParam } = path(call);
  const group = await findGroup(deps.kube, project, zone, groupParam);
  const groupName = group.metadata.name ?? groupParam;
  // The seed's "access permission on the named instance group", checked on the resolved name.
  await deps.authorizer.authorize(call.user, {
    verb: USE_VERB,
    resource: INSTANCE_GROUP_MANAGER.plural,
    namespace: project,
    name: groupName,
  });
  const body = call.body as ResizeRequestInsert;
  const started = await startOperation(call, "compute.instanceGroupManagerResizeRequests.insert", {
    project,
    zone,
    group: groupName,
    name: body.name,
  });
  if (!started.created) return { body: started.operation };
  const created = await mutate(call, started.ref, started.requestId, () =>
    createRequest(
      deps.kube,
      fromRestInsert(body, project, groupName, { [INSERT_OPERATION_ANNOTATION]: started.ref.name }),
    ),
  );
  const running = await deps.store.update(started.ref, {
    status: "RUNNING",
    targetId: numericId(created.metadata.uid ?? ""),
  });
  return { body: running ?? started.operation };
}

export async function list(call: CallContext): Promise<Reply> {
  const { deps, params } = call;
  const { project, zone, groupParam } = path(call);
  const group = await findGroup(deps.kube, project, zone, groupParam);
  const groupName = group.metadata.name ?? groupParam;
  const all = (await listRequests(deps.kube, project, groupName)).map((rr) =>
    toRestResizeRequest(rr, { publicUrl: deps.publicUrl, project, zone }),
  );
  const selfLink = `${zoneUrl(deps.publicUrl, project, zone)}/instanceGroupManagers/${groupName}/resizeRequests`;
  const filter = params.optionalString("filter");
  const orderBy = params.optionalString("orderBy");
  const pageToken = params.optionalString("pageToken");
  const result = page(all, {
    scope: selfLink,
    maxResults: params.integer("maxResults"),
    ...(filter !== undefined && { filter }),
    ...(orderBy !== undefined && { orderBy }),
    ...(pageToken !== undefined && { pageToken }),
  });
  return {
    body: {
      kind: REST_KIND.resizeRequestList,
      id: `projects/${project}/zones/${zone}/instanceGroupManagers/${groupName}/resizeRequests`,
      items: result.items,
      ...(result.nextPageToken !== undefined && { nextPageToken: result.nextPageToken }),
      selfLink,
    },
  };
}

async function resolve(call: CallContext) {
  const { deps, params } = call;
  const { project, zone, groupParam } = path(call);
  const group = await findGroup(deps.kube, project, zone, groupParam);
  const groupName = group.metadata.name ?? groupParam;
  const rr = await findRequest(deps.kube, project, zone, groupName, params.string("resizeRequest"));
  const target: Target = {
    project,
    zone,
    group: groupName,
    name: rr.metadata.name ?? "",
    id: rr.status?.id ?? numericId(rr.metadata.uid ?? ""),
  };
  return { rr, target };
}

export async function get(call: CallContext): Promise<Reply> {
  const { rr, target } = await resolve(call);
  return { body: toRestResizeRequest(rr, { publicUrl: call.deps.publicUrl, ...target }) };
}

export async function cancel(call: CallContext): Promise<Reply> {
  const { deps } = call;
  const { rr, target } = await resolve(call);
  const state = rr.status?.state;
  if (state !== undefined && FINAL_STATES.includes(state)) {
    // Too late to cancel: the operation is born DONE with the error, as in the compute API.
    return {
      body: (
        await startOperation(
          call,
          "compute.instanceGroupManagerResizeRequests.cancel",
          target,
          cancelTooLate(state),
        )
      ).operation,
    };
  }
  const started = await startOperation(call, "compute.instanceGroupManagerResizeRequests.cancel", target);
  if (!started.created) return { body: started.operation };
  await mutate(call, started.ref, started.requestId, () => cancelRequest(deps.kube, rr));
  return {
    body: (await deps.store.update(started.ref, { status: "RUNNING", progress: 10 })) ?? started.operation,
  };
}

export async function remove(call: CallContext): Promise<Reply> {
  const { deps } = call;
  const { rr, target } = await resolve(call);
  const started = await startOperation(call, "compute.instanceGroupManagerResizeRequests.delete", target);
  if (!started.created) return { body: started.operation };
  const gone = await mutate(call, started.ref, started.requestId, () => deleteRequest(deps.kube, rr));
  const updated = await deps.store.update(
    started.ref,
    gone ? { status: "DONE" } : { status: "RUNNING", progress: 10 },
  );
  return { body: updated ?? started.operation };
}
