// Handlers of `instanceGroupManagerResizeRequests` and `regionInstanceGroupManagerResizeRequests`:
// insert, list, get, cancel, delete, the same for zonal and regional groups. Every mutation records an
// Operation before it touches the cluster (so the operations controller can follow it), and removes
// it again if the cluster refuses the change, so that a retry starts afresh. Cancel and delete follow
// GCE's rules: cancel only an active request, delete only a finished one.
import { namingRefusal } from "../api/instance-names.js";
import { isFinalState } from "../api/lifecycle.js";
import { readinessSource } from "../api/readiness.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { ResizeRequestInsert } from "../api/resize-request-rest.js";
import { REST_KIND } from "../api/names.js";
import {
  locationPath,
  operationTypeOf,
  type Location,
  type Operation,
  type OperationVerb,
} from "../api/index.js";
import { locationUrl, numericId, resizeRequestLinks, resizeRequestsUrl } from "../api/identity.js";
import {
  INSERT_OPERATION_ANNOTATION,
  newOperation,
  newOperationId,
  newOperationName,
  type OperationRef,
} from "../operations/model.js";
import { requestTarget, type RequestIdCall } from "../operations/request-id.js";
import { RequestIdConflictError } from "../operations/scripts.js";
import {
  cancelRequest,
  createRequest,
  deleteRequest,
  findGroup,
  findRequest,
  listRequests,
} from "./cluster.js";
import { isAlreadyExists, isConflict } from "../runtime/api-errors.js";
import type { KubeClient } from "../runtime/resource-client.js";
import { fromRestInsert, toRestResizeRequest } from "./convert.js";
import { InvalidError, InvalidResourceUsageError } from "./errors.js";
import { locationOf, type LocationParams } from "./location.js";
import { listAnswer, type ListParams } from "./list-answer.js";
import type { CallContext, Reply } from "./route.js";
import { answeredMeanwhile, carryOut, mutate, settleInsert, type StartedTry } from "./change-outcome.js";
import { authorizeGroupUse } from "./group-use.js";

type OfGroup = { readonly project: string; readonly instanceGroupManager: string } & LocationParams;
type OneRequest = OfGroup & { readonly resizeRequest: string };
/** Mutations take an optional requestId that makes a repeated call return the first call's Operation. */
type Idempotent = { readonly requestId?: string };

interface Target {
  readonly project: string;
  readonly location: Location;
  readonly group: string;
  readonly name: string;
  readonly id?: string;
}

/**
 * The call a requestId is bound to: the user, the method, and the resize request as the call names it
 * (the path's, or an insert's body's): only the same call again may replay it.
 */
function requestIdCall(
  call: CallContext<OfGroup, unknown>,
  verb: OperationVerb,
  request: string,
): RequestIdCall {
  const location = locationOf(call.params);
  return {
    caller: call.user.username,
    operationType: operationTypeOf(location.scope, verb),
    target: requestTarget(location, call.params.instanceGroupManager, request),
  };
}

/**
 * Records a new operation on `target` (or finds the one of the same requestId, when `request` — the
 * resize request as the call names it — and the rest of the call are the ones it was first used for).
 */
async function startOperation(
  call: CallContext<OfGroup & Idempotent, unknown>,
  verb: OperationVerb,
  target: Target,
  request: string,
): Promise<StartedTry & { operation: Operation }> {
  const { deps, params, user } = call;
  const now = deps.now();
  const { project, location } = target;
  const ref: OperationRef = { project, location, name: newOperationName(now) };
  const { requestId } = params;
  const links = resizeRequestLinks(
    deps.publicUrl,
    project,
    location,
    target.group,
    target.name,
    target.id ?? "0",
  );
  const operationType = operationTypeOf(location.scope, verb);
  const operation = newOperation({
    ref,
    id: newOperationId(),
    operationType,
    locationUrl: locationUrl(deps.publicUrl, project, location),
    targetLink: links.selfLink,
    ...(target.id !== undefined && { targetId: target.id }),
    user: user.username,
    insertTime: new Date(now).toISOString(),
    ...(requestId !== undefined && { requestId }),
  });
  const recordSentAt = deps.now();
  const result = await deps.store.create(operation, ref, {
    ...(requestId !== undefined && {
      requestId: { id: requestId, call: requestIdCall(call, verb, request) },
    }),
    request: target.name,
    // A call whose client is gone records nothing: its retry may have been answered meanwhile
    // (docs/reliability.md, V6).
    signal: call.signal,
  });
  const stored = result.operation;
  const storedRef = { project, location, name: stored.name };
  call.log.info(
    { operation: stored.name, operationType, created: result.created, requestId },
    result.created ? "operation started" : "operation of requestId reused",
  );
  return {
    operation: stored,
    ref: storedRef,
    created: result.created,
    recordSentAt,
    ...(requestId && { requestId }),
  };
}

/**
 * Creates an insert's request; one that exists already and was created for the same operation (the
 * insert annotation says so) is that operation's, from an earlier try of the same requestId.
 */
async function createOrAdopt(
  kube: KubeClient,
  rr: ResizeRequest,
  where: { project: string; location: Location; group: string },
): Promise<ResizeRequest> {
  try {
    return await createRequest(kube, rr);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const name = rr.metadata.name ?? "";
    const existing = await findRequest(kube, where.project, where.location, where.group, name).catch(
      () => undefined,
    );
    const operation = rr.metadata.annotations?.[INSERT_OPERATION_ANNOTATION];
    if (
      operation === undefined ||
      existing?.metadata.annotations?.[INSERT_OPERATION_ANNOTATION] !== operation
    )
      throw err;
    return existing;
  }
}

/** The group a call names, resolved in the call's zone or region. */
async function resolveGroup(call: CallContext<OfGroup, unknown>) {
  const { deps, params } = call;
  const { project, instanceGroupManager: groupParam } = params;
  const location = locationOf(params);
  const group = await findGroup(deps.kube, project, location, groupParam);
  return { project, location, group, groupName: group.metadata.name ?? groupParam };
}

export async function insert(call: CallContext<OfGroup & Idempotent, ResizeRequestInsert>): Promise<Reply> {
  const { deps, body } = call;
  const { project, location, group, groupName } = await resolveGroup(call);
  await authorizeGroupUse(call, project, groupName);
  // Names the group's target would not give its instances are refused before anything is created.
  const names = body.instances?.map((i) => i.name);
  const countsNodes = readinessSource(group.spec).kind === "nodes";
  const refusal = names && namingRefusal(group.spec.targetRef, countsNodes, names);
  if (refusal)
    throw new InvalidError(refusal, [{ message: refusal, location: "instances", locationType: "body" }]);
  const started = await startOperation(
    call,
    "insert",
    { project, location, group: groupName, name: body.name },
    body.name,
  );
  // A replay (the same user's same insert: the store refuses any other) returns the stored operation,
  // unless it is still PENDING: then the first try may have been cut short (a Redis failover between
  // recording the operation and creating the request), and the request is created now, so that an
  // acknowledged requestId always has its request.
  if (
    !started.created &&
    !(
      started.operation.status === "PENDING" &&
      started.operation.operationType === operationTypeOf(location.scope, "insert")
    )
  )
    return { body: started.operation };
  const answered = await answeredMeanwhile(call, started);
  if (answered) return { body: answered };
  const created = await mutate(call, started.ref, started.requestId, () =>
    createOrAdopt(
      deps.kube,
      fromRestInsert(body, project, groupName, { [INSERT_OPERATION_ANNOTATION]: started.ref.name }),
      { project, location, group: groupName },
    ),
  );
  const running = await deps.store.update(started.ref, {
    status: "RUNNING",
    targetId: numericId(created.metadata.uid ?? ""),
  });
  return { body: running ?? started.operation };
}

export async function list(call: CallContext<OfGroup & ListParams>): Promise<Reply> {
  const { deps, params } = call;
  const { project, location, groupName } = await resolveGroup(call);
  const all = (await listRequests(deps.kube, project, groupName)).map((rr) =>
    toRestResizeRequest(rr, { publicUrl: deps.publicUrl, project, location }),
  );
  return {
    body: listAnswer(params, all, {
      kind: location.scope === "zones" ? REST_KIND.resizeRequestList : REST_KIND.regionResizeRequestList,
      id: `projects/${project}/${locationPath(location)}/instanceGroupManagers/${groupName}/resizeRequests`,
      selfLink: resizeRequestsUrl(deps.publicUrl, project, location, groupName),
    }),
  };
}

async function resolve(call: CallContext<OneRequest, unknown>) {
  const { deps, params } = call;
  const { project, location, groupName } = await resolveGroup(call);
  const rr = await findRequest(deps.kube, project, location, groupName, params.resizeRequest);
  const target: Target = {
    project,
    location,
    group: groupName,
    name: rr.metadata.name ?? "",
    id: rr.status?.id ?? numericId(rr.metadata.uid ?? ""),
  };
  return { rr, target };
}

export async function get(call: CallContext<OneRequest>): Promise<Reply> {
  const { rr, target } = await resolve(call);
  return { body: toRestResizeRequest(rr, { publicUrl: call.deps.publicUrl, ...target }) };
}

/**
 * The operation of a repeated call: a cancel or delete replayed with its requestId answers with the
 * first call's operation even though the request is now final or gone. The requestId of another call
 * (user, method, resize request) is refused.
 */
async function replay(
  call: CallContext<OneRequest & Idempotent, unknown>,
  verb: OperationVerb,
): Promise<Operation | undefined> {
  const { project, requestId, resizeRequest } = call.params;
  if (requestId === undefined) return undefined;
  return call.deps.store.getByRequestId(project, requestId, requestIdCall(call, verb, resizeRequest));
}

/**
 * Runs a cancel's or delete's first try, `first`; if it is refused while a try of the same requestId
 * recorded its Operation since `replay` looked (a retry racing a first try still in flight, which may
 * have made the request final or deleted it), the answer is that try's Operation, not the refusal; if
 * another call bound the requestId meanwhile (an insert that created the request this one found
 * active), the answer is that the requestId is bound.
 */
async function orReplayed(
  call: CallContext<OneRequest & Idempotent, unknown>,
  verb: OperationVerb,
  first: () => Promise<Reply>,
): Promise<Reply> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await first();
    } catch (err) {
      // The request read was replaced under its name before the change reached it (the change's uid
      // precondition failed, and `mutate` undid the Operation): the call is made again on what is
      // there now, rather than answered with the cluster's 409.
      if (isConflict(err) && attempt < MAX_REPLACED_ATTEMPTS) continue;
      const replayed = await replay(call, verb).catch((lookup: unknown) => {
        if (lookup instanceof RequestIdConflictError) throw lookup;
        return undefined;
      });
      if (replayed) return { body: replayed };
      throw err;
    }
  }
}

/** How often a cancel or delete is made again when the request it read was replaced meanwhile. */
const MAX_REPLACED_ATTEMPTS = 3;

/**
 * A retry of a cancel or delete whose Operation is not DONE is carried out again (change-outcome.ts):
 * its first try may have lost its answer before or after the change.
 */
async function retried(
  call: CallContext<OneRequest & Idempotent>,
  verb: "cancel" | "delete",
  op: Operation,
): Promise<Reply> {
  if (op.status === "DONE") return { body: op };
  const { project, location, groupName } = await resolveGroup(call);
  return carryOut(call, op, verb, {
    project,
    location,
    group: groupName,
    request: call.params.resizeRequest,
  });
}

export async function cancel(call: CallContext<OneRequest & Idempotent>): Promise<Reply> {
  const replayed = await replay(call, "cancel");
  if (replayed) return retried(call, "cancel", replayed);
  return orReplayed(call, "cancel", () => cancelOnce(call));
}

async function cancelOnce(call: CallContext<OneRequest & Idempotent>): Promise<Reply> {
  const { deps } = call;
  const { rr, target } = await resolve(call);
  const state = rr.status?.state;
  // GCE cancels only active requests. A request that turns final after this check gets a DONE
  // operation with CONDITION_NOT_MET from the operations controller (operations/advance.ts).
  if (isFinalState(state))
    throw new InvalidResourceUsageError(
      `The resize request '${target.name}' is ${state ?? ""} and can no longer be cancelled: only an active request (CREATING or ACCEPTED) can be cancelled.`,
    );
  const started = await startOperation(call, "cancel", target, call.params.resizeRequest);
  if (!started.created) return { body: started.operation };
  const answered = await answeredMeanwhile(call, started);
  if (answered) return { body: answered };
  await mutate(call, started.ref, started.requestId, () => cancelRequest(deps.kube, rr));
  return {
    body: (await deps.store.update(started.ref, { status: "RUNNING", progress: 10 })) ?? started.operation,
  };
}

export async function remove(call: CallContext<OneRequest & Idempotent>): Promise<Reply> {
  const replayed = await replay(call, "delete");
  if (replayed) return retried(call, "delete", replayed);
  return orReplayed(call, "delete", () => removeOnce(call));
}

async function removeOnce(call: CallContext<OneRequest & Idempotent>): Promise<Reply> {
  const { deps } = call;
  const { rr, target } = await resolve(call);
  const state = rr.status?.state;
  if (!isFinalState(state))
    throw new InvalidResourceUsageError(
      `The resize request '${target.name}' is ${state ?? "CREATING"} and cannot be deleted while active: cancel it first, then delete it once it is CANCELLED. (Deleting it with kubectl cancels it first.)`,
    );
  await settleInsert(call, target, rr);
  const started = await startOperation(call, "delete", target, call.params.resizeRequest);
  if (!started.created) return { body: started.operation };
  const answered = await answeredMeanwhile(call, started);
  if (answered) return { body: answered };
  const gone = await mutate(call, started.ref, started.requestId, () => deleteRequest(deps.kube, rr));
  const updated = await deps.store.update(
    started.ref,
    gone ? { status: "DONE" } : { status: "RUNNING", progress: 10 },
  );
  return { body: updated ?? started.operation };
}
