// The reflector keeps a local copy in step with the API server: list, then watch from the list's
// resourceVersion, remembering the resourceVersion of every event and bookmark. Unlike the informer in
// @kubernetes/client-node, it never gives up:
// - 410 Gone (HTTP status or an ERROR event): the resourceVersion is too old, so list again;
// - the server ending a long watch normally: watch again at once from the last resourceVersion;
// - anything else (network error, connection cut, 5xx, silence, a watch closing right after it opened):
//   watch again from the last resourceVersion after an exponential backoff with jitter.
// Watching from the last seen resourceVersion is what makes a cut connection lose nothing; when the
// server can no longer serve it (410), the relist and diff still deliver every change.
import type { Logger } from "pino";
import { Backoff, type BackoffPolicy } from "./backoff.js";
import { isAborted, realClock, sleep, type Clock } from "./clock.js";
import { isGone } from "./api-errors.js";
import type { ListWatch, Prepare, WatchEvent } from "./list-watch.js";
import { METRIC, noopMetrics, type MetricsSink } from "./metrics.js";

/** Receives what the reflector learns, in order. */
export interface ReflectorSink<P> {
  /** Applied to each listed object as its page arrives (see `Prepare`). */
  prepare: Prepare<P>;
  /** A full list: the complete current state, prepared. */
  replace(items: P[]): void;
  /** One watch event (bookmarks excluded). */
  apply(event: WatchEvent): void;
}

export interface ReflectorOptions<P> {
  name: string;
  listWatch: ListWatch;
  sink: ReflectorSink<P>;
  logger: Logger;
  clock?: Clock;
  metrics?: MetricsSink;
  /** Retry delays after failures (client-go: 800 ms doubling to 30 s, full jitter). */
  backoff?: BackoffPolicy;
  /** Server-side watch timeout is drawn from [min, 2*min) seconds so that clients do not reconnect together. */
  minWatchTimeoutSeconds?: number;
  random?: () => number;
}

export const DEFAULT_REFLECTOR_BACKOFF: BackoffPolicy = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1,
};

/** A watch that ends sooner than this without delivering anything counts as a failure. */
const SHORT_WATCH_MS = 1000;

export class Reflector<P> {
  private resourceVersion = "";
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: Backoff;
  private readonly relists;
  private readonly restarts;

  constructor(private readonly options: ReflectorOptions<P>) {
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff(options.backoff ?? DEFAULT_REFLECTOR_BACKOFF, 2 * 60_000, this.random);
    const metrics = options.metrics ?? noopMetrics;
    this.relists = metrics.counter(METRIC.informerRelists, { name: options.name });
    this.restarts = metrics.counter(METRIC.informerWatchRestarts, { name: options.name });
  }

  /** The resourceVersion the next watch starts from ("" before the first list). */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Lists and watches until `signal` aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const { listWatch, sink, logger } = this.options;
    let needList = true;
    let listed = 0;
    while (!isAborted(signal)) {
      let events = 0;
      let justListed = false;
      const started = this.clock.now();
      try {
        if (needList) {
          const result = await listWatch.list(signal, sink.prepare);
          if (isAborted(signal)) return;
          sink.replace(result.items);
          this.resourceVersion = result.resourceVersion;
          if (listed++ > 0) this.relists.inc();
          needList = false;
          justListed = true;
          logger.debug(
            {
              resourceVersion: this.resourceVersion,
              count: result.items.length,
              streamed: result.streamed === true,
            },
            "listed",
          );
        }
        const min = this.options.minWatchTimeoutSeconds ?? 300;
        const timeoutSeconds = Math.floor(min * (1 + this.random()));
        await listWatch.watch({ resourceVersion: this.resourceVersion, timeoutSeconds, signal }, (event) => {
          events++;
          if (event.type !== "BOOKMARK") sink.apply(event);
          const rv = event.object.metadata?.resourceVersion;
          if (rv) this.resourceVersion = rv;
        });
        if (isAborted(signal)) return;
        this.restarts.inc();
        if (events === 0 && this.clock.now() - started < SHORT_WATCH_MS) {
          throw new Error("watch closed right after it opened");
        }
        logger.debug({ resourceVersion: this.resourceVersion }, "watch ended; watching again");
      } catch (err) {
        if (isAborted(signal)) return;
        if (isGone(err)) {
          needList = true;
          logger.info(
            { resourceVersion: this.resourceVersion },
            "resourceVersion expired (410 Gone); listing again",
          );
          // A list immediately followed by 410 again would otherwise spin: back off in that case only.
          if (!(justListed && events === 0)) continue;
        } else {
          this.restarts.inc();
          logger.warn(
            { err, resourceVersion: this.resourceVersion },
            needList ? "list failed; retrying" : "watch failed; watching again from the last resourceVersion",
          );
        }
        await sleep(this.clock, this.backoff.next(this.clock.now()), signal);
      }
    }
  }
}
