// Whose instances (docs/lifecycle.md "Whose instances"), pure. A group knows its instances when its
// readiness is counted from Nodes (the Nodes it counts) or its target is an apps/v1 workload (the pods
// its selector selects). When an attempt succeeds, the request takes the newest ready instances that no
// request holds (one attempt runs per group at a time, so those are the ones it added) and labels them
// with its name; a release or rollback then removes exactly those, by the target kind's own mechanism:
// - DeleteNodeClaims (a Karpenter NodePool): the request's NodeClaims are deleted with the pool's node
//   limit held, then the pool lowered (node-limit.ts says why).
// - PodDeletionCost (a Deployment or ReplicaSet): the request's pods get the lowest
//   controller.kubernetes.io/pod-deletion-cost, then the replicas are lowered: among pods equally
//   scheduled, running and ready, the ReplicaSet controller deletes the lowest cost first.
// - HighestOrdinals (a StatefulSet): the replicas are lowered and the StatefulSet removes its highest
//   ordinals; an earlier request's release hands its surviving pods to the requests whose pods went
//   (ordinals.ts).
// - DeleteMachineAnnotation (a Cluster API MachineDeployment or MachineSet): the request's Machines get
//   cluster.x-k8s.io/delete-machine, then the replicas are lowered: the MachineSet controller deletes
//   annotated Machines before any other, whatever its deletion order (machineset_deletion_order.go).
// - CountOnly (any other kind whose instances are Nodes): the replicas are lowered and the kind's
//   controller chooses; the instances are still labelled and listed.
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

/** One of the group's instances: a Node (for a Karpenter NodePool with its NodeClaim), a pod or a Machine. */
export interface ObservedInstance {
  /** The pod's name, for a workload whose instances are pods. */
  readonly pod?: string | undefined;
  /** The Machine's name, for a Cluster API MachineDeployment or MachineSet. */
  readonly machine?: string | undefined;
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

export type ReleaseMechanism =
  "DeleteNodeClaims" | "PodDeletionCost" | "DeleteMachineAnnotation" | "HighestOrdinals" | "CountOnly";

/** Kubernetes' annotation ranking a ReplicaSet's pods for deletion (int32; lower goes first). */
export const POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";
/** The lowest cost there is: a releasing request's pods go before any other. */
const FIRST_TO_GO = "-2147483648";
/** Cluster API's annotation: a Machine carrying it (any value) is deleted first when its set scales down. */
export const DELETE_MACHINE = "cluster.x-k8s.io/delete-machine";

export interface InstancesView {
  readonly mechanism: ReleaseMechanism;
  readonly items: readonly ObservedInstance[];
}

/**
 * Labels or annotations merged into one object of an instance (a pod or a Machine lives in the group's
 * namespace; a Machine is written at its MachineDeployment's API version).
 */
export interface InstanceWrite {
  readonly kind: "Node" | "NodeClaim" | "Pod" | "Machine";
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** An object of an instance that a removal deletes itself (only a NodePool's NodeClaims, DeleteNodeClaims). */
export interface InstanceObject {
  readonly kind: "NodeClaim";
  readonly name: string;
}

/**
 * What a release or rollback does to the instances it removes, before the replicas are lowered, in words
 * that name no kind (the decision reads it): the instances' own objects it deletes, while which the
 * target's capacity limit is held (targets/kind.ts, CapacityLimit), and the writes that put them first
 * in line.
 */
export interface Removal {
  /** The instances' own objects deleted before the replicas are lowered; empty when the kind's controller deletes them. */
  readonly deletes: readonly InstanceObject[];
  readonly writes: readonly InstanceWrite[];
}

/** The owner written in `labels`, if both of our labels are there. */
export function ownerOf(labels: Readonly<Record<string, string>> | undefined): RequestKey | undefined {
  const name = labels?.[REQUEST_LABEL];
  const namespace = labels?.[REQUEST_NAMESPACE_LABEL];
  return name && namespace ? { namespace, name } : undefined;
}

/** Whether two objects' owner labels name the same request (or both none). */
export const sameOwner = (a: RequestKey | undefined, b: RequestKey | undefined): boolean =>
  a?.namespace === b?.namespace && a?.name === b?.name;

/** An object's creation time in milliseconds; 0 when unknown. */
export const createdMs = (timestamp: string | undefined): number => Date.parse(timestamp ?? "") || 0;

const isOwnedBy = (i: ObservedInstance, r: RequestKey): boolean =>
  i.owner?.namespace === r.namespace && i.owner.name === r.name;

/** Newest first; the name breaks ties so that every pass picks the same ones. */
const newestFirst = (a: ObservedInstance, b: ObservedInstance): number =>
  b.createdMs - a.createdMs || nameOf(a).localeCompare(nameOf(b));

const nameOf = (i: ObservedInstance): string => i.pod ?? i.machine ?? i.node ?? i.nodeClaim ?? "";

/** The request's instances that are still there, newest first. */
export function instancesOf(view: InstancesView, request: RequestKey): ObservedInstance[] {
  return view.items.filter((i) => !i.deleting && isOwnedBy(i, request)).sort(newestFirst);
}

/**
 * The instances a succeeding attempt of size `k` takes: those already labelled for it (a pass that
 * labelled them ended before its status was written), then the newest ready Nodes nobody holds; for
 * a request that names its instances (a StatefulSet's next ordinals, api/instance-names.ts), those.
 */
export function claimFor(
  view: InstancesView,
  request: RequestKey,
  k: number,
  names?: readonly string[],
): ObservedInstance[] {
  const own = instancesOf(view, request);
  const named = (i: ObservedInstance): boolean => names === undefined || names.includes(nameOf(i));
  const free = view.items
    .filter(
      (i) =>
        !i.deleting &&
        i.owner === undefined &&
        i.ready &&
        (i.node ?? i.pod ?? i.machine) !== undefined &&
        named(i),
    )
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
): InstanceWrite[] {
  const wantsGke = labels[GKE_PROVISIONING_REQUEST_LABEL] !== undefined;
  return instances
    .filter((i) => !isOwnedBy(i, request) || !i.complete || (wantsGke && i.gkeLabel !== request.name))
    .flatMap((i) => [
      ...(i.pod === undefined ? [] : [{ kind: "Pod" as const, name: i.pod, labels }]),
      ...(i.machine === undefined ? [] : [{ kind: "Machine" as const, name: i.machine, labels }]),
      ...(i.nodeClaim === undefined ? [] : [{ kind: "NodeClaim" as const, name: i.nodeClaim, labels }]),
      ...(i.node === undefined ? [] : [{ kind: "Node" as const, name: i.node, labels }]),
    ]);
}

/** The write that puts `i` first in line when its workload scales down, by the kind's mechanism. */
function firstToGo(mechanism: ReleaseMechanism, i: ObservedInstance): InstanceWrite | undefined {
  if (mechanism === "PodDeletionCost" && i.pod !== undefined)
    return { kind: "Pod", name: i.pod, annotations: { [POD_DELETION_COST]: FIRST_TO_GO } };
  if (mechanism === "DeleteMachineAnnotation" && i.machine !== undefined)
    return { kind: "Machine", name: i.machine, annotations: { [DELETE_MACHINE]: "true" } };
  return undefined;
}

/** What removing `instances` takes, by the kind's mechanism; undefined for a count-only kind. */
export function removalOf(view: InstancesView, instances: readonly ObservedInstance[]): Removal | undefined {
  if (view.mechanism === "DeleteNodeClaims") {
    const deletes = instances.flatMap((i): InstanceObject[] =>
      i.nodeClaim === undefined ? [] : [{ kind: "NodeClaim", name: i.nodeClaim }],
    );
    return deletes.length === 0 ? undefined : { deletes, writes: [] };
  }
  const writes = instances.flatMap((i) => firstToGo(view.mechanism, i) ?? []);
  return writes.length === 0 ? undefined : { deletes: [], writes };
}

/** status.instances (and instancesTruncated) for `instances`, oldest first. */
export function listed(instances: readonly ObservedInstance[]): {
  instances: InstanceRef[];
  instancesTruncated?: true;
} {
  const refs = instances
    .flatMap((i) => {
      if (i.pod !== undefined) return [{ kind: "Pod", name: i.pod, createdMs: i.createdMs }];
      if (i.machine !== undefined) return [{ kind: "Machine", name: i.machine, createdMs: i.createdMs }];
      return i.node === undefined ? [] : [{ kind: "Node", name: i.node, createdMs: i.createdMs }];
    })
    .sort((a, b) => a.createdMs - b.createdMs || a.name.localeCompare(b.name))
    .map(({ kind, name }) => ({ kind, name }));
  const list = refs.slice(0, MAX_LISTED_INSTANCES);
  return refs.length > MAX_LISTED_INSTANCES
    ? { instances: list, instancesTruncated: true }
    : { instances: list };
}
