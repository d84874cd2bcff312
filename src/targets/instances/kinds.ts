// What a group's instances are and how a release takes exactly a request's own (docs/lifecycle.md
// "Whose instances", the table): each target kind says it (targets/index.ts, identityOf); read by the
// observer (what to list) and by the group's status (its InstanceIdentity condition, below).
import type { ReleaseMechanism } from "./view.js";

/** What a group's instances are, and how a release removes a request's own; Untracked: not told apart. */
export type Identity =
  | { readonly instances: "Node" | "Pod" | "Machine"; readonly mechanism: ReleaseMechanism }
  | { readonly instances: "Untracked" };

/** The group's InstanceIdentity condition for `identity` (the target's kind and name in messages). */
export function identityCondition(
  identity: Identity,
  target: string,
): { status: "True" | "False"; reason: string; message: string } {
  if (identity.instances === "Untracked")
    return {
      status: "False",
      reason: "CountOnly",
      message: `${target}'s instances are not told apart: a release lowers its replicas and its own controller chooses which instances go.`,
    };
  const what = { Node: "Nodes", Pod: "pods", Machine: "Machines" }[identity.instances];
  if (identity.mechanism === "CountOnly")
    return {
      status: "False",
      reason: "CountOnly",
      message: `A request's ${what} carry its name and are listed, but a release lowers ${target}'s replicas and its own controller chooses which go.`,
    };
  if (identity.mechanism === "HighestOrdinals")
    return {
      status: "False",
      reason: "LastInFirstOut",
      message: `A request's pods carry its name and are listed; ${target} removes its highest ordinals first, so a request released before a later one takes the later one's pods and hands it its own (both requests get an Event, the later one the InstancesReplaced condition).`,
    };
  const how = {
    DeleteNodeClaims: "its NodeClaims are deleted with the pool lowered",
    PodDeletionCost: "they get the lowest pod-deletion-cost before the replicas are lowered",
    DeleteMachineAnnotation:
      "they are annotated cluster.x-k8s.io/delete-machine before the replicas are lowered",
  }[identity.mechanism];
  return {
    status: "True",
    reason: "OwnInstances",
    message: `A request's ${what} carry its name and are listed; when it releases them, exactly those leave ${target}: ${how}.`,
  };
}
