// Where an informer gets its objects from: a list (a consistent snapshot and its resourceVersion) and a
// watch (the changes after a resourceVersion). The HTTP implementation works for any resource, built-in
// or custom, given its collection path, e.g. /api/v1/namespaces/x/configmaps,
// /apis/apps/v1/statefulsets (all namespaces) or /apis/compute.resize-operator.dev/v1/namespaces/x/resizerequests.
import { z } from "zod";
import { isGone, statusError } from "./api-errors.js";
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

export interface HttpListWatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size of the initial list (default 500); 0 lists in one request. */
  pageSize?: number;
}

/** One line of a watch stream; ERROR carries a Status instead of an object. */
const WatchLine = z.looseObject({ type: z.string(), object: z.unknown() });

/** A ListWatch over the API server's collection at `path`. */
export function httpListWatch(client: KubeHttp, path: string, options: HttpListWatchOptions = {}): ListWatch {
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  const pageSize = options.pageSize ?? 500;

  async function listPaged<P>(
    signal: AbortSignal,
    limit: number,
    prepare: Prepare<P>,
  ): Promise<ListResult<P>> {
    const items: P[] = [];
    let cont: string | undefined;
    for (;;) {
      const page = await listPage(
        client,
        path,
        { ...selectors, limit: limit > 0 ? limit : undefined, continue: cont },
        { timeoutMs: 60_000, signal },
      );
      for (const item of page.items) {
        const kept = prepare(Unstructured.parse(item));
        if (kept !== undefined) items.push(kept);
      }
      cont = page.continue;
      if (!cont) {
        const resourceVersion = page.resourceVersion;
        if (!resourceVersion) throw new Error(`list ${path}: no resourceVersion in the answer`);
        return { items, resourceVersion };
      }
    }
  }

  return {
    async list(signal, prepare) {
      try {
        return await listPaged(signal, pageSize, prepare);
      } catch (err) {
        // An expired continue token: the snapshot is gone, so take the whole list in one request.
        if (pageSize > 0 && isGone(err)) return listPaged(signal, 0, prepare);
        throw err;
      }
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
          onEvent({ type: line.type, object: Unstructured.parse(line.object) });
        },
      );
    },
  };
}
