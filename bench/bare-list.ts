// The start-up benchmark's baselines: the informer's list of the same collection without the informer,
// each answer only JSON-parsed and dropped. `bareList` is the paged list (LIST_PAGE_SIZE a page,
// continue tokens, one page after another) the benchmark's target is set against; `bareStreamedList`
// is the streamed list the informers use when the server offers it (list-watch.ts), which tells how
// much of a paged list's time is the server paging.
import type { KubeHttp } from "../src/runtime/kube-http.js";
import { INITIAL_EVENTS_END, LIST_PAGE_SIZE } from "../src/runtime/list-watch.js";

export interface BareListResult {
  objects: number;
  seconds: number;
}

interface Page {
  metadata?: { continue?: string };
  items?: unknown[];
}

/** Lists `path` page by page. */
export async function bareList(http: KubeHttp, path: string): Promise<BareListResult> {
  const started = performance.now();
  let objects = 0;
  let cont: string | undefined;
  do {
    const page = (await http.request("GET", path, {
      query: { limit: LIST_PAGE_SIZE, continue: cont },
      timeoutMs: 60_000,
    })) as Page;
    objects += page.items?.length ?? 0;
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return { objects, seconds: (performance.now() - started) / 1000 };
}

interface Line {
  type?: string;
  object?: { metadata?: { annotations?: Record<string, string> } };
}

/** Lists `path` as a watch's initial events, up to the bookmark that ends them. */
export async function bareStreamedList(http: KubeHttp, path: string): Promise<BareListResult> {
  const started = performance.now();
  const ended = new AbortController();
  let objects = 0;
  await http.stream(
    path,
    {
      query: {
        watch: true,
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
      },
      idleTimeoutMs: 60_000,
      signal: ended.signal,
    },
    (value) => {
      const line = value as Line;
      if (line.type === "ADDED") objects++;
      else if (
        line.type === "BOOKMARK" &&
        line.object?.metadata?.annotations?.[INITIAL_EVENTS_END] === "true"
      ) {
        ended.abort();
      }
    },
  );
  // Aborted only at the bookmark: a stream that ends otherwise did not finish the list.
  if (!ended.signal.aborted)
    throw new Error(`the streamed list of ${path} ended before its initial events did`);
  return { objects, seconds: (performance.now() - started) / 1000 };
}
