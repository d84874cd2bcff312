// A call's path as the app routes, logs and reports it.

/** A call's path: without the query (or a fragment), which may carry a token and is never logged. */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end < 0 ? url : url.slice(0, end);
}

/** Whether `path` is `base` or below it, compared as the router compares paths (case-insensitive). */
export function isBelow(path: string, base: string): boolean {
  const head = path.slice(0, base.length + 1).toLowerCase();
  return head === base.toLowerCase() || head === `${base.toLowerCase()}/`;
}
