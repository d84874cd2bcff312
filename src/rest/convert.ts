// Kubernetes ResizeRequest → REST `InstanceGroupManagerResizeRequest`. The controller keeps the
// output-only fields on status; a request it has not seen yet gets them derived on the fly here, the
// same way the controller derives them (ids from the uid, links from the public URL).
import {
  locationField,
  type InstanceGroupManagerResizeRequest,
  type Location,
  type ResizeRequest,
  type ResizeRequestInsert,
} from "../api/index.js";
import { API_VERSION, REST_KIND, RESIZE_REQUEST } from "../api/names.js";
import { numericId, resizeRequestLinks } from "../api/identity.js";

export interface RestContext {
  /** Public base URL of the operator, without a trailing slash. */
  readonly publicUrl: string;
  readonly project: string;
  readonly location: Location;
}

export function toRestResizeRequest(rr: ResizeRequest, ctx: RestContext): InstanceGroupManagerResizeRequest {
  const { spec, metadata } = rr;
  const status = rr.status ?? {};
  const name = metadata.name ?? "";
  const id = status.id ?? numericId(metadata.uid ?? "");
  const links = resizeRequestLinks(
    ctx.publicUrl,
    ctx.project,
    ctx.location,
    spec.instanceGroupManager,
    name,
    id,
  );
  const where = locationField(ctx.location);
  const restStatus = {
    ...(status.error && { error: status.error }),
    ...(status.lastAttempt && { lastAttempt: status.lastAttempt }),
  };
  return {
    kind: REST_KIND.resizeRequest,
    id,
    ...((status.creationTimestamp ?? metadata.creationTimestamp) !== undefined && {
      creationTimestamp: status.creationTimestamp ?? metadata.creationTimestamp,
    }),
    name,
    ...(spec.description !== undefined && { description: spec.description }),
    [where]: status[where] ?? links.location,
    ...(spec.resizeBy !== undefined && { resizeBy: spec.resizeBy }),
    ...(spec.instances !== undefined && { instances: spec.instances }),
    ...(spec.requestedRunDuration !== undefined && { requestedRunDuration: spec.requestedRunDuration }),
    state: status.state ?? "CREATING",
    status: restStatus,
    selfLink: status.selfLink ?? links.selfLink,
    selfLinkWithId: status.selfLinkWithId ?? links.selfLinkWithId,
  };
}

/** The Kubernetes object an insert body creates in namespace `project` for group `group`. */
export function fromRestInsert(
  body: ResizeRequestInsert,
  project: string,
  group: string,
  annotations: Readonly<Record<string, string>>,
): ResizeRequest {
  return {
    apiVersion: API_VERSION,
    kind: RESIZE_REQUEST.kind,
    metadata: { name: body.name, namespace: project, annotations: { ...annotations } },
    spec: {
      instanceGroupManager: group,
      ...(body.resizeBy !== undefined && { resizeBy: body.resizeBy }),
      // Of a PerInstanceConfig only the name means something here; output-only fields are dropped.
      ...(body.instances !== undefined && { instances: body.instances.map(({ name }) => ({ name })) }),
      ...(body.requestedRunDuration !== undefined && { requestedRunDuration: body.requestedRunDuration }),
      ...(body.description !== undefined && { description: body.description }),
      cancel: false,
    },
  };
}
