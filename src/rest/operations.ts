// Handlers of `zoneOperations` and `regionOperations`: get, list, delete and wait, all served from the
// operations store. An operation is addressed by name or by numeric id, as in the compute API.
import { locationPath } from "../api/location.js";
import { REST_KIND } from "../api/names.js";
import { locationUrl } from "../api/identity.js";
import type { OperationRef } from "../operations/model.js";
import { NotFoundError } from "./errors.js";
import { locationOf, type LocationParams } from "./location.js";
import { listAnswer, type ListParams } from "./list-answer.js";
import type { CallContext, Reply } from "./route.js";

type InLocation = { readonly project: string } & LocationParams;
type OneOperation = CallContext<InLocation & { readonly operation: string }>;

/** Names start with a letter, ids are digits only (the route's pattern), so one string is never both. */
const isId = (nameOrId: string): boolean => /^[0-9]+$/.test(nameOrId);

/** The operation a call names; a numeric id is looked up among the location's operations. */
async function refOf(call: OneOperation): Promise<OperationRef> {
  const { params, deps } = call;
  const { project, operation: nameOrId } = params;
  const location = locationOf(params);
  if (!isId(nameOrId)) return { project, location, name: nameOrId };
  const op = await deps.store.getById(project, location, nameOrId);
  if (!op) throw notFound({ project, location, name: nameOrId });
  return { project, location, name: op.name };
}

function notFound(ref: OperationRef): NotFoundError {
  return new NotFoundError(
    `The resource 'projects/${ref.project}/${locationPath(ref.location)}/operations/${ref.name}' was not found`,
  );
}

export async function get(call: OneOperation): Promise<Reply> {
  const ref = await refOf(call);
  const op = await call.deps.store.get(ref);
  if (!op) throw notFound(ref);
  return { body: op };
}

export async function list(call: CallContext<InLocation & ListParams>): Promise<Reply> {
  const { deps, params } = call;
  const { project } = params;
  const location = locationOf(params);
  return {
    body: listAnswer(params, await deps.store.list(project, location), {
      kind: REST_KIND.operationList,
      id: `projects/${project}/${locationPath(location)}/operations`,
      selfLink: `${locationUrl(deps.publicUrl, project, location)}/operations`,
    }),
  };
}

export async function remove(call: OneOperation): Promise<Reply> {
  const ref = await refOf(call);
  if (!(await call.deps.store.delete(ref))) throw notFound(ref);
  return { status: 204 };
}

/** Returns when the operation is DONE or after at most the wait timeout (2 minutes), whichever first. */
export async function wait(call: OneOperation): Promise<Reply> {
  const ref = await refOf(call);
  const op = await call.deps.store.wait(ref, call.deps.waitTimeoutMs, call.signal);
  if (!op) throw notFound(ref);
  return { body: op };
}
