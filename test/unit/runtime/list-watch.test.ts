// The HTTP list of a ListWatch prepares (decodes) each page before it asks for the next one, so that a
// large list never holds every raw object at once; what `prepare` drops is not listed.
import type { KubeHttp } from "../../../src/runtime/kube-http.js";
import { httpListWatch } from "../../../src/runtime/list-watch.js";

test("each page is prepared before the next page is requested", async () => {
  const log: string[] = [];
  const pages: Record<string, { items: { metadata: { name: string } }[]; metadata: Record<string, string> }> =
    {
      "": { items: [{ metadata: { name: "a" } }, { metadata: { name: "b" } }], metadata: { continue: "p2" } },
      p2: { items: [{ metadata: { name: "c" } }], metadata: { resourceVersion: "9" } },
    };
  const http = {
    request: (_method: string, _path: string, options: { query: { continue?: string } }) => {
      const token = options.query.continue ?? "";
      log.push(`GET page ${token || "1"}`);
      return Promise.resolve(pages[token]);
    },
  } as unknown as KubeHttp;
  const lw = httpListWatch(http, "/api/v1/namespaces/ns/configmaps", { pageSize: 2 });
  const listed = await lw.list(new AbortController().signal, (raw) => {
    log.push(`prepare ${raw.metadata?.name ?? ""}`);
    return raw.metadata?.name === "b" ? undefined : raw.metadata?.name;
  });
  expect(log).toEqual(["GET page 1", "prepare a", "prepare b", "GET page p2", "prepare c"]);
  expect(listed).toEqual({ items: ["a", "c"], resourceVersion: "9" });
});
