// A scripted ListWatch for unit tests of the informer and controller: the test decides what each list
// returns and drives each watch (events, normal end, failure) by hand.
import type { KubernetesObject } from "@kubernetes/client-node";
import { Informer } from "../../../src/runtime/informer.js";
import type { Clock } from "../../../src/runtime/clock.js";
import type { InformerSpec } from "../../../src/runtime/manager.js";
import type { KubeObject } from "../../../src/runtime/object.js";
import type {
  ListResult,
  ListWatch,
  Prepare,
  WatchEvent,
  WatchOptions,
} from "../../../src/runtime/list-watch.js";

export interface OpenWatch {
  options: WatchOptions;
  emit(event: WatchEvent): void;
  end(): void;
  fail(err: Error): void;
}

export class FakeListWatch implements ListWatch {
  lists = 0;
  readonly watches: OpenWatch[] = [];
  /** What the next list returns (or throws). */
  next: () => ListResult = () => ({ items: [], resourceVersion: "1" });

  list<P>(_signal: AbortSignal, prepare: Prepare<P>): Promise<ListResult<P>> {
    this.lists++;
    try {
      const { items, resourceVersion } = this.next();
      return Promise.resolve({
        items: items.flatMap((raw) => {
          const kept = prepare(raw);
          return kept === undefined ? [] : [kept];
        }),
        resourceVersion,
      });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  watch(options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      options.signal.addEventListener("abort", () => {
        resolve();
      });
      this.watches.push({ options, emit: onEvent, end: resolve, fail: reject });
    });
  }

  /** The most recent watch. */
  get current(): OpenWatch {
    const w = this.watches.at(-1);
    if (!w) throw new Error("no watch opened");
    return w;
  }
}

export function obj(
  name: string,
  rv: string,
  data: Record<string, string> = {},
  ns = "ns",
): KubernetesObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: ns, name, resourceVersion: rv },
    ...{ data },
  };
}

/**
 * A stand-in for `mgr.informer`: each informer asked for lists and watches through `lw` and runs until
 * `signal` aborts; `made` holds the specs asked for, in order.
 */
export function runningInformers(lw: FakeListWatch, clock: Clock, signal: AbortSignal) {
  const made: InformerSpec<KubeObject>[] = [];
  const informer = <T extends KubeObject>(spec: InformerSpec<T>): Informer<T> => {
    made.push(spec as InformerSpec<KubeObject>);
    const running = new Informer<T>({ ...spec, listWatch: lw, clock });
    void running.run(signal);
    return running;
  };
  return { informer, made };
}
