// The steps' side of whose instances (../instances/view.ts): which instances a succeeding attempt takes
// and labels, and which NodeClaims a release or rollback deletes. Nothing happens for a group whose
// instances were not read (its readiness is not counted from Nodes): it stays count-only.
import {
  attemptInstances,
  claimFor,
  instancesOf,
  labelsFor,
  labelWrites,
  listed,
  removals,
} from "../instances/view.js";
import type { RequestDraft } from "./draft.js";
import type { Pass, Turn } from "./pass.js";

/** A succeeding attempt of size `k` makes its instances its own: listed on its status, labelled. */
export function claimInstances(d: RequestDraft, pass: Pass, turn: Turn, k: number): Turn {
  const view = pass.s.instances;
  if (!view) return turn;
  const request = { namespace: pass.s.namespace, name: d.name };
  const mine = claimFor(view, request, k);
  d.patch(listed(mine));
  const labels = labelsFor(request, d.view.forProvisioningRequest);
  return { ...turn, labels: [...turn.labels, ...labelWrites(mine, request, labels)] };
}

/** The NodeClaims a release lowering the target by `count` deletes: the request's own, newest first. */
export function releaseRemovals(pass: Pass, request: string, count: number): string[] {
  const view = pass.s.instances;
  if (!view || count <= 0) return [];
  return removals(view, instancesOf(view, { namespace: pass.s.namespace, name: request }).slice(0, count));
}

/** The NodeClaims a rollback of an attempt started at `startedMs`, of size `k`, deletes. */
export function rollbackRemovals(pass: Pass, startedMs: number, k: number): string[] {
  const view = pass.s.instances;
  return view ? removals(view, attemptInstances(view, startedMs, k)) : [];
}
