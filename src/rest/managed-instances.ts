// `instanceGroupManagers.listManagedInstances` and `regionInstanceGroupManagers.listManagedInstances`:
// the instances the group's resize requests hold, from each request's `status.instances` (written by
// the controller), one ManagedInstance per instance. Pure rows (managedInstanceRows) and the handler.
import { z } from "zod";
import { locationUrl } from "../api/identity.js";
import type { Location } from "../api/location.js";
import type { ManagedInstance } from "../api/managed-instances.js";
import type { ResizeRequest } from "../api/resize-request.js";
import { findGroup, listRequests } from "./cluster.js";
import { listAnswer, type ListParams } from "./list-answer.js";
import { locationOf, type LocationParams } from "./location.js";
import type { CallContext, Reply } from "./route.js";

type OfGroup = { readonly project: string; readonly instanceGroupManager: string } & LocationParams;

/** `status.instances` as the controller writes it; read leniently so an older status lists nothing. */
const StatusInstances = z.array(z.object({ name: z.string(), kind: z.string() }));

function instancesOf(rr: ResizeRequest): z.infer<typeof StatusInstances> {
  const status: Record<string, unknown> = rr.status ?? {};
  const parsed = StatusInstances.safeParse(status["instances"]);
  return parsed.success ? parsed.data : [];
}

/** The instance's status and the group's action on it, from the holding request's state. */
function progressOf(state: string | undefined): Pick<ManagedInstance, "instanceStatus" | "currentAction"> {
  if (state === "SUCCEEDED") return { instanceStatus: "RUNNING", currentAction: "NONE" };
  if (state === "ACCEPTED" || state === "CREATING")
    return { instanceStatus: "PROVISIONING", currentAction: "CREATING" };
  return { instanceStatus: "STOPPING", currentAction: "DELETING" };
}

/** A request whose run duration's release was applied holds nothing any more. */
const holds = (rr: ResizeRequest): boolean => rr.status?.release?.phase !== "Applied";

/** One row per instance a request holds, sorted by name (the default order of a list). */
export function managedInstanceRows(
  requests: readonly ResizeRequest[],
  instanceBase: string,
): ManagedInstance[] {
  const rows = requests.filter(holds).flatMap((rr) =>
    instancesOf(rr).map((instance): ManagedInstance => ({
      instance: `${instanceBase}/instances/${instance.name}`,
      name: instance.name,
      ...progressOf(rr.status?.state),
      version: { name: rr.metadata.name ?? "" },
    })),
  );
  return rows.sort((a, b) => (a.name ?? "").localeCompare(b.name ?? ""));
}

export async function listManagedInstances(call: CallContext<OfGroup & ListParams>): Promise<Reply> {
  const { deps, params } = call;
  const location: Location = locationOf(params);
  const group = await findGroup(deps.kube, params.project, location, params.instanceGroupManager);
  const groupName = group.metadata.name ?? params.instanceGroupManager;
  const base = locationUrl(deps.publicUrl, params.project, location);
  const rows = managedInstanceRows(await listRequests(deps.kube, params.project, groupName), base);
  const page = listAnswer(params, rows, {
    kind: "compute#managedInstanceList",
    id: `${groupName}/managedInstances`,
    selfLink: `${base}/instanceGroupManagers/${groupName}/listManagedInstances`,
  });
  return {
    body: {
      managedInstances: page.items,
      ...(page.nextPageToken !== undefined && { nextPageToken: page.nextPageToken }),
    },
  };
}
