// Domain metrics of the resize controller. Counts that describe the present (requests by state, queue
// length per group, the head's ETA, the event recorder's counters) are read at scrape time from the
// informer caches (and the counters they keep) and the recorder, so they are right on every replica —
// leader or not — and cannot drift. Attempt outcomes, provisioning durations, queue waits and queue deadlines are moments,
// recorded from the plan events the executor reports (only the leader executes plans).
import type { FutureReservation } from "../api/future-reservation.js";
import { Counter as PromCounter, Gauge as PromGauge } from "prom-client";
import { ResizeRequestCondition } from "../api/conditions.js";
import type { InstanceGroupManager } from "../api/instance-group-manager.js";
import { ResizeRequestState } from "../api/resize-request-fields.js";
import type { ResizeRequest } from "../api/resize-request.js";
import type { ResizeControllerOptions } from "../controllers/resize/controller.js";
import { resizeEvents } from "../controllers/events.js";
import { BY_NAMESPACE_AND_STATE, IN_PLAY_BY_GROUP } from "../cache/indexes.js";
import { groupQueue } from "../cache/group-queue.js";
import type { RecorderStats } from "../events/recorder.js";
import type { MetricsSink } from "../runtime/metrics.js";
import { splitKey, type Lister } from "../runtime/store.js";
import { DOMAIN_METRIC, HELP, type PromMetrics } from "./metrics.js";

/** What the resize controller tells of each Event it records (its executor's notice). */
type PlanEventNotice = Parameters<NonNullable<ResizeControllerOptions["onPlanEvent"]>>[0];

const STATES = ResizeRequestState.options;

export interface DomainSources {
  readonly requests: Lister<ResizeRequest>;
  readonly groups: Lister<InstanceGroupManager>;
  /** FutureReservations, where served: the head's ETA counts approved bookings' windows. */
  readonly bookings?: Lister<FutureReservation>;
  readonly recorderStats: () => RecorderStats;
  /** The clock of the head-ETA gauge (ms since the epoch). */
  readonly now?: () => number;
}

const isQueued = (rr: ResizeRequest): boolean =>
  rr.status?.conditions?.some((c) => c.type === ResizeRequestCondition.Queued && c.status === "True") ??
  false;

/** Registers the scrape-time families on `metrics`' registry. */
export function registerDomainMetrics(metrics: PromMetrics, sources: DomainSources): void {
  const registers = [metrics.registry];
  new PromGauge({
    name: DOMAIN_METRIC.requests,
    help: HELP[DOMAIN_METRIC.requests] ?? "",
    labelNames: ["namespace", "state"],
    registers,
    collect() {
      // From the cache's counter, not a walk over every request: a scrape costs the number of
      // namespaces, not of requests (a walk took 21 ms per scrape at 250,000).
      const counts = new Map<string, Record<string, number>>();
      for (const [key, n] of sources.requests.counts(BY_NAMESPACE_AND_STATE)) {
        const { namespace = "", name: state } = splitKey(key);
        const row = counts.get(namespace) ?? Object.fromEntries(STATES.map((s) => [s, 0]));
        counts.set(namespace, row);
        row[state] = n;
      }
      this.reset();
      for (const [namespace, row] of counts)
        for (const [state, n] of Object.entries(row)) this.set({ namespace, state }, n);
    },
  });
  new PromGauge({
    name: DOMAIN_METRIC.queueLength,
    help: HELP[DOMAIN_METRIC.queueLength] ?? "",
    labelNames: ["namespace", "group"],
    registers,
    collect() {
      this.reset();
      for (const group of sources.groups.list()) {
        const namespace = group.metadata.namespace ?? "";
        const name = group.metadata.name ?? "";
        const queued = sources.requests
          .byIndex(IN_PLAY_BY_GROUP, `${namespace}/${name}`)
          .filter(isQueued).length;
        this.set({ namespace, group: name }, queued);
      }
    },
  });
  // The queue model on the caches at scrape time, per group: no ETA is stored anywhere.
  new PromGauge({
    name: DOMAIN_METRIC.queueHeadEta,
    help: HELP[DOMAIN_METRIC.queueHeadEta] ?? "",
    labelNames: ["namespace", "group", "basis"],
    registers,
    collect() {
      this.reset();
      const now = (sources.now ?? Date.now)();
      for (const group of sources.groups.list()) {
        const namespace = group.metadata.namespace ?? "";
        const name = group.metadata.name ?? "";
        // No request in play, no head (every waiting request is in play): the model, which reads the
        // group's whole history, is run only for a group with a queue.
        if (sources.requests.byIndex(IN_PLAY_BY_GROUP, `${namespace}/${name}`).length === 0) continue;
        const key = `${namespace}/${name}`;
        const eta = groupQueue(sources.groups, sources.requests, key, now, sources.bookings).insight.head
          ?.eta;
        // Unknown: no series, rather than a number that would read as a time.
        if (eta && eta.basis !== "unknown")
          this.set({ namespace, group: name, basis: eta.basis }, Math.max(0, eta.time - now) / 1000);
      }
    },
  });
  // The recorder keeps cumulative counts; a counter family re-set at scrape time exports them as such.
  const recorderCounter = (name: string, pick: (s: RecorderStats) => number): void => {
    new PromCounter({
      name,
      help: HELP[name] ?? "",
      registers,
      collect() {
        this.reset();
        this.inc(pick(sources.recorderStats()));
      },
    });
  };
  recorderCounter(DOMAIN_METRIC.eventsEmitted, (s) => s.emitted);
  recorderCounter(DOMAIN_METRIC.eventsDropped, (s) => s.dropped);
  recorderCounter(DOMAIN_METRIC.eventsFailed, (s) => s.failed);
  recorderCounter(DOMAIN_METRIC.eventsWritten, (s) => s.written);
}

const OUTCOME_BY_REASON: ReadonlyMap<string, string> = new Map([
  [resizeEvents.ProvisioningStarted.reason, "started"],
  [resizeEvents.Succeeded.reason, "succeeded"],
  [resizeEvents.AttemptFailed.reason, "failed"],
  [resizeEvents.AttemptAbandoned.reason, "abandoned"],
]);

/** How a request that never started an attempt leaves the queue, by the reason of its event. */
const QUEUE_EXIT_BY_REASON: ReadonlyMap<string, string> = new Map([
  [resizeEvents.ProvisioningStarted.reason, "started"],
  [resizeEvents.Cancelled.reason, "cancelled"],
  [resizeEvents.QueueDeadlineExceeded.reason, "deadline"],
]);

/**
 * The executor's plan-event hook: counts attempts by outcome and times finished attempts; times a
 * request's wait in the queue when it first leaves it; counts queue deadlines per group.
 */
export function planEventMetrics(
  sink: MetricsSink,
  now: () => number = Date.now,
): (notice: PlanEventNotice) => void {
  return ({ namespace, group, event, before }) => {
    const reason = event.event.reason;
    if (reason === resizeEvents.QueueDeadlineExceeded.reason)
      sink.counter(DOMAIN_METRIC.queueDeadlineExceeded, { namespace, group }).inc();
    const exit = QUEUE_EXIT_BY_REASON.get(reason);
    const created = before?.metadata.creationTimestamp;
    // Only the first time it leaves: after a failed attempt a request waits again, but that is backoff.
    if (exit !== undefined && created !== undefined && (before?.status?.attempts ?? 0) === 0)
      sink
        .histogram(DOMAIN_METRIC.queueWait, { namespace, group, outcome: exit })
        .observe(Math.max(0, now() - Date.parse(created)) / 1000);
    const outcome = OUTCOME_BY_REASON.get(reason);
    if (outcome === undefined) return;
    sink.counter(DOMAIN_METRIC.attempts, { namespace, outcome }).inc();
    // The observed status still carries the attempt that just ended, with the time it was recorded.
    const started = before?.status?.provisioning?.startedTime;
    if (outcome === "started" || started === undefined) return;
    sink
      .histogram(DOMAIN_METRIC.provisioningDuration, { namespace, outcome })
      .observe(Math.max(0, now() - Date.parse(started)) / 1000);
  };
}
