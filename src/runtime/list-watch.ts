// Where an informer gets its objects from: a list (a consistent snapshot and its resourceVersion) and a
// watch (the changes after a resourceVersion). The HTTP implementation works for any resource, built-in
// or custom, given its collection path, e.g. /api/v1/namespaces/x/configmaps,
// /apis/apps/v1/statefulsets (all namespaces) or /apis/compute.resize-operator.dev/v1/namespaces/x/resizerequests.
//
// The list is streamed when the API server offers it (Kubernetes' WatchList, on by default since 1.32,
// what client-go's reflector uses since 1.35): one watch with sendInitialEvents=true sends every object
// as ADDED from the API server's watch cache, then a bookmark marking the end of the snapshot, in one
// response the server writes while we decode. A paged list is a request per 500 objects, each waiting
// for our decoding of the one before, and its pages come from etcd unless the server can serve them
// from a watch-cache snapshot (Kubernetes 1.34+, kept 75 s): from etcd, every page walks all remaining
// keys of the collection (etcd counts them), N²/pageSize in all. A server that rejects the streamed
// list (older, or with the feature off) gets paged lists from then on; one whose stream goes wrong, a
// paged list that time.
import { z } from "zod";
import { isGone, isInvalid, statusError } from "./api-errors.js";
import { Unstructured } from "./builtin-kinds.js";
import { listPage } from "./http-kube-client.js";
import type { KubeHttp } from "./kube-http.js";
import type { KubeObject } from "./object.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface ListResult<P = KubeObject> {
  items: P[];
  resourceVersion: string;
  /** True when the list came as a watch's initial events (streamed), not as pages. */
  streamed?: boolean;
}

export interface WatchOptions {
  resourceVersion: string;
  /** Asks the server to end the watch after this many seconds (the informer then re-watches). */
  timeoutSeconds: number;
  signal: AbortSignal;
}

/**
 * Turns each listed object into what the caller keeps (e.g. decoded and stripped), or undefined to drop
 * it. Applied page by page, so that a large list never holds every raw object at once.
 */
export type Prepare<P> = (raw: KubeObject) => P | undefined;

/** Keeps listed objects as they are. */
export const asListed: Prepare<KubeObject> = (raw) => raw;

export interface ListWatch {
  list<P>(signal: AbortSignal, prepare: Prepare<P>): Promise<ListResult<P>>;
  /**
   * Streams events after `resourceVersion` to `onEvent`. Resolves when the stream ends normally; rejects
   * with an error for which `isGone` is true when the resourceVersion is too old (also when the server
   * says so in an ERROR event), and with any other error for everything else.
   */
  watch(options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void>;
}

/** Objects per page of an informer's list (client-go's reflector asks for 500 too). */
export const LIST_PAGE_SIZE = 500;

export interface HttpListWatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size of a paged list (default LIST_PAGE_SIZE); 0 lists in one request. */
  pageSize?: number;
  /** Stream the list when the server offers it (default true); false: always paged. */
  streamingList?: boolean;
}

/** The annotation of the bookmark that ends a streamed list's initial events. */
export const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** The API server ends a streamed list unfinished after this long (then the list is paged instead). */
const STREAMED_LIST_TIMEOUT_SECONDS = 3600;

/** The server did not stream the list as asked: the caller pages instead. */
class StreamingListUnavailable extends Error {}

/**
 * Whether a streamed list failed because the server does not offer it: a request it rejects as bad (an
 * API server before 1.27 rejects resourceVersionMatch on a watch with 400/422, one with the WatchList
 * feature off rejects sendInitialEvents with 422) or a stream that did not behave as one. Anything else
 * (throttling, 5xx, a refused identity or verb, the network) is no answer about the feature: the
 * reflector retries the streamed list after its backoff.
 */
export function refusesStreamingList(err: unknown): boolean {
  if (err instanceof StreamingListUnavailable) return true;
  return isInvalid(err);
}

/** One line of a watch stream; ERROR carries a Status instead of an object. */
const WatchLine = z.looseObject({ type: z.string(), object: z.unknown() });

/** A ListWatch over the API server's collection at `path`. */
export function httpListWatch(client: KubeHttp, path: string, options: HttpListWatchOptions = {}): ListWatch {
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const pageSize = options.pageSize ?? LIST_PAGE_SIZE;
  /** Cleared for good once the server rejects a streamed list. */
  let streaming = options.streamingList ?? true;

  /** The event a watch line carries; an ERROR line becomes its ApiError. */
  function watchEvent(value: unknown): { type: WatchEventType; object: Unstructured } {
    const parsed = WatchLine.safeParse(value);
    if (!parsed.success) throw new Error(`watch ${path}: not a watch event`);
    const line = parsed.data;
    if (line.type === "ERROR") throw statusError(500, line.object);
    if (
      line.type !== "ADDED" &&
      line.type !== "MODIFIED" &&
      line.type !== "DELETED" &&
      line.type !== "BOOKMARK"
    )
      throw new Error(`watch ${path}: unknown event type ${line.type}`);
    return { type: line.type, object: Unstructured.parse(line.object) };
  }

  /** The list as a watch's initial events, each prepared as it arrives; the watch ends at their end. */
  async function listStreamed<P>(signal: AbortSignal, prepare: Prepare<P>): Promise<ListResult<P>> {
    const items: P[] = [];
    let resourceVersion: string | undefined;
    const ended = new AbortController();
    await client.stream(
      path,
      {
        query: {
          ...selectors,
          watch: true,
          sendInitialEvents: true,
          // With no resourceVersion: a snapshot at least as new as a quorum read, as a list's.
          resourceVersionMatch: "NotOlderThan",
          allowWatchBookmarks: true,
          timeoutSeconds: STREAMED_LIST_TIMEOUT_SECONDS,
        },
        idleTimeoutMs: 60_000,
        signal: AbortSignal.any([signal, ended.signal]),
      },
      (value) => {
        const { type, object } = watchEvent(value);
        if (type === "BOOKMARK") {
          if (object.metadata?.annotations?.[INITIAL_EVENTS_END] !== "true") return;
          resourceVersion = object.metadata.resourceVersion;
          // What follows is the watch's; the reflector opens its own from this resourceVersion.
          ended.abort();
          return;
        }
        if (type !== "ADDED")
          throw new StreamingListUnavailable(`list ${path}: ${type} among the initial events`);
        const kept = prepare(object);
        if (kept !== undefined) items.push(kept);
      },
    );
    if (signal.aborted) throw new Error(`list ${path} aborted`);
    if (resourceVersion === undefined)
      throw new StreamingListUnavailable(`list ${path}: the stream ended before its initial events did`);
    return { items, resourceVersion, streamed: true };
  }

  async function listPaged<P>(
    signal: AbortSignal,
    limit: number,
    prepare: Prepare<P>,
  ): Promise<ListResult<P>> {
    const fetchPage = (cont: string | undefined) =>
      listPage(
        client,
        path,
        { ...selectors, limit: limit > 0 ? limit : undefined, continue: cont },
        { timeoutMs: 60_000, signal },
      );
    const items: P[] = [];
    let page = await fetchPage(undefined);
    for (;;) {
      // The next page is asked for before this one is prepared, so that the server reads and encodes it
      // while we decode: never more than two raw pages are held.
      const next = page.continue === undefined ? undefined : fetchPage(page.continue);
      // Awaited below; this only keeps a failure from being unhandled if `prepare` throws first.
      next?.catch(() => undefined);
      for (const item of page.items) {
        const kept = prepare(Unstructured.parse(item));
        if (kept !== undefined) items.push(kept);
      }
      if (next === undefined) {
        const resourceVersion = page.resourceVersion;
        if (!resourceVersion) throw new Error(`list ${path}: no resourceVersion in the answer`);
        return { items, resourceVersion };
      }
      page = await next;
    }
  }

  async function listPagedOrWhole<P>(signal: AbortSignal, prepare: Prepare<P>): Promise<ListResult<P>> {
    try {
      return await listPaged(signal, pageSize, prepare);
    } catch (err) {
      // An expired continue token: the snapshot is gone, so take the whole list in one request.
      if (pageSize > 0 && isGone(err)) return listPaged(signal, 0, prepare);
      throw err;
    }
  }

  return {
    async list(signal, prepare) {
      if (streaming) {
        try {
          return await listStreamed(signal, prepare);
        } catch (err) {
          if (signal.aborted || !refusesStreamingList(err)) throw err;
          // A rejected request: the server lacks the feature, so page from now on. A stream that went
          // wrong (e.g. ended by a server shutting down) is paged this time and streamed again next time.
          if (isInvalid(err)) streaming = false;
        }
      }
      return listPagedOrWhole(signal, prepare);
    },

    watch({ resourceVersion, timeoutSeconds, signal }, onEvent) {
      return client.stream(
        path,
        {
          query: {
            ...selectors,
            watch: true,
            resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds,
          },
          // The server ends the watch itself after timeoutSeconds; silence well beyond that means the
          // connection is dead without the socket knowing (a lost peer).
          idleTimeoutMs: (timeoutSeconds + 30) * 1000,
          signal,
        },
        (value) => {
          onEvent(watchEvent(value));
        },
      );
    },
  };
}
