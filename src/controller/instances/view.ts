// Whose instances (docs/lifecycle.md "Whose instances"), pure. A group whose readiness is counted from
// Nodes knows its instances: the Nodes it counts. When an attempt succeeds, the request takes the
// newest ready Nodes that no request holds (one attempt runs per group at a time, so those are the ones
// it added) and labels them with its name; a release or rollback then removes exactly the Nodes so
// labelled, by the target kind's own mechanism:
// - DeleteNodeClaims (a Karpenter NodePool): the request's NodeClaims are deleted, then the pool's
//   replicas lowered. Karpenter's static provisioning replaces a deleted NodeClaim only while the pool
//   wants more than it runs, and its static deprovisioning picks its own victims only while it runs
//   more than the pool wants; deleting first and lowering right after leaves neither anything to do.
// - CountOnly (any other kind whose instances are Nodes): the replicas are lowered and the target's own
//   controller chooses which go; the instances are still labelled and listed.
import {
  GKE_PROVISIONING_REQUEST_LABEL,
  REQUEST_LABEL,
  REQUEST_NAMESPACE_LABEL,
} from "../../api/instance-labels.js";
import { MAX_LISTED_INSTANCES, type InstanceRef } from "../../api/resize-request.js";

/** A request, as instances name it (a Node is cluster-scoped: the namespace is on it too). */
export interface RequestKey {
  readonly namespace: string;
  readonly name: string;
}

/** One of the group's instances: a Node, and for a Karpenter NodePool the NodeClaim behind it. */
export interface ObservedInstance {
  /** The Node's name; undefined while a NodeClaim has no Node yet. */
  readonly node: string | undefined;
  readonly nodeClaim: string | undefined;
  /** The request whose label it carries. */
  readonly owner: RequestKey | undefined;
  /** Every object of the instance (its Node and NodeClaim) carries the owner's label. */
  readonly complete: boolean;
  /** The value of GKE's provisioning-request label, if set. */
  readonly gkeLabel: string | undefined;
  /** Its creation time (the NodeClaim's for a Karpenter NodePool), in milliseconds. */
  readonly createdMs: number;
  /** Counted as one of the group's ready instances. */
  readonly ready: boolean;
  /** Being deleted: neither claimed nor removed again. */
  readonly deleting: boolean;
}

export type ReleaseMechanism = "DeleteNodeClaims" | "CountOnly";

export interface InstancesView {
  readonly mechanism: ReleaseMechanism;
  readonly items: readonly ObservedInstance[];
}

/** A label write on one object (a Node or a NodeClaim), merged into its labels. */
export interface InstanceLabelWrite {
  readonly kind: "Node" | "NodeClaim";
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** The owner written in `labels`, if both of our labels are there. */
export function ownerOf(labels: Readonly<Record<string, string>> | undefined): RequestKey | undefined {
  const name = labels?.[REQUEST_LABEL];
  const namespace = labels?.[REQUEST_NAMESPACE_LABEL];
  return name && namespace ? { namespace, name } : undefined;
}

const isOwnedBy = (i: ObservedInstance, r: RequestKey): boolean =>
  i.owner?.namespace === r.namespace && i.owner.name === r.name;

/** Newest first; the name breaks ties so that every pass picks the same ones. */
const newestFirst = (a: ObservedInstance, b: ObservedInstance): number =>
  b.createdMs - a.createdMs || (a.node ?? a.nodeClaim ?? "").localeCompare(b.node ?? b.nodeClaim ?? "");

/** The request's instances that are still there, newest first. */
export function instancesOf(view: InstancesView, request: RequestKey): ObservedInstance[] {
  return view.items.filter((i) => !i.deleting && isOwnedBy(i, request)).sort(newestFirst);
}

/**
 * The instances a succeeding attempt of size `k` takes: those already labelled for it (a pass that
 * labelled them ended before its status was written), then the newest ready Nodes nobody holds.
 */
export function claimFor(view: InstancesView, request: RequestKey, k: number): ObservedInstance[] {
  const own = instancesOf(view, request);
  const free = view.items
    .filter((i) => !i.deleting && i.owner === undefined && i.ready && i.node !== undefined)
    .sort(newestFirst);
  return [...own, ...free.slice(0, Math.max(0, k - own.length))];
}

/**
 * What a rollback of an attempt started at `startedMs` removes: the instances nobody holds created since
 * then (one attempt at a time: they are its own), newest first, at most `k`. Creation times come from
 * the API server and the start from the operator's clock: `skewMs` of slack for a clock a little ahead.
 */
export function attemptInstances(
  view: InstancesView,
  startedMs: number,
  k: number,
  skewMs = 2_000,
): ObservedInstance[] {
  return view.items
    .filter((i) => !i.deleting && i.owner === undefined && i.createdMs >= startedMs - skewMs)
    .sort(newestFirst)
    .slice(0, k);
}

/** The labels a request's instances carry; GKE's too for a request a ProvisioningRequest created. */
export function labelsFor(request: RequestKey, forProvisioningRequest: boolean): Record<string, string> {
  return {
    [REQUEST_LABEL]: request.name,
    [REQUEST_NAMESPACE_LABEL]: request.namespace,
    ...(forProvisioningRequest && { [GKE_PROVISIONING_REQUEST_LABEL]: request.name }),
  };
}

/** The label writes that make `instances` carry `labels`; none for those that already do. */
export function labelWrites(
  instances: readonly ObservedInstance[],
  request: RequestKey,
  labels: Readonly<Record<string, string>>,
): InstanceLabelWrite[] {
  const wantsGke = labels[GKE_PROVISIONING_REQUEST_LABEL] !== undefined;
  return instances
    .filter((i) => !isOwnedBy(i, request) || !i.complete || (wantsGke && i.gkeLabel !== request.name))
    .flatMap((i) => [
      ...(i.nodeClaim === undefined ? [] : [{ kind: "NodeClaim" as const, name: i.nodeClaim, labels }]),
      ...(i.node === undefined ? [] : [{ kind: "Node" as const, name: i.node, labels }]),
    ]);
}

/** The NodeClaims a release of `instances` deletes (DeleteNodeClaims); none for a count-only kind. */
export function removals(view: InstancesView, instances: readonly ObservedInstance[]): string[] {
  if (view.mechanism !== "DeleteNodeClaims") return [];
  return instances.flatMap((i) => (i.nodeClaim === undefined ? [] : [i.nodeClaim]));
}

/** status.instances (and instancesTruncated) for `instances`, oldest first. */
export function listed(instances: readonly ObservedInstance[]): {
  instances: InstanceRef[];
  instancesTruncated?: true;
} {
  const refs = instances
    .flatMap((i) => (i.node === undefined ? [] : [{ kind: "Node", name: i.node, createdMs: i.createdMs }]))
    .sort((a, b) => a.createdMs - b.createdMs || a.name.localeCompare(b.name))
    .map(({ kind, name }) => ({ kind, name }));
  const list = refs.slice(0, MAX_LISTED_INSTANCES);
  return refs.length > MAX_LISTED_INSTANCES
    ? { instances: list, instancesTruncated: true }
    : { instances: list };
}
