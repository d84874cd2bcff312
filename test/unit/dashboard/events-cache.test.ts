// The dashboard's events cache: which Events it keeps (the operator's own, about its kinds), how the
// API server is asked for them, the lookups by object and namespace, and the newest-first selection of
// the Events page.
import { API_VERSION, REPORTING_CONTROLLER } from "../../../src/api/names.js";
import {
  eventNamespaces,
  eventsAbout,
  eventsInformerSpec,
  isShownEvent,
  newest,
  OWN_EVENTS_SELECTOR,
} from "../../../src/dashboard/events-cache.js";
import type { KubeEvent } from "../../../src/events/view.js";
import { Store } from "../../../src/runtime/store.js";

const event = (
  regarding: { apiVersion?: string; kind?: string; name?: string },
  /** null: none at all. */
  reportingController: string | null = REPORTING_CONTROLLER,
  namespace = "team-a",
  name = "e1",
) => ({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name, namespace, resourceVersion: "1" },
  regarding: { namespace, name: "x", ...regarding },
  ...(reportingController !== null && { reportingController }),
  reason: "Unhealthy",
  note: "Readiness probe failed: password=hunter2",
});

describe("isShownEvent", () => {
  const PR = "autoscaling.x-k8s.io";
  test.each([
    // [about, regarding.apiVersion, regarding.kind, kept]
    ["a ResizeRequest", API_VERSION, "ResizeRequest", true],
    ["an InstanceGroupManager", API_VERSION, "InstanceGroupManager", true],
    ["a ProvisioningRequest", `${PR}/v1`, "ProvisioningRequest", true],
    ["a ProvisioningRequest of an older version", `${PR}/v1beta1`, "ProvisioningRequest", true],
    ["a Pod, in our controller's name", "v1", "Pod", false],
    ["another group's kind of the same name", "example.com/v1", "ResizeRequest", false],
    ["no apiVersion", undefined, "ResizeRequest", false],
    ["no kind", API_VERSION, undefined, false],
  ] as const)("our controller's Event about %s (%s %s): kept %s", (_about, apiVersion, kind, kept) => {
    expect(isShownEvent(event({ ...(apiVersion && { apiVersion }), ...(kind && { kind }) }))).toBe(kept);
  });

  test.each([null, "kubelet", `${REPORTING_CONTROLLER}-not`])(
    "an Event about a request from reportingController %s is not kept",
    (controller) => {
      expect(isShownEvent(event({ apiVersion: API_VERSION, kind: "ResizeRequest" }, controller))).toBe(false);
    },
  );
});

test("the API server is asked for the operator's Events only, in the operator's namespace if it has one", () => {
  expect(OWN_EVENTS_SELECTOR).toBe("reportingController=compute.resize-operator.dev/resize-controller");
  const all = eventsInformerSpec();
  expect(all.path).toBe("/apis/events.k8s.io/v1/events");
  expect(all.fieldSelector).toBe(OWN_EVENTS_SELECTOR);
  expect(all.filter).toBe(isShownEvent);
  expect(eventsInformerSpec("team-a").path).toBe("/apis/events.k8s.io/v1/namespaces/team-a/events");
});

test("lookups: an object's Events by kind and name, and the namespaces that have Events", () => {
  const spec = eventsInformerSpec();
  const store = new Store<KubeEvent>(spec.indexers, spec.counters);
  const rr = { apiVersion: API_VERSION, kind: "ResizeRequest", name: "r1" };
  const put = (raw: ReturnType<typeof event>) => store.set(spec.decode(raw));
  put(event(rr, REPORTING_CONTROLLER, "team-a", "e1"));
  put(event(rr, REPORTING_CONTROLLER, "team-a", "e2"));
  put(event({ ...rr, kind: "InstanceGroupManager" }, REPORTING_CONTROLLER, "team-a", "e3"));
  put(event(rr, REPORTING_CONTROLLER, "team-b", "e4"));
  expect(eventsAbout(store, "team-a", "ResizeRequest", "r1").map((e) => e.metadata?.name)).toEqual([
    "e1",
    "e2",
  ]);
  expect(eventsAbout(store, "team-a", "ResizeRequest", "r2")).toEqual([]);
  expect(eventNamespaces(store).sort()).toEqual(["team-a", "team-b"]);
  store.delete("team-b/e4");
  expect(eventNamespaces(store)).toEqual(["team-a"]);
});

describe("newest", () => {
  const at = (s: string) => s.split(" ")[0] ?? "";
  test.each([
    { items: [], limit: 3, expected: [] },
    { items: ["2 a", "1 b"], limit: 0, expected: [] },
    { items: ["1 a", "3 b", "2 c"], limit: 5, expected: ["3 b", "2 c", "1 a"] },
    { items: ["1 a", "3 b", "2 c", "5 d", "4 e"], limit: 2, expected: ["5 d", "4 e"] },
    // Equal times keep their order, as a stable sort would.
    { items: ["2 a", "1 b", "2 c", "2 d"], limit: 3, expected: ["2 a", "2 c", "2 d"] },
    { items: ["1 a", "1 b", "1 c"], limit: 2, expected: ["1 a", "1 b"] },
  ])("$items, at most $limit: $expected", ({ items, limit, expected }) => {
    expect(newest(items, limit, at)).toEqual(expected);
  });

  test("gives what sorting everything newest first and cutting gives", () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 50; round++) {
      const items = Array.from({ length: Math.floor(random() * 400) }, (_, i) => ({
        i,
        time: new Date(Math.floor(random() * 100) * 1000).toISOString(),
      }));
      const limit = Math.floor(random() * 250);
      const sorted = [...items].sort((a, b) => b.time.localeCompare(a.time)).slice(0, limit);
      expect(newest(items, limit, (x) => x.time)).toEqual(sorted);
    }
  });
});
