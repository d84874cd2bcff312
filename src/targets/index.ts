// The target kinds the operator knows, in the order they are asked: the first whose `matches` says yes
// serves a group's target; `scale` (any kind with /scale) comes last and serves every other kind.
import type { Identity } from "./instances/kinds.js";
import { apps } from "./apps.js";
import { clusterApi } from "./cluster-api.js";
import type { TargetKind, TargetRef } from "./kind.js";
import { karpenter } from "./karpenter.js";
import { scale } from "./scale.js";

export const TARGET_KINDS: readonly TargetKind[] = [apps, karpenter, clusterApi, scale];

/** The kind module serving a target of `ref`'s kind. */
export function targetKindOf(ref: Omit<TargetRef, "name">): TargetKind {
  return TARGET_KINDS.find((k) => k.matches(ref)) ?? scale;
}

/** What a group's instances are and how a release removes a request's own (docs/lifecycle.md "Whose instances"). */
export function identityOf(ref: Omit<TargetRef, "name">, countsNodes: boolean): Identity {
  return targetKindOf(ref).identity(ref, countsNodes);
}
