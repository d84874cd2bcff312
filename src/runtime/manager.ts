// The manager owns the runtime's lifecycle, like controller-runtime's manager:
// 1. starts every informer and waits until all caches are synced;
// 2. starts runnables that run on every replica (HTTP servers, ...);
// 3. with leader election, campaigns for the Lease and runs controllers and leader-only runnables only
//    while leading (a lost lease aborts them at once); without it, runs them straight away;
// 4. when the start signal aborts (SIGTERM): stops leader work, waits for in-flight reconciles, releases
//    the lease, stops informers and runnables — all within the graceful shutdown deadline, after which it
//    gives up waiting (and keeps the lease, which then simply expires) so that the process can exit.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { KubeConfig } from "@kubernetes/client-node";
import type { KubeObject } from "./object.js";
import { pino, type Logger } from "pino";
import { realClock, sleep, type Clock } from "./clock.js";
import type { Controller } from "./controller.js";
import { Informer, type InformerOptions } from "./informer.js";
import { KubeHttp } from "./kube-http.js";
import { collectGarbage } from "./heap.js";
import { httpKubeClient } from "./http-kube-client.js";
import type { KubeClient } from "./resource-client.js";
import { LeaderElector, type LeaderElectionTimings } from "./leader-election.js";
import { httpLeaseClient } from "./lease-client.js";
import { httpListWatch } from "./list-watch.js";
import { noopMetrics, type MetricsSink } from "./metrics.js";
import { untilAborted } from "./serve.js";
import type { IndexFunc } from "./store.js";
import type { Transform } from "./transform.js";

export interface Runnable {
  name: string;
  /** Runs until `signal` aborts, then resolves. */
  run(signal: AbortSignal): Promise<void>;
}

export interface LeaderElectionOptions {
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  /** Defaults to `$POD_NAME` (or the host name) plus "_" and a random UUID. */
  identity?: string;
  timings?: Partial<LeaderElectionTimings>;
}

export interface ManagerOptions {
  kubeConfig: KubeConfig;
  logger?: Logger;
  metrics?: MetricsSink;
  clock?: Clock;
  /** Omit to run controllers on this replica unconditionally (single replica, tests). */
  leaderElection?: LeaderElectionOptions;
  /** Upper bound for shutting down after the signal (default 30 s). */
  gracefulShutdownTimeoutMs?: number;
  /** Default resync period of informers created through `informer` (default: none). */
  resyncPeriodMs?: number;
  /**
   * Collect the garbage of the first list once the caches have synced (heap.ts says why; default off:
   * a full collection of a test runner's heap would only slow its tests).
   */
  collectGarbageAfterSync?: boolean;
}

export interface InformerSpec<T extends KubeObject> {
  /** Names the informer in logs and metrics. */
  name: string;
  /** Collection path, e.g. /apis/apps/v1/namespaces/x/statefulsets or /api/v1/configmaps. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Validates and converts a raw object (every informer decodes: nothing reaches a cache unchecked). */
  decode: (raw: KubeObject) => T;
  /** Applied before `decode` (e.g. `stripUnreadMetadata`: a lean cache). */
  transform?: Transform;
  /** Keeps only the raw objects it accepts, for what `fieldSelector` cannot say (InformerOptions.filter). */
  filter?: (raw: KubeObject) => boolean;
  indexers?: Readonly<Record<string, IndexFunc<T>>>;
  counters?: Readonly<Record<string, IndexFunc<T>>>;
  resyncPeriodMs?: number;
}

interface RegisteredInformer {
  /** The Informer<T> of whoever created it first. */
  instance: unknown;
  /** Registered before `start`: a cache the replica serves from, so `/readyz` waits for it. */
  gatesReadiness: boolean;
  hasSynced(): boolean;
  waitForSync(signal: AbortSignal): Promise<boolean>;
  run(signal: AbortSignal): Promise<void>;
}

export function defaultIdentity(): string {
  return `${process.env.POD_NAME ?? hostname()}_${randomUUID()}`;
}

export class Manager {
  /** The streaming transport (informers' watches). */
  readonly http: KubeHttp;
  /** Every other Kubernetes call: typed, on the same connections. */
  readonly client: KubeClient;
  readonly elector: LeaderElector | undefined;
  private readonly log: Logger;
  private readonly metrics: MetricsSink;
  private readonly clock: Clock;
  private readonly informers = new Map<string, RegisteredInformer>();
  private readonly everywhere: Runnable[] = [];
  private readonly leaderOnly: Runnable[] = [];
  private informerSignal: AbortSignal | undefined;
  private readonly informerRuns: Promise<void>[] = [];
  private started = false;

  constructor(private readonly options: ManagerOptions) {
    this.http = new KubeHttp(options.kubeConfig);
    this.client = httpKubeClient(this.http);
    this.log = options.logger ?? pino({ level: "silent" });
    this.metrics = options.metrics ?? noopMetrics;
    this.clock = options.clock ?? realClock;
    const le = options.leaderElection;
    this.elector = le
      ? new LeaderElector({
          name: `${le.namespace}/${le.name}`,
          identity: le.identity ?? defaultIdentity(),
          lease: httpLeaseClient(this.client, le.namespace, le.name),
          timings: le.timings,
          logger: this.log,
          clock: this.clock,
          metrics: this.metrics,
        })
      : undefined;
  }

  /**
   * The shared informer for a collection (one per path and selectors, whoever asks). Informers created
   * after `start` start at once; controllers using them wait for their sync.
   */
  informer<T extends KubeObject>(spec: InformerSpec<T>): Informer<T> {
    const id = JSON.stringify([spec.path, spec.labelSelector ?? "", spec.fieldSelector ?? ""]);
    const existing = this.informers.get(id);
    // Sharing by collection means the first spec's decode, transform, filter and indexers win; callers
    // of one collection agree on its type.
    if (existing) return existing.instance as Informer<T>;
    const options: InformerOptions<T> = {
      name: spec.name,
      listWatch: httpListWatch(this.http, spec.path, {
        labelSelector: spec.labelSelector,
        fieldSelector: spec.fieldSelector,
      }),
      decode: spec.decode,
      transform: spec.transform,
      filter: spec.filter,
      indexers: spec.indexers,
      counters: spec.counters,
      resyncPeriodMs: spec.resyncPeriodMs ?? this.options.resyncPeriodMs,
      logger: this.log,
      clock: this.clock,
      metrics: this.metrics,
    };
    const informer = new Informer<T>(options);
    const registered: RegisteredInformer = {
      instance: informer,
      gatesReadiness: !this.started,
      hasSynced: () => informer.hasSynced(),
      waitForSync: (signal) => informer.waitForSync(signal),
      run: (signal) => informer.run(signal),
    };
    this.informers.set(id, registered);
    if (this.informerSignal) this.informerRuns.push(registered.run(this.informerSignal));
    return informer;
  }

  /** Adds a controller; it runs only while this replica leads (or always, without leader election). */
  addController(controller: Controller): void {
    this.addRunnable({ name: controller.name, run: (signal) => controller.run(signal) }, true);
  }

  /** Adds other work: leader-only, or on every replica (e.g. an HTTP server). */
  addRunnable(runnable: Runnable, leaderOnly: boolean): void {
    if (this.started) throw new Error("runnables must be added before the manager starts");
    (leaderOnly ? this.leaderOnly : this.everywhere).push(runnable);
  }

  /**
   * True once every informer registered before `start` has synced (a readiness check). One created on
   * demand later (a target kind's, a node selector's, by the leader's controllers) does not take a
   * serving replica out of its Service while it lists: nothing served reads it, and its users wait for
   * its sync themselves.
   */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => !i.gatesReadiness || i.hasSynced());
  }

  private collectListGarbage(): void {
    const before = process.memoryUsage();
    const startedAt = performance.now();
    if (!collectGarbage()) return;
    const after = process.memoryUsage();
    const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
    this.log.info(
      {
        heapUsedMiB: [mib(before.heapUsed), mib(after.heapUsed)],
        heapTotalMiB: [mib(before.heapTotal), mib(after.heapTotal)],
        externalMiB: [mib(before.external), mib(after.external)],
        rssMiB: [mib(before.rss), mib(after.rss)],
        ms: Math.round(performance.now() - startedAt),
      },
      "collected the first list's garbage",
    );
  }

  /** True while leader work may run on this replica. */
  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : this.started;
  }

  /** Runs everything until `signal` aborts, then shuts down gracefully; resolves when done. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error("a manager starts once");
    this.started = true;
    const informersCtl = new AbortController();
    this.informerSignal = informersCtl.signal;
    for (const i of this.informers.values()) this.informerRuns.push(i.run(informersCtl.signal));

    const runAll = (list: readonly Runnable[], s: AbortSignal): Promise<void> =>
      Promise.all(
        list.map(async (r) => {
          try {
            await r.run(s);
          } catch (err) {
            this.log.error({ runnable: r.name, err }, "runnable failed");
          }
        }),
      ).then(() => undefined);

    this.log.info({ informers: this.informers.size }, "waiting for caches to sync");
    const synced = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
    if (synced.every(Boolean)) {
      this.log.info("caches synced");
      if (this.options.collectGarbageAfterSync) this.collectListGarbage();
    }

    const everywhere = runAll(this.everywhere, signal);
    let leaderWork: Promise<void> = Promise.resolve();
    const electorCtl = new AbortController();
    let electorRun: Promise<void> = Promise.resolve();
    if (!signal.aborted) {
      if (this.elector) {
        electorRun = this.elector.run(electorCtl.signal, (leading) => {
          leaderWork = runAll(this.leaderOnly, AbortSignal.any([leading, signal]));
          return leaderWork;
        });
      } else {
        leaderWork = runAll(this.leaderOnly, signal);
      }
      await untilAborted(signal);
    }

    const timeoutMs = this.options.gracefulShutdownTimeoutMs ?? 30_000;
    this.log.info({ timeoutMs }, "shutting down");
    const deadlineCtl = new AbortController();
    const deadline = sleep(this.clock, timeoutMs, deadlineCtl.signal).then(() => false);
    const within = (p: Promise<unknown>): Promise<boolean> => Promise.race([p.then(() => true), deadline]);
    try {
      if (await within(leaderWork)) {
        // Only now that no reconcile is running may the lease go to someone else.
        electorCtl.abort();
        await within(electorRun);
      } else {
        this.log.error(
          "in-flight work did not finish before the shutdown deadline; keeping the lease until it expires",
        );
      }
      informersCtl.abort();
      if (!(await within(Promise.all([everywhere, ...this.informerRuns]))))
        this.log.error("shutdown deadline exceeded; exiting anyway");
    } finally {
      electorCtl.abort();
      informersCtl.abort();
      deadlineCtl.abort();
    }
    this.log.info("stopped");
  }
}
