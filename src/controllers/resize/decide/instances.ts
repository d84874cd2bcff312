// The steps' side of whose instances (../instances/view.ts): which instances a succeeding attempt takes
// and labels, and what a release or rollback removes with its scale. Nothing happens for a group whose
// instances were not read (its readiness is not counted from Nodes): it stays count-only.
import {
  attemptInstances,
  claimFor,
  instancesOf,
  labelsFor,
  labelWrites,
  listed,
  removalOf as kindRemovalOf,
  type ObservedInstance,
} from "../../../targets/instances/view.js";
import type { GroupSnapshot } from "../snapshot.js";
import type { PlanDraft } from "./plan-draft.js";
import type { RequestDraft } from "./request-draft.js";
import type { Plan, ScaleChange } from "./plan.js";

/** A succeeding attempt of size `k` makes its instances its own: listed on its status, labelled. */
export function claimInstances(d: RequestDraft, s: GroupSnapshot, plan: PlanDraft, k: number): PlanDraft {
  const view = s.instances;
  if (!view) return plan;
  const request = { namespace: s.namespace, name: d.name };
  const mine = claimFor(
    view,
    request,
    k,
    d.view.spec.instances?.map((i) => i.name),
  );
  d.patch(listed(mine));
  const labels = labelsFor(request, d.view.forProvisioningRequest);
  return { ...plan, labels: [...plan.labels, ...labelWrites(mine, request, labels)] };
}

/**
 * How many of the `k` instances a succeeding attempt would take are there and ready; undefined where the
 * target's ready count alone decides. Only where a release deletes the request's own by annotation
 * (DeleteMachineAnnotation): that target's status counts the instances a release is deleting as ready
 * for seconds after the scale-down, and each attempt's instances are new objects with new names. Where
 * the highest ordinals go, a pod is re-created under an ordinal a request's label may still be on, and
 * the load and crash suites saw attempts there wait for ever for pods of their own: pods and Nodes go
 * by the target's count, as before.
 */
export function ownReady(d: RequestDraft, s: GroupSnapshot, k: number): number | undefined {
  const view = s.instances;
  if (view?.mechanism !== "DeleteMachineAnnotation") return undefined;
  const request = { namespace: s.namespace, name: d.name };
  return claimFor(
    view,
    request,
    k,
    d.view.spec.instances?.map((i) => i.name),
  ).length;
}

/** The removal that goes with a scale taking `instances` away (none when nothing is to be deleted). */
function removalOf(s: GroupSnapshot, instances: readonly ObservedInstance[]): ScaleChange["removal"] {
  const view = s.instances;
  const removal = view && kindRemovalOf(view, instances);
  if (!view || !removal) return undefined;
  // The target's capacity limit is held while the removal deletes the instances' own objects (targets/kind.ts).
  const hold = removal.deletes.length > 0 ? s.limit?.hold : undefined;
  return { ...removal, hold };
}

/** What a release lowering the target by `count` removes: the request's own, newest first. */
export function releaseRemoval(s: GroupSnapshot, request: string, count: number): ScaleChange["removal"] {
  const view = s.instances;
  if (!view || count <= 0) return undefined;
  const own = instancesOf(view, { namespace: s.namespace, name: request });
  return removalOf(s, own.slice(0, count));
}

/** What a rollback of an attempt started at `startedMs`, of size `k`, removes. */
export function rollbackRemoval(s: GroupSnapshot, startedMs: number, k: number): ScaleChange["removal"] {
  const view = s.instances;
  return view && removalOf(s, attemptInstances(view, startedMs, k));
}

/** A held capacity limit is given back once a pass removes nothing more. */
export function targetPatchOf(s: GroupSnapshot, scale: ScaleChange | undefined): Plan["targetPatch"] {
  return scale?.removal?.hold ? undefined : s.limit?.giveBack;
}
