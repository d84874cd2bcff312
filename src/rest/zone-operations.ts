// Handlers of `zoneOperations`: get, list, delete and wait, all served from the operations store.
import { REST_KIND } from "../api/names.js";
import { zoneUrl } from "../controller/identity.js";
import type { OperationRef } from "../operations/model.js";
import { NotFoundError } from "./errors.js";
import { page } from "./query.js";
import type { CallContext, Reply } from "./route.js";

function refOf(call: CallContext): OperationRef {
  const { params } = call;
  return { project: params.string("project"), zone: params.string("zone"), name: params.string("operation") };
}

function notFound(ref: OperationRef): NotFoundError {
  return new NotFoundError(
    `The resource 'projects/${ref.project}/zones/${ref.zone}/operations/${ref.name}' was not found`,
  );
}

export async function get(call: CallContext): Promise<Reply> {
  const ref = refOf(call);
  const op = await call.deps.store.get(ref);
  if (!op) throw notFound(ref);
  return { body: op };
}

export async function list(call: CallContext): Promise<Reply> {
  const { deps, params } = call;
  const project = params.string("project");
  const zone = params.string("zone");
  const selfLink = `${zoneUrl(deps.publicUrl, project, zone)}/operations`;
  const filter = params.optionalString("filter");
  const orderBy = params.optionalString("orderBy");
  const pageToken = params.optionalString("pageToken");
  const result = page(await deps.store.list(project, zone), {
    scope: selfLink,
    maxResults: params.integer("maxResults"),
    ...(filter !== undefined && { filter }),
    ...(orderBy !== undefined && { orderBy }),
    ...(pageToken !== undefined && { pageToken }),
  });
  return {
    body: {
      kind: REST_KIND.operationList,
      id: `projects/${project}/zones/${zone}/operations`,
      items: result.items,
      ...(result.nextPageToken !== undefined && { nextPageToken: result.nextPageToken }),
      selfLink,
    },
  };
}

export async function remove(call: CallContext): Promise<Reply> {
  const ref = refOf(call);
  if (!(await call.deps.store.delete(ref))) throw notFound(ref);
  return { status: 204 };
}

/** Returns when the operation is DONE or after at most the wait timeout (2 minutes), whichever first. */
export async function wait(call: CallContext): Promise<Reply> {
  const ref = refOf(call);
  const op = await call.deps.store.wait(ref, call.deps.waitTimeoutMs, call.signal);
  if (!op) throw notFound(ref);
  return { body: op };
}
