// Leader election on a coordination.k8s.io Lease, following client-go's leaderelection package:
// - a candidate takes the lease when it does not exist, is released (empty holder), or has not changed
//   for leaseDuration as measured on the candidate's own clock since it last saw it change (so clock skew
//   between machines does not matter);
// - the leader renews every retryPeriod; if no renewal succeeds within renewDeadline it stops leading at
//   once (the leading signal aborts) — before any other candidate can take over, since
//   renewDeadline < leaseDuration;
// - on graceful shutdown the leader releases the lease (empty holder, duration 1 s) so that a
//   successor takes over within one retryPeriod instead of waiting out the lease.
import type { Logger } from "pino";
import { withJitter } from "./backoff.js";
import { isAborted, realClock, sleep, type Clock } from "./clock.js";
import type { LeaseClient, LeaseRecord, StoredLease } from "./lease-client.js";
import { METRIC, noopMetrics, type MetricsSink } from "./metrics.js";

export interface LeaderElectionTimings {
  /** How long a lease is valid after its last renewal, as seen by other candidates (default 15 s). */
  leaseDurationMs: number;
  /** How long the leader keeps trying to renew before giving up leadership (default 10 s). */
  renewDeadlineMs: number;
  /** Interval between attempts to acquire or renew (default 2 s). */
  retryPeriodMs: number;
}

export const DEFAULT_LEADER_ELECTION_TIMINGS: LeaderElectionTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** client-go's JitterFactor: candidates retry at retryPeriod * [1, 1.2). */
const JITTER = 1.2;

export interface LeaderElectorOptions {
  /** Names the lease in logs and metrics. */
  name: string;
  /** This candidate, unique per process (e.g. pod name + "_" + a random suffix). */
  identity: string;
  lease: LeaseClient;
  timings?: Partial<LeaderElectionTimings>;
  logger: Logger;
  clock?: Clock;
  metrics?: MetricsSink;
  random?: () => number;
  /** Told whenever the observed holder changes ("" when nobody holds the lease). */
  onNewLeader?: (identity: string) => void;
}

/** The work done while leading: must stop promptly when `leading` aborts, and resolve once it has. */
export type LeaderWork = (leading: AbortSignal) => Promise<void>;

export function validateTimings(t: LeaderElectionTimings): void {
  if (t.retryPeriodMs <= 0) throw new RangeError("retryPeriod must be positive");
  if (t.renewDeadlineMs <= JITTER * t.retryPeriodMs)
    throw new RangeError(`renewDeadline must be greater than retryPeriod*${JITTER}`);
  if (t.leaseDurationMs <= t.renewDeadlineMs)
    throw new RangeError("leaseDuration must be greater than renewDeadline");
}

function sameRecord(a: LeaseRecord | undefined, b: LeaseRecord): boolean {
  return (
    a !== undefined &&
    a.holderIdentity === b.holderIdentity &&
    a.renewTime === b.renewTime &&
    a.acquireTime === b.acquireTime &&
    a.leaseTransitions === b.leaseTransitions &&
    a.leaseDurationSeconds === b.leaseDurationSeconds
  );
}

export class LeaderElector {
  readonly identity: string;
  private readonly timings: LeaderElectionTimings;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: Logger;
  private readonly status;
  private observed: StoredLease | undefined;
  private observedTime = 0;
  private lastHolder: string | undefined;
  private leading = false;

  constructor(private readonly options: LeaderElectorOptions) {
    this.identity = options.identity;
    if (!options.identity) throw new Error("leader election needs a non-empty identity");
    this.timings = { ...DEFAULT_LEADER_ELECTION_TIMINGS, ...options.timings };
    validateTimings(this.timings);
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.log = options.logger.child({ lease: options.name, identity: options.identity });
    this.status = (options.metrics ?? noopMetrics).gauge(METRIC.leaderStatus, { name: options.name });
  }

  /** True while this candidate holds the lease and has renewed it within the renew deadline. */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed on the lease ("" if none). */
  get leader(): string {
    return this.observed?.record.holderIdentity ?? "";
  }

  /**
   * Campaigns until `signal` aborts. Each time the lease is won, runs `work` with a signal that aborts the
   * moment leadership is lost (or `signal` aborts), waits for `work` to finish, and then campaigns again
   * if leadership was lost. When `signal` aborts while leading, the lease is released after `work`
   * has finished. Never rejects.
   */
  async run(signal: AbortSignal, work: LeaderWork): Promise<void> {
    while (!isAborted(signal)) {
      if (!(await this.acquire(signal))) break;
      const term = new AbortController();
      this.setLeading(true);
      this.log.info("became leader");
      const done = work(term.signal).catch((err: unknown) => {
        this.log.error({ err }, "leader work failed");
      });
      const outcome = await this.renewLoop(signal);
      this.setLeading(false);
      term.abort();
      if (outcome === "lost") this.log.warn("leadership lost: stopped leading");
      await done;
      if (outcome === "cancelled") {
        await this.release();
        break;
      }
    }
    this.setLeading(false);
  }

  private setLeading(value: boolean): void {
    this.leading = value;
    this.status.set(value ? 1 : 0);
  }

  /** Retries every retryPeriod (jittered) until the lease is ours; false when `signal` aborted first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.log.info("campaigning for the lease");
    while (!isAborted(signal)) {
      if (await this.attempt(this.timings.renewDeadlineMs, signal)) return true;
      await sleep(this.clock, withJitter(this.timings.retryPeriodMs, JITTER - 1, this.random), signal);
    }
    return false;
  }

  /** Renews until a renewal fails for renewDeadline ("lost") or `signal` aborts ("cancelled"). */
  private async renewLoop(signal: AbortSignal): Promise<"lost" | "cancelled"> {
    for (;;) {
      await sleep(this.clock, this.timings.retryPeriodMs, signal);
      if (isAborted(signal)) return "cancelled";
      const deadline = this.clock.now() + this.timings.renewDeadlineMs;
      let renewed = false;
      while (!renewed && !isAborted(signal) && this.clock.now() < deadline) {
        renewed = await this.attempt(deadline - this.clock.now(), signal);
        // Someone else holds a valid lease now: waiting out the deadline cannot bring it back.
        if (!renewed && this.leader !== "" && this.leader !== this.identity) return "lost";
        if (!renewed)
          await sleep(this.clock, Math.min(this.timings.retryPeriodMs, deadline - this.clock.now()), signal);
      }
      if (isAborted(signal)) return "cancelled";
      if (!renewed) return "lost";
    }
  }

  /** One tryAcquireOrRenew bounded by `budgetMs`; a timeout or API error counts as failure. */
  private async attempt(budgetMs: number, signal: AbortSignal): Promise<boolean> {
    const ctl = new AbortController();
    const stop = (): void => {
      ctl.abort();
    };
    signal.addEventListener("abort", stop, { once: true });
    const timer = this.clock.setTimer(() => {
      this.log.warn({ budgetMs }, "lease request timed out");
      ctl.abort();
    }, budgetMs);
    try {
      const aborted = new Promise<false>((resolve) => {
        ctl.signal.addEventListener("abort", () => {
          resolve(false);
        });
      });
      return await Promise.race([this.tryAcquireOrRenew(ctl.signal), aborted]);
    } catch (err) {
      this.log.warn({ err }, "lease request failed");
      return false;
    } finally {
      timer.cancel();
      signal.removeEventListener("abort", stop);
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { lease } = this.options;
    const now = this.clock.now();
    const durationSeconds = Math.ceil(this.timings.leaseDurationMs / 1000);
    const current = await lease.get(signal);
    if (isAborted(signal)) return false;
    if (!current) {
      const created = await lease.create(
        {
          holderIdentity: this.identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: 0,
        },
        signal,
      );
      if (!created || isAborted(signal)) return false;
      this.observe(created, now);
      return true;
    }
    if (!sameRecord(this.observed?.record, current.record)) this.observe(current, this.clock.now());
    const holder = current.record.holderIdentity;
    const held = holder !== "" && holder !== this.identity;
    if (held && this.observedTime + current.record.leaseDurationSeconds * 1000 > now) return false;
    const mine = holder === this.identity;
    const next: LeaseRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: mine ? current.record.acquireTime : now,
      renewTime: now,
      leaseTransitions: mine ? current.record.leaseTransitions : current.record.leaseTransitions + 1,
    };
    const updated = await lease.update(next, current.resourceVersion, signal);
    if (!updated || isAborted(signal)) return false;
    this.observe(updated, now);
    return true;
  }

  private observe(lease: StoredLease, at: number): void {
    this.observed = lease;
    this.observedTime = at;
    const holder = lease.record.holderIdentity;
    if (holder !== this.lastHolder) {
      this.lastHolder = holder;
      this.log.info({ holder }, "lease holder changed");
      this.options.onNewLeader?.(holder);
    }
  }

  /** Gives the lease up if we hold it, so that another candidate can take it at its next retry. */
  private async release(): Promise<void> {
    const observed = this.observed;
    if (observed?.record.holderIdentity !== this.identity) return;
    const now = this.clock.now();
    const ctl = new AbortController();
    const timer = this.clock.setTimer(() => {
      ctl.abort();
    }, this.timings.renewDeadlineMs);
    try {
      const released = await this.options.lease.update(
        {
          holderIdentity: "",
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: observed.record.leaseTransitions,
        },
        observed.resourceVersion,
        ctl.signal,
      );
      if (released) {
        this.observe(released, now);
        this.log.info("released the lease");
      } else {
        this.log.info("lease changed meanwhile; nothing to release");
      }
    } catch (err) {
      this.log.warn({ err }, "could not release the lease");
    } finally {
      timer.cancel();
    }
  }
}
