// Sizing a ProvisioningRequest's demand in instances of a group (pure): every pod set's pods, each
// with its containers' requests, packed first-fit-decreasing onto instances of the group's shape. A pod
// that fits no instance (a nodeSelector the instances do not satisfy, a taint it does not tolerate, a
// resource it needs more of than one instance has) makes the whole request infeasible: all or nothing.
import type { InstanceShape, Taint } from "../../api/instance-shape.js";
import type { Container, PodSpec, Toleration } from "../../api/provisioning-request.js";
import { parseQuantity } from "../../api/quantity.js";

/** One pod set: `count` pods of one template. */
export interface PodSetDemand {
  /** The PodTemplate's name (messages name it). */
  readonly name: string;
  readonly count: number;
  readonly spec: PodSpec;
}

export type Resources = Readonly<Record<string, number>>;

export type Sizing =
  | { readonly fits: true; readonly instances: number; readonly pods: number }
  | { readonly fits: false; readonly message: string };

/** Kubernetes counts every pod against the node's `pods` allocatable. */
const PODS = "pods";

function requestsOf(container: Container): Resources {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(container.resources?.requests ?? {})) {
    const q = parseQuantity(value);
    if (q !== undefined && q > 0) out[name] = q;
  }
  return out;
}

function add(into: Record<string, number>, more: Resources): void {
  for (const [name, q] of Object.entries(more)) into[name] = (into[name] ?? 0) + q;
}

/**
 * What one pod asks a node for, as the scheduler counts it: the sum of its containers and restartable
 * (sidecar) init containers, at least the largest one-shot init container (they run before, one at a
 * time), plus the pod overhead.
 */
export function podRequests(spec: PodSpec): Resources {
  const running: Record<string, number> = {};
  for (const c of spec.containers) add(running, requestsOf(c));
  const sidecars: Record<string, number> = {};
  const initPeak: Record<string, number> = {};
  for (const c of spec.initContainers ?? []) {
    if (c.restartPolicy === "Always") {
      add(sidecars, requestsOf(c));
      continue;
    }
    // A one-shot init container runs beside the sidecars started before it.
    const during: Record<string, number> = { ...sidecars };
    add(during, requestsOf(c));
    for (const [name, q] of Object.entries(during)) initPeak[name] = Math.max(initPeak[name] ?? 0, q);
  }
  add(running, sidecars);
  const total: Record<string, number> = { ...running };
  for (const [name, q] of Object.entries(initPeak)) total[name] = Math.max(total[name] ?? 0, q);
  for (const [name, value] of Object.entries(spec.overhead ?? {})) {
    const q = parseQuantity(value);
    if (q !== undefined && q > 0) total[name] = (total[name] ?? 0) + q;
  }
  total[PODS] = (total[PODS] ?? 0) + 1;
  return total;
}

/** The shape's allocatable in numbers; `pods` is unbounded unless declared. */
export function capacityOf(shape: InstanceShape): Resources {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(shape.allocatable)) out[name] = parseQuantity(value) ?? 0;
  return out;
}

function tolerates(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (!t.key) return t.operator === "Exists";
    if (t.key !== taint.key) return false;
    return t.operator === "Exists" || (t.value ?? "") === (taint.value ?? "");
  });
}

/** Why a pod of this spec can never run on an instance of `shape`; undefined when it can. */
export function misfit(spec: PodSpec, shape: InstanceShape): string | undefined {
  const labels = shape.labels ?? {};
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    if (labels[key] !== value)
      return `its nodeSelector ${key}=${value} does not match the instances' labels (${key}=${labels[key] ?? "<none>"})`;
  }
  for (const taint of shape.taints ?? []) {
    if (taint.effect === "PreferNoSchedule") continue;
    if (!tolerates(spec.tolerations ?? [], taint))
      return `it does not tolerate the instances' taint ${taint.key}${taint.value ? `=${taint.value}` : ""}:${taint.effect}`;
  }
  const capacity = capacityOf(shape);
  for (const [name, q] of Object.entries(podRequests(spec))) {
    if (name === PODS && capacity[PODS] === undefined) continue;
    const has = capacity[name] ?? 0;
    if (q > has + 1e-9)
      return `one pod requests ${formatAmount(q)} ${name} and an instance has ${formatAmount(has)} (${formatAmount(q - has)} short)`;
  }
  return undefined;
}

function formatAmount(q: number): string {
  return Number.isInteger(q) ? String(q) : String(Number(q.toPrecision(6)));
}

/** The largest share of an instance a pod takes: first-fit-decreasing packs the big pods first. */
function dominantShare(req: Resources, capacity: Resources): number {
  let share = 0;
  for (const [name, q] of Object.entries(req)) {
    const c = capacity[name];
    if (c !== undefined && c > 0) share = Math.max(share, q / c);
  }
  return share;
}

/**
 * How many instances of `shape` hold every pod of `podSets` (first-fit decreasing over all pods), or why
 * they cannot. Pods of one set are identical, so each instance takes as many of a set as fit at once.
 */
export function sizeDemand(podSets: readonly PodSetDemand[], shape: InstanceShape): Sizing {
  const capacity = capacityOf(shape);
  const sets: { req: Resources; count: number; share: number }[] = [];
  let pods = 0;
  for (const set of podSets) {
    if (set.count <= 0) continue;
    const why = misfit(set.spec, shape);
    if (why)
      return { fits: false, message: `A pod of pod set ${set.name} fits no instance of the group: ${why}.` };
    const req = podRequests(set.spec);
    sets.push({ req, count: set.count, share: dominantShare(req, capacity) });
    pods += set.count;
  }
  sets.sort((a, b) => b.share - a.share);
  const free: Record<string, number>[] = [];
  for (const set of sets) {
    let left = set.count;
    for (const room of free) {
      if (left === 0) break;
      left -= place(room, set.req, left);
    }
    while (left > 0) {
      const room: Record<string, number> = { ...capacity };
      const placed = place(room, set.req, left);
      // misfit() above guarantees a fresh instance takes at least one pod.
      if (placed === 0) return { fits: false, message: "internal: a pod that fits no empty instance" };
      free.push(room);
      left -= placed;
    }
  }
  return { fits: true, instances: free.length, pods };
}

/** Places up to `max` pods of `req` into `room` (mutated); returns how many. */
function place(room: Record<string, number>, req: Resources, max: number): number {
  let n = max;
  for (const [name, q] of Object.entries(req)) {
    const has = room[name];
    if (has === undefined) continue; // only `pods` may be undeclared (misfit checked the others)
    n = Math.min(n, Math.floor((has + 1e-9) / q));
  }
  for (const [name, q] of Object.entries(req)) if (room[name] !== undefined) room[name] -= n * q;
  return n;
}
