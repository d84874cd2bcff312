// Named instances (spec.instances[].name, the compute API's per-instance configs): one rule, read by the
// REST insert (a 400 before anything is created) and by the controller (a request created with kubectl
// fails at admission, and its names are checked against the target when its attempt starts).
//
// Only a StatefulSet lets the caller know an instance's name before it exists: it names its pods
// <name>-<ordinal> and a scale-up from r replicas adds the ordinals start+r, start+r+1, … (start is
// spec.ordinals.start, 0 when unset). Every other kind names its instances itself: a ReplicaSet's pods
// get a random suffix, Karpenter's NodeClaims (and so their Nodes) too, and a Node is named by whatever
// provisions it. There the names would be accepted and ignored, so they are refused with the reason.

export interface NamingTarget {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

const isStatefulSet = (ref: NamingTarget): boolean =>
  ref.apiVersion === "apps/v1" && ref.kind === "StatefulSet";

/** The ordinal `pod` has as a pod of StatefulSet `statefulSet`, if it is named as one. */
export function ordinalOf(statefulSet: string, pod: string): number | undefined {
  const prefix = `${statefulSet}-`;
  if (!pod.startsWith(prefix)) return undefined;
  const digits = pod.slice(prefix.length);
  return /^(0|[1-9][0-9]{0,8})$/.test(digits) ? Number(digits) : undefined;
}

/**
 * Why a group whose target is `ref` cannot create instances under `names`, or undefined when it can (a
 * StatefulSet whose pod names they are). `countsNodes`: the group's instances are Nodes
 * (spec.readiness.nodeSelector), which no request can name.
 */
export function namingRefusal(
  ref: NamingTarget,
  countsNodes: boolean,
  names: readonly string[],
): string | undefined {
  const target = `${ref.kind}/${ref.name}`;
  const instead = `ask for a number of instances with resizeBy: ${String(names.length)} instead`;
  if (countsNodes)
    return `The group's instances are the Nodes it counts, and Nodes are named by what provisions them (a Karpenter NodeClaim gets a random suffix): instance names cannot be honoured; ${instead}.`;
  if (!isStatefulSet(ref))
    return `${target} names its instances itself, so instance names cannot be honoured (only a StatefulSet's pods have names known in advance); ${instead}.`;
  const stray = names.filter((n) => ordinalOf(ref.name, n) === undefined);
  if (stray.length > 0)
    return `StatefulSet ${ref.name} names its pods ${ref.name}-<ordinal>; ${stray.map((n) => `"${n}"`).join(", ")} cannot be one of them.`;
  return undefined;
}

/** The names a StatefulSet gives the `count` pods a scale-up from `replicas` adds. */
export function nextOrdinalNames(
  statefulSet: string,
  replicas: number,
  firstOrdinal: number,
  count: number,
): string[] {
  return Array.from({ length: count }, (_, i) => `${statefulSet}-${String(firstOrdinal + replicas + i)}`);
}

/**
 * Why an attempt from `replicas` would not create the pods `names` names (a StatefulSet adds its next
 * ordinals only), or undefined when it creates exactly those.
 */
export function nextOrdinalsMismatch(
  statefulSet: string,
  replicas: number,
  firstOrdinal: number,
  names: readonly string[],
): string | undefined {
  const next = nextOrdinalNames(statefulSet, replicas, firstOrdinal, names.length);
  const wanted = new Set(names);
  if (next.every((n) => wanted.has(n))) return undefined;
  return `StatefulSet ${statefulSet} has ${String(replicas)} replicas, so its next ${next.length === 1 ? "pod is" : "pods are"} ${next.join(", ")}; the request names ${[...names].sort().join(", ")}, which it would not create.`;
}
