// apps/v1 workloads as a target kind (kind.ts): a Deployment's, ReplicaSet's or StatefulSet's instances
// are its pods, placed by the scheduler (pods.ts says why they are missing). A release gives a
// Deployment's or ReplicaSet's own pods the lowest pod-deletion-cost; a StatefulSet removes its highest
// ordinals whatever a pod's cost (instances/ordinals.ts), from its first ordinal (spec.ordinals.start).
import type { Unstructured } from "../runtime/builtin-kinds.js";
import type { ReleaseMechanism } from "./instances/view.js";
import type { ScalePaths, TargetKind } from "./kind.js";
import { podsCapacity } from "./pods.js";

const APPS = "apps/v1";

/** The workloads whose instances are pods, and how a release takes a request's own. */
const POD_KINDS: ReadonlyMap<string, ReleaseMechanism> = new Map([
  ["Deployment", "PodDeletionCost"],
  ["ReplicaSet", "PodDeletionCost"],
  // Its controller removes the highest ordinals whatever a pod's cost (ordinals.ts).
  ["StatefulSet", "HighestOrdinals"],
]);

/** A StatefulSet's spec.ordinals.start, 0 when unset (named instances are checked against its next ordinals). */
function firstOrdinalOf(object: Unstructured): { firstOrdinal?: number } {
  if (object.apiVersion !== APPS || object.kind !== "StatefulSet") return {};
  const ordinals = (object as { spec?: { ordinals?: { start?: unknown } } }).spec?.ordinals;
  return { firstOrdinal: typeof ordinals?.start === "number" ? ordinals.start : 0 };
}

/** As the API server's own code serves their /scale. */
const SCALE_PATHS: ScalePaths = {
  specReplicas: "spec.replicas",
  statusReplicas: "status.replicas",
  labelSelector: "spec.selector",
};

export const apps: TargetKind = {
  name: "apps",
  scalePaths: new Map([...POD_KINDS.keys()].map((kind) => [kind, SCALE_PATHS])),
  matches: (ref) => ref.apiVersion === APPS && POD_KINDS.has(ref.kind),
  identity(ref, countsNodes) {
    if (countsNodes) return { instances: "Node", mechanism: "CountOnly" };
    const mechanism = POD_KINDS.get(ref.kind);
    return mechanism === undefined ? { instances: "Untracked" } : { instances: "Pod", mechanism };
  },
  details: firstOrdinalOf,
  capacity: podsCapacity,
};
