// The HTTP list of a ListWatch: streamed (a watch's initial events, ended by the bookmark that says so)
// when the server offers it, paged otherwise, with a refusal remembered; pages are fetched one ahead of
// the one being prepared, never more, and what `prepare` drops is not listed.
import { ApiError } from "../../../src/runtime/api-errors.js";
import type { KubeHttp, Query, StreamOptions } from "../../../src/runtime/kube-http.js";
import { httpListWatch, INITIAL_EVENTS_END, refusesStreamingList } from "../../../src/runtime/list-watch.js";

type Page = { items: { metadata: { name: string } }[]; metadata: Record<string, string> };

const PATH = "/api/v1/namespaces/ns/configmaps";
const added = (name: string) => ({ type: "ADDED", object: { metadata: { name } } });
const bookmark = (resourceVersion: string, annotations: Record<string, string> = {}) => ({
  type: "BOOKMARK",
  object: { metadata: { resourceVersion, annotations } },
});
const endOfInitialEvents = (resourceVersion: string) =>
  bookmark(resourceVersion, { [INITIAL_EVENTS_END]: "true" });

/**
 * A KubeHttp serving `pages` (by continue token, "" first) to `request`, and to `stream` either the
 * `lines` (then it waits for the abort, as an open watch does) or the error `refuse`.
 */
function fakeHttp(options: { pages?: Record<string, Page>; lines?: unknown[]; refuse?: Error }) {
  const log: string[] = [];
  const queries: Query[] = [];
  const http = {
    request: async (_method: string, _path: string, call: { query: { continue?: string } }) => {
      const token = call.query.continue ?? "";
      log.push(`GET page ${token || "1"}`);
      // Answers after a turn of the event loop, as a server does.
      await new Promise((resolve) => setImmediate(resolve));
      return options.pages?.[token];
    },
    stream: async (_path: string, call: StreamOptions, onLine: (value: unknown) => void) => {
      log.push("WATCH");
      queries.push(call.query ?? {});
      await new Promise((resolve) => setImmediate(resolve));
      if (options.refuse) throw options.refuse;
      // Then the server ends the stream; ending it at the bookmark aborts the signal.
      for (const line of options.lines ?? []) {
        if (call.signal?.aborted) return;
        onLine(line);
      }
    },
  } as unknown as KubeHttp;
  return { http, log, queries };
}

const keepNames = (log: string[]) => (raw: { metadata?: { name?: string } }) => {
  log.push(`prepare ${raw.metadata?.name ?? ""}`);
  return raw.metadata?.name === "b" ? undefined : raw.metadata?.name;
};

const PAGES: Record<string, Page> = {
  "": { items: [{ metadata: { name: "a" } }, { metadata: { name: "b" } }], metadata: { continue: "p2" } },
  p2: { items: [{ metadata: { name: "c" } }], metadata: { continue: "p3" } },
  p3: { items: [{ metadata: { name: "d" } }], metadata: { resourceVersion: "9" } },
};

test("a paged list asks for the next page before preparing the current one, and for one page ahead only", async () => {
  const { http, log } = fakeHttp({ pages: PAGES });
  const lw = httpListWatch(http, PATH, { pageSize: 2, streamingList: false });
  const listed = await lw.list(new AbortController().signal, keepNames(log));
  expect(log).toEqual([
    "GET page 1",
    "GET page p2",
    "prepare a",
    "prepare b",
    "GET page p3",
    "prepare c",
    "prepare d",
  ]);
  expect(listed).toEqual({ items: ["a", "c", "d"], resourceVersion: "9" });
});

test("a streamed list prepares each initial event and ends at the bookmark that ends them", async () => {
  const lines = [added("a"), bookmark("5"), added("b"), added("c"), endOfInitialEvents("9"), added("late")];
  const { http, log, queries } = fakeHttp({ lines });
  const lw = httpListWatch(http, PATH, { labelSelector: "x=y" });
  const listed = await lw.list(new AbortController().signal, keepNames(log));
  expect(listed).toEqual({ items: ["a", "c"], resourceVersion: "9", streamed: true });
  // A bookmark without the annotation is progress, not the end; nothing after the end is taken.
  expect(log).toEqual(["WATCH", "prepare a", "prepare b", "prepare c"]);
  expect(queries[0]).toMatchObject({
    labelSelector: "x=y",
    watch: true,
    sendInitialEvents: true,
    resourceVersionMatch: "NotOlderThan",
    allowWatchBookmarks: true,
  });
  expect(queries[0]?.resourceVersion).toBeUndefined();
});

/** Lists twice from a server whose streamed list goes as `server` says: the first result, and each list's calls. */
async function listTwice(server: { refuse?: Error; lines?: unknown[] }) {
  const { http, log } = fakeHttp({ ...server, pages: PAGES });
  const lw = httpListWatch(http, PATH, { pageSize: 2 });
  const first = await lw.list(new AbortController().signal, (raw) => raw.metadata?.name);
  const firstCalls = log.splice(0);
  await lw.list(new AbortController().signal, (raw) => raw.metadata?.name);
  return { first, firstCalls, secondCalls: log };
}

test.each([
  ["rejects the parameters (422)", new ApiError(422, "Invalid", "sendInitialEvents is forbidden")],
  ["rejects the request (400)", new ApiError(400, "BadRequest", "resourceVersionMatch is forbidden")],
])("a server that %s gets paged lists, from then on", async (_what, refuse) => {
  const { first, firstCalls, secondCalls } = await listTwice({ refuse });
  expect(first).toEqual({ items: ["a", "b", "c", "d"], resourceVersion: "9" });
  expect(firstCalls.slice(0, 2)).toEqual(["WATCH", "GET page 1"]);
  expect(secondCalls).not.toContain("WATCH");
});

test.each([
  ["ends the stream before the initial events end", [added("a")]],
  [
    "sends a change among the initial events",
    [added("a"), { type: "MODIFIED", object: { metadata: { name: "a" } } }],
  ],
])("a server that %s gets a paged list that time, and a streamed one the next", async (_what, lines) => {
  const { first, firstCalls, secondCalls } = await listTwice({ lines });
  expect(first).toEqual({ items: ["a", "b", "c", "d"], resourceVersion: "9" });
  expect(firstCalls.slice(0, 2)).toEqual(["WATCH", "GET page 1"]);
  expect(secondCalls[0]).toBe("WATCH");
});

test.each([
  ["throttling (429)", new ApiError(429, "TooManyRequests", "slow down")],
  ["a server error (500)", new ApiError(500, "InternalError", "etcd is down")],
  [
    "a refused verb (403, e.g. while the API server's authorizer starts)",
    new ApiError(403, "Forbidden", "no"),
  ],
  ["a network error", new Error("ECONNRESET")],
])(
  "%s is no refusal: the list fails, for the reflector to retry, and streams the next time",
  async (_what, err) => {
    expect(refusesStreamingList(err)).toBe(false);
    const { http, log } = fakeHttp({ refuse: err, pages: PAGES });
    const lw = httpListWatch(http, PATH);
    await expect(lw.list(new AbortController().signal, (raw) => raw)).rejects.toBe(err);
    await expect(lw.list(new AbortController().signal, (raw) => raw)).rejects.toBe(err);
    expect(log).toEqual(["WATCH", "WATCH"]);
  },
);
