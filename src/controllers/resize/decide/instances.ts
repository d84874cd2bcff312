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
import type { RequestDraft } from "./draft.js";
import type { Pass, Turn } from "./pass.js";
import type { Plan, ScaleChange } from "./plan.js";

/** A succeeding attempt of size `k` makes its instances its own: listed on its status, labelled. */
export function claimInstances(d: RequestDraft, pass: Pass, turn: Turn, k: number): Turn {
  const view = pass.s.instances;
  if (!view) return turn;
  const request = { namespace: pass.s.namespace, name: d.name };
  const mine = claimFor(
    view,
    request,
    k,
    d.view.spec.instances?.map((i) => i.name),
  );
  d.patch(listed(mine));
  const labels = labelsFor(request, d.view.forProvisioningRequest);
  return { ...turn, labels: [...turn.labels, ...labelWrites(mine, request, labels)] };
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
export function ownReady(d: RequestDraft, pass: Pass, k: number): number | undefined {
  const view = pass.s.instances;
  if (view?.mechanism !== "DeleteMachineAnnotation") return undefined;
  const request = { namespace: pass.s.namespace, name: d.name };
  return claimFor(
    view,
    request,
    k,
    d.view.spec.instances?.map((i) => i.name),
  ).length;
}

/** The removal that goes with a scale taking `instances` away (none when nothing is to be deleted). */
function removalOf(pass: Pass, instances: readonly ObservedInstance[]): ScaleChange["removal"] {
  const view = pass.s.instances;
  const removal = view && kindRemovalOf(view, instances);
  if (!view || !removal) return undefined;
  // The target's capacity limit is held while deletions of the request's own are under way (targets/kind.ts).
  const hold = removal.nodeClaims.length > 0 ? pass.s.limit?.hold : undefined;
  return { ...removal, hold };
}

/** What a release lowering the target by `count` removes: the request's own, newest first. */
export function releaseRemoval(pass: Pass, request: string, count: number): ScaleChange["removal"] {
  const view = pass.s.instances;
  if (!view || count <= 0) return undefined;
  const own = instancesOf(view, { namespace: pass.s.namespace, name: request });
  return removalOf(pass, own.slice(0, count));
}

/** What a rollback of an attempt started at `startedMs`, of size `k`, removes. */
export function rollbackRemoval(pass: Pass, startedMs: number, k: number): ScaleChange["removal"] {
  const view = pass.s.instances;
  return view && removalOf(pass, attemptInstances(view, startedMs, k));
}

/** A held capacity limit is given back once a pass removes nothing more. */
export function targetPatchOf(pass: Pass, scale: ScaleChange | undefined): Plan["targetPatch"] {
  return scale?.removal?.hold ? undefined : pass.s.limit?.giveBack;
}
