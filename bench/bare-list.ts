// The start-up benchmark's baseline: the informer's list of the same collection without the informer —
// the same pages (LIST_PAGE_SIZE, continue tokens) fetched one after another over the same transport,
// each answer only JSON-parsed and dropped. What remains of the operator's start-up above this is ours.
import type { KubeHttp } from "../src/runtime/kube-http.js";
import { LIST_PAGE_SIZE } from "../src/runtime/list-watch.js";

interface Page {
  metadata?: { continue?: string };
  items?: unknown[];
}

/** Lists `path` page by page; resolves with the number of objects and the seconds it took. */
export async function bareList(http: KubeHttp, path: string): Promise<{ objects: number; seconds: number }> {
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
