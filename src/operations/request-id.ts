// What a requestId is bound to (pure): the call that first used it — who called, which method, on which
// resize request. Only that call, replayed, gets the first call's Operation back; any other use of the
// requestId within the retention is refused (RequestIdConflictError), so that no caller can read,
// re-target or complete another's Operation by replaying its requestId. The binding is stored with the
// requestId (`<loc>/<name> <binding>`, keys.ts) by the same script that records the Operation.
import { createHash } from "node:crypto";
import { locationPath, type Location } from "../api/location.js";
import type { Operation } from "../api/operation.js";

/** A mutation as the requestId binds it. */
export interface RequestIdCall {
  /** The authenticated user (Kubernetes username). */
  readonly caller: string;
  readonly operationType: string;
  /** The resize request as the call addressed it: `zones/z/instanceGroupManagers/g/resizeRequests/r`. */
  readonly target: string;
}

export function requestTarget(location: Location, group: string, request: string): string {
  return `${locationPath(location)}/instanceGroupManagers/${group}/resizeRequests/${request}`;
}

/** A fixed-length digest of the call (usernames may hold any character; the value splits on a space). */
export function bindingOf(call: RequestIdCall): string {
  return createHash("sha256")
    .update(JSON.stringify([call.caller, call.operationType, call.target]))
    .digest("hex");
}

/** The requestId key's value: the operation's member and the binding. */
export function requestIdValue(member: string, call: RequestIdCall): string {
  return `${member} ${bindingOf(call)}`;
}

/** A stored value; `binding` is absent in values written by releases before bindings. */
export function parseRequestIdValue(value: string): { readonly member: string; readonly binding?: string } {
  const space = value.indexOf(" ");
  return space < 0 ? { member: value } : { member: value.slice(0, space), binding: value.slice(space + 1) };
}

/**
 * Whether `call` is the call the stored requestId was first used for. A value without a binding (an
 * earlier release's) is held to what its Operation records: the user, the method and the target link.
 */
export function sameCall(
  stored: { readonly binding?: string },
  operation: Pick<Operation, "user" | "operationType" | "targetLink"> | undefined,
  call: RequestIdCall,
): boolean {
  if (stored.binding !== undefined) return stored.binding === bindingOf(call);
  return (
    operation !== undefined &&
    operation.user === call.caller &&
    operation.operationType === call.operationType &&
    operation.targetLink.endsWith(`/${call.target}`)
  );
}
