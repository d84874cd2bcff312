// Who may spend a group's capacity over REST: a resize request's insert and a booking's insert both
// need verb `use` on the group (Compute Engine's "access permission on the named instance group",
// docs/design.md §6). The operator creates the object for the caller, so the admission policy sees the
// operator: the REST API asks for the caller's `use` itself, on the group's resolved name.
import { INSTANCE_GROUP_MANAGER, USE_VERB } from "../api/names.js";
import type { CallContext } from "./route.js";

export async function authorizeGroupUse(
  call: CallContext<unknown, unknown>,
  project: string,
  groupName: string,
): Promise<void> {
  await call.deps.authorizer.authorize(call.user, {
    verb: USE_VERB,
    resource: INSTANCE_GROUP_MANAGER.plural,
    namespace: project,
    name: groupName,
  });
}
