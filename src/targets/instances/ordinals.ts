// A StatefulSet's scale-down removes its highest ordinals, whatever a pod's deletion cost (its
// controller deletes from the end: kubernetes pkg/controller/statefulset, "scale down" in
// stateful_set_control.go). When a request's run duration ends before a later request's, lowering the
// replicas therefore removes the later request's pods, not its own. The operator cannot change that,
// so it makes the outcome true and visible instead of silent: the releasing request's surviving pods
// are handed to the requests that lost theirs (relabelled, listed on their status), and both requests
// get an Event saying which pods went and which took their place (docs/lifecycle.md "Whose instances").
// Pure: read from the requests' status.instances, the record of what each holds.
import { ordinalOf } from "../../api/instance-names.js";
import type { RequestKey } from "./view.js";

/** The pods a request holds, as its status.instances lists them. */
export interface Holding {
  readonly request: RequestKey;
  readonly pods: readonly string[];
}

/** One surviving pod of the releasing request passing to a request whose pod `replaces` went. */
export interface Handover {
  readonly pod: string;
  readonly to: RequestKey;
  readonly replaces: string;
}

const byOrdinal =
  (statefulSet: string) =>
  (a: string, b: string): number =>
    (ordinalOf(statefulSet, a) ?? 0) - (ordinalOf(statefulSet, b) ?? 0);

/**
 * What a release that left StatefulSet `statefulSet` with ordinals below `cut` (its first ordinal plus
 * its replicas) hands over: the other holders' pods at or above `cut` went, and the releasing request's
 * pods below it take their places. Lowest to lowest, so a request that succeeded later still holds the
 * higher ordinals, and its own release takes exactly its own.
 */
export function ordinalHandover(
  statefulSet: string,
  cut: number,
  releasing: Holding,
  others: readonly Holding[],
): Handover[] {
  const below = (p: string): boolean => {
    const o = ordinalOf(statefulSet, p);
    return o !== undefined && o < cut;
  };
  const survivors = releasing.pods.filter(below).sort(byOrdinal(statefulSet));
  const lost = others
    .flatMap((h) =>
      h.pods
        .filter((p) => ordinalOf(statefulSet, p) !== undefined && !below(p))
        .map((pod) => ({ pod, owner: h.request })),
    )
    .sort((a, b) => byOrdinal(statefulSet)(a.pod, b.pod));
  return lost
    .slice(0, survivors.length)
    .map((l, i) => ({ pod: survivors[i] ?? "", to: l.owner, replaces: l.pod }));
}

/** `pods` with `handovers` applied for `request`: what went replaced by what took its place, by ordinal. */
export function afterHandover(
  statefulSet: string,
  request: RequestKey,
  pods: readonly string[],
  handovers: readonly Handover[],
): string[] {
  const mine = handovers.filter((h) => h.to.namespace === request.namespace && h.to.name === request.name);
  const gone = new Set(mine.map((h) => h.replaces));
  return [...pods.filter((p) => !gone.has(p)), ...mine.map((h) => h.pod)].sort(byOrdinal(statefulSet));
}
