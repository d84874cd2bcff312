// A controller binds informers to a work queue and a reconcile function, as controller-runtime does:
// events become keys ("namespace/name" of the primary object), workers take keys off the workqueue (never two
// workers on one key) and reconcile them. The reconcile outcome decides what happens next:
//   thrown error      -> requeue with the rate limiter's backoff (per key 5 ms doubling to 1000 s,
//                        overall 10 qps / burst 100);
//   {requeueAfterMs}  -> backoff forgotten, reconcile again after that delay;
//   {requeue: true}   -> requeue with backoff, without counting an error;
//   anything else     -> backoff forgotten; the next event brings the key back.
// `run` is one term: it starts with every cached primary object queued (so nothing that happened while
// the controller was not running is missed) and ends — dropping the workqueue — as soon as its signal aborts.
import type { KubeObject } from "./object.js";
import { pino, type Logger } from "pino";
import { realClock, type Clock } from "./clock.js";
import type { Informer } from "./informer.js";
import { METRIC, noopMetrics, type MetricsSink } from "./metrics.js";
import type { RateLimiter } from "./rate-limiter.js";
import { objectKey, splitKey } from "./store.js";
import { WorkQueue } from "./workqueue.js";

/** What to reconcile: a primary object by namespace and name (namespace undefined: cluster-scoped). */
export interface Request {
  namespace: string | undefined;
  name: string;
}

export interface ReconcileResult {
  /** Reconcile again after the rate limiter's backoff. */
  requeue?: boolean;
  /** Reconcile again after this many ms (takes precedence over `requeue`). */
  requeueAfterMs?: number;
}

export interface ReconcileContext {
  /** Aborts when the controller stops (leadership lost, shutdown): stop and return as soon as possible. */
  signal: AbortSignal;
  /** Bound to the controller and the request's key. */
  log: Logger;
  /** How many times this key has been requeued with backoff since its last success. */
  retries: number;
}

export type Reconciler = (
  request: Request,
  context: ReconcileContext,
) => Promise<ReconcileResult | undefined>;

/** Maps an object of a watched (secondary) resource to the keys of the primary objects it affects. */
export type MapFunc<T> = (obj: T) => readonly string[];

export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  /** Workers reconciling different keys at the same time (default 1). */
  concurrency?: number;
  /** Makes the rate limiter for each term's workqueue (default: client-go's controller rate limiter). */
  rateLimiter?: () => RateLimiter;
  logger?: Logger;
  clock?: Clock;
  metrics?: MetricsSink;
}

interface Source {
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** `delayMs`: when the key is due, from now (absent: at once). */
  subscribe(enqueue: (key: string, delayMs?: number) => void): () => void;
}

/**
 * When a primary key needs its reconcile after an add or a change: in `delayMs` from now, or never
 * (undefined). For controllers whose work falls due at a time the object itself tells, such as an
 * expiry, so that starting over a large cache costs a timer per object, not a reconcile per object.
 */
export type Schedule = (key: string) => number | undefined;

/** The request for a key made by `objectKey`. */
export function requestFor(key: string): Request {
  return splitKey(key);
}

export class Controller {
  readonly name: string;
  private readonly sources: Source[] = [];
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly metrics: MetricsSink;
  private readonly concurrency: number;
  private workqueue: WorkQueue | undefined;

  constructor(private readonly options: ControllerOptions) {
    this.name = options.name;
    this.concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1)
      throw new RangeError("concurrency must be a positive integer");
    this.log = (options.logger ?? pino({ level: "silent" })).child({ controller: options.name });
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics ?? noopMetrics;
  }

  /**
   * Reconciles the objects of `informer` themselves; `filter` can drop uninteresting updates, and
   * `schedule` says when a key is due after an add or a change (see Schedule).
   */
  watchPrimary<T extends KubeObject>(
    informer: Informer<T>,
    filter?: (oldObj: T, newObj: T) => boolean,
    schedule?: Schedule,
  ): this {
    return this.watchMapped(informer, (obj) => [objectKey(obj)], filter, schedule);
  }

  /**
   * Reconciles the primary keys `map` returns for every change of an object of `informer`; with
   * `schedule`, an add or a change queues each key for when it is due (a deletion, at once). With
   * `skipInitialList`, the objects already cached when the controller starts are not mapped: for a
   * source whose every primary also comes in its own initial add (the controller subscribes once all
   * its caches are synced), mapping them again is work that grows with the cache, all of it at start.
   */
  watchMapped<T extends KubeObject>(
    informer: Informer<T>,
    map: MapFunc<T>,
    filter?: (oldObj: T, newObj: T) => boolean,
    schedule?: Schedule,
    options: { readonly skipInitialList?: boolean } = {},
  ): this {
    const subscribe = (enqueue: (key: string, delayMs?: number) => void): (() => void) => {
      const now = (keys: Iterable<string>): void => {
        for (const key of keys) enqueue(key);
      };
      const due = (keys: Iterable<string>): void => {
        if (!schedule) {
          now(keys);
          return;
        }
        for (const key of keys) {
          const delayMs = schedule(key);
          if (delayMs !== undefined) enqueue(key, delayMs);
        }
      };
      return informer.addEventHandler({
        onAdd: (obj, isInInitialList) => {
          if (isInInitialList && options.skipInitialList) return;
          due(map(obj));
        },
        onUpdate: (oldObj, newObj) => {
          if (filter && !filter(oldObj, newObj)) return;
          // Both: a change can move an object from one primary to another (e.g. a new targetRef).
          due(new Set([...map(oldObj), ...map(newObj)]));
        },
        onDelete: (obj) => {
          now(map(obj));
        },
      });
    };
    this.sources.push({ waitForSync: (signal) => informer.waitForSync(signal), subscribe });
    return this;
  }

  /** Queues `key` now or after `delayMs`; ignored while the controller is not running. */
  enqueue(key: string, delayMs = 0): void {
    this.workqueue?.addAfter(key, delayMs);
  }

  /** True while a term is running. */
  get running(): boolean {
    return this.workqueue !== undefined && !this.workqueue.shuttingDown;
  }

  /**
   * Runs one term until `signal` aborts: waits for the informers' caches, then reconciles with
   * `concurrency` workers. Resolves once every in-flight reconcile has returned.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.workqueue) throw new Error(`controller ${this.name} is already running`);
    const workqueue = new WorkQueue({
      name: this.name,
      clock: this.clock,
      rateLimiter: this.options.rateLimiter?.(),
      metrics: this.metrics,
    });
    this.workqueue = workqueue;
    try {
      for (const s of this.sources) if (!(await s.waitForSync(signal))) return;
      const stop = (): void => {
        workqueue.shutDown();
      };
      signal.addEventListener("abort", stop, { once: true });
      if (signal.aborted) stop();
      const unsubscribe = this.sources.map((s) =>
        s.subscribe((key, delayMs) => {
          workqueue.addAfter(key, delayMs ?? 0);
        }),
      );
      this.log.info({ concurrency: this.concurrency }, "controller started");
      try {
        await Promise.all(Array.from({ length: this.concurrency }, () => this.worker(workqueue, signal)));
      } finally {
        for (const u of unsubscribe) u();
        signal.removeEventListener("abort", stop);
      }
      this.log.info("controller stopped");
    } finally {
      workqueue.shutDown();
      this.workqueue = undefined;
    }
  }

  private async worker(workqueue: WorkQueue, signal: AbortSignal): Promise<void> {
    const labels = { controller: this.name };
    const active = this.metrics.gauge(METRIC.activeWorkers, labels);
    const time = this.metrics.histogram(METRIC.reconcileTime, labels);
    const errors = this.metrics.counter(METRIC.reconcileErrors, labels);
    for (;;) {
      const key = await workqueue.get();
      if (key === undefined) return;
      const log = this.log.child({ key });
      const started = this.clock.now();
      active.inc();
      let outcome: "success" | "error" | "requeue" | "requeue_after";
      try {
        const result = await this.options.reconcile(requestFor(key), {
          signal,
          log,
          retries: workqueue.numRequeues(key),
        });
        if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
          outcome = "requeue_after";
          workqueue.forget(key);
          workqueue.addAfter(key, result.requeueAfterMs);
        } else if (result?.requeue) {
          outcome = "requeue";
          workqueue.addRateLimited(key);
        } else {
          outcome = "success";
          workqueue.forget(key);
        }
      } catch (err) {
        outcome = "error";
        errors.inc();
        log.error({ err, retries: workqueue.numRequeues(key) }, "reconcile failed");
        workqueue.addRateLimited(key);
      } finally {
        active.dec();
        workqueue.done(key);
      }
      time.observe((this.clock.now() - started) / 1000);
      this.metrics.counter(METRIC.reconcileTotal, { ...labels, result: outcome }).inc();
      // A reconcile that needs no I/O completes in microtasks: without this turn of the event loop a
      // queue of thousands of such keys (a controller's start over a large cache) would hold back
      // every socket and timer of the process, other controllers' API answers included, until empty.
      await yieldToEventLoop();
    }
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
