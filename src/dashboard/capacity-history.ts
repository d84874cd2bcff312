// Capacity over time per group, for the group page's chart: recorded from the group informer's changes
// since this replica started, kept apart from the live stream (which only relays changes) so that
// each does one job and the history is kept whether or not anyone is connected.
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { realClock, type Clock } from "../runtime/clock.js";
import type { Informer } from "../runtime/informer.js";
import { groupSummary, type CapacityPoint, type GroupSummary } from "./views.js";

/** A point per group whenever one of its values changes, bounded per group (oldest dropped). */
export class CapacityHistory {
  private readonly series = new Map<string, CapacityPoint[]>();

  constructor(private readonly limit = 720) {}

  record(g: GroupSummary, t: number): void {
    const key = `${g.namespace}/${g.name}`;
    const points = this.series.get(key) ?? [];
    const last = points.at(-1);
    const point: CapacityPoint = {
      t,
      targetSize: g.targetSize,
      ready: g.ready,
      max: g.max,
      queued: g.queued,
    };
    if (
      last &&
      last.targetSize === point.targetSize &&
      last.ready === point.ready &&
      last.max === point.max &&
      last.queued === point.queued
    )
      return;
    points.push(point);
    if (points.length > this.limit) points.splice(0, points.length - this.limit);
    this.series.set(key, points);
  }

  forget(namespace: string, name: string): void {
    this.series.delete(`${namespace}/${name}`);
  }

  points(namespace: string, name: string): readonly CapacityPoint[] {
    return this.series.get(`${namespace}/${name}`) ?? [];
  }
}

/** Records every added or changed group in `history` and forgets deleted ones; returns the unsubscribe. */
export function recordCapacity(
  groups: Informer<InstanceGroupManager>,
  history: CapacityHistory,
  clock: Clock = realClock,
): () => void {
  const record = (g: InstanceGroupManager): void => {
    history.record(groupSummary(g), clock.now());
  };
  return groups.addEventHandler({
    onAdd: record,
    onUpdate: (_old, g) => {
      record(g);
    },
    onDelete: (g) => {
      history.forget(g.metadata.namespace ?? "", g.metadata.name ?? "");
    },
  });
}
