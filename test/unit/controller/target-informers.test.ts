// Targets from informers (src/targets/informers.ts) under the real ScaleClient, with real
// informers over a scripted list-watch and the in-memory API server for everything else: once the
// kind's informer has listed, a pass reads its target with no call and writes /scale with no read; our
// own write shows until the cache delivers it; a refused list, or a kind whose /scale fields are not
// known, is read with GETs (counted as such) and the cache is tried again after the retry period.
import type { KubernetesObject } from "@kubernetes/client-node";
import { ScaleClient, TARGET_READS_METRIC, type TargetRef } from "../../../src/targets/scale-client.js";
import { TargetInformers, type ChangedTarget } from "../../../src/targets/informers.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { Informer } from "../../../src/runtime/informer.js";
import type { InformerSpec } from "../../../src/runtime/manager.js";
import type { KubeObject } from "../../../src/runtime/object.js";
import type { ResourceLocation } from "../../../src/runtime/resource-kind.js";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { FakeKube, type FakeCall } from "../../support/fake-kube.js";
import { InMemoryMetrics } from "../../support/in-memory-metrics.js";
import { FakeListWatch, runningInformers } from "../runtime/fake-list-watch.js";

const READY = "status.readyReplicas";
const DEPLOYMENTS: ResourceLocation = { apiVersion: "apps/v1", resource: "deployments", namespaced: true };
const WIDGETS: ResourceLocation = {
  apiVersion: "test.example.com/v1",
  resource: "widgets",
  namespaced: true,
};
const CRDS: ResourceLocation = {
  apiVersion: "apiextensions.k8s.io/v1",
  resource: "customresourcedefinitions",
  namespaced: false,
};
const WEB: TargetRef = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };
const forbidden = (call: FakeCall): ApiError =>
  new ApiError(403, "Forbidden", `${call.resource} is forbidden: User "op" cannot ${call.verb}`);

function setup() {
  const clock = new FakeClock();
  const fake = new FakeKube(() => clock.now());
  for (const [where, kind] of [
    [DEPLOYMENTS, "Deployment"],
    [WIDGETS, "Widget"],
  ] as const)
    fake.serve(where.apiVersion, [
      { name: where.resource, kind, namespaced: true },
      { name: `${where.resource}/scale`, kind: "Scale", namespaced: true },
    ]);
  fake.seed(DEPLOYMENTS, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "team-a",
      generation: 1,
      annotations: { note: "x".repeat(100) },
      labels: { app: "web" },
      managedFields: [{ manager: "kubectl" }],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: { spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
    status: { observedGeneration: 1, replicas: 2, readyReplicas: 1 },
  });
  const lw = new FakeListWatch();
  // The informer lists what the API server holds.
  lw.next = () => ({
    items: [fake.peek(DEPLOYMENTS, { namespace: "team-a", name: "web" }) as KubernetesObject],
    resourceVersion: "1",
  });
  const changed: ChangedTarget[] = [];
  const stop = new AbortController();
  const { informer, made } = runningInformers(lw, clock, stop.signal);
  const targets = new TargetInformers({
    informer,
    client: fake,
    namespace: undefined,
    onChange: (target) => changed.push(target),
    retryMs: 10_000,
    clock,
  });
  const metrics = new InMemoryMetrics();
  const scale = new ScaleClient(fake, { cache: targets, metrics });
  const reads = (source: string) => metrics.get(TARGET_READS_METRIC, { source }) ?? 0;
  const targetCalls = () => fake.calls.filter((c) => c.resource.startsWith("deployments"));
  return { clock, fake, lw, made, changed, stop, scale, reads, targetCalls };
}

afterEach(async () => {
  await flushPromises();
});

test("once the kind's informer has listed: reads and the write's Scale come from it, with no read call", async () => {
  const t = setup();
  // The first pass creates the informer and, while it lists, reads the API server.
  expect(await t.scale.read("team-a", WEB, READY)).toMatchObject({ found: true, replicas: 2 });
  expect(t.reads("api")).toBe(1);
  expect(t.made).toHaveLength(1);
  expect(t.made[0]?.path).toBe("/apis/apps/v1/deployments");
  await flushPromises();
  t.fake.calls.length = 0;

  const read = await t.scale.read("team-a", WEB, READY);
  expect(read).toMatchObject({
    found: true,
    replicas: 2,
    readyReplicas: 1,
    settled: true,
    selector: "app=web",
    served: { resource: "deployments", namespaced: true },
  });
  expect(t.reads("cache")).toBe(1);
  if (!read.found) throw new Error("not found");
  // What the cache keeps of the object: no template, annotations, labels or managedFields.
  expect(read.object).toEqual({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: expect.objectContaining({ name: "web", namespace: "team-a", generation: 1 }) as object,
    spec: { replicas: 2, selector: { matchLabels: { app: "web" } } },
    status: { observedGeneration: 1, replicas: 2, readyReplicas: 1 },
  });
  expect(Object.keys(read.object.metadata ?? {}).sort()).toEqual([
    "generation",
    "name",
    "namespace",
    "resourceVersion",
    "uid",
  ]);

  // The write goes under the cached object's resourceVersion: one call, no read.
  expect(await t.scale.scale("team-a", WEB, 2, 5, read.scale)).toBe(true);
  expect(t.targetCalls().map((c) => [c.verb, c.resource])).toEqual([["update", "deployments/scale"]]);
  const written = t.fake.peek(DEPLOYMENTS, { namespace: "team-a", name: "web" });
  expect((written?.spec as { replicas: number }).replicas).toBe(5);

  // Before the cache delivers the write, a pass sees what we wrote, not yet observed by its controller.
  expect(await t.scale.read("team-a", WEB, READY)).toMatchObject({ replicas: 5, settled: false });
  expect(t.targetCalls()).toHaveLength(1);

  // Delivered: the cache's own object, and the groups pointing at it are told.
  t.changed.length = 0;
  t.lw.current.emit({ type: "MODIFIED", object: written as KubernetesObject });
  expect(t.changed).toEqual([{ apiGroup: "apps", kind: "Deployment", namespace: "team-a", name: "web" }]);
  const after = await t.scale.read("team-a", WEB, READY);
  expect(after).toMatchObject({ replicas: 5 });
  if (!after.found) throw new Error("not found");
  expect(after.scale.metadata.resourceVersion).toBe((written as KubeObject).metadata?.resourceVersion);
  expect(t.targetCalls()).toHaveLength(1);
  expect(t.reads("cache")).toBe(3);
  expect(t.reads("api")).toBe(1);
  t.stop.abort();
});

test("a cached Scale behind the server: the write conflicts, one fresh read, and a moved target is not overwritten", async () => {
  const t = setup();
  await t.scale.read("team-a", WEB, READY);
  await flushPromises();
  const read = await t.scale.read("team-a", WEB, READY);
  if (!read.found) throw new Error("not found");
  // Someone else scales to 3; the cache has not seen it.
  expect(await new ScaleClient(t.fake).scale("team-a", WEB, 2, 3)).toBe(true);
  t.fake.calls.length = 0;
  expect(await t.scale.scale("team-a", WEB, 2, 5, read.scale)).toBe(false);
  expect(t.targetCalls().map((c) => [c.verb, c.resource])).toEqual([
    ["update", "deployments/scale"],
    ["get", "deployments/scale"],
  ]);
  expect(
    (t.fake.peek(DEPLOYMENTS, { namespace: "team-a", name: "web" })?.spec as { replicas: number }).replicas,
  ).toBe(3);
  t.stop.abort();
});

test("list refused: GETs, counted as api reads, and the cache is tried again after the retry period", async () => {
  const t = setup();
  t.fake.inject({
    match: (c) => c.resource === "deployments" && c.verb === "list",
    when: "before",
    error: forbidden,
  });
  for (let pass = 0; pass < 2; pass++)
    expect(await t.scale.read("team-a", WEB, READY)).toMatchObject({
      found: true,
      replicas: 2,
      readyReplicas: 1,
    });
  expect(t.made).toEqual([]);
  expect(t.reads("api")).toBe(2);
  expect(t.targetCalls().map((c) => [c.verb, c.resource])).toEqual([
    ["list", "deployments"],
    ["get", "deployments"],
    ["get", "deployments/scale"],
    ["get", "deployments"],
    ["get", "deployments/scale"],
  ]);
  // Granted meanwhile (the injection hit its one call).
  await t.clock.advance(10_000);
  await t.scale.read("team-a", WEB, READY);
  expect(t.made).toHaveLength(1);
  await flushPromises();
  await t.scale.read("team-a", WEB, READY);
  expect(t.reads("cache")).toBe(1);
  t.stop.abort();
});

test("a custom resource: its CRD's /scale fields, read once; without the CRD, GETs", async () => {
  const t = setup();
  const widget: TargetRef = { apiVersion: "test.example.com/v1", kind: "Widget", name: "w" };
  t.fake.seed(WIDGETS, {
    apiVersion: "test.example.com/v1",
    kind: "Widget",
    metadata: { name: "w", namespace: "team-a" },
    spec: { size: 4 },
    status: { count: 4 },
  });
  // No CRD readable yet: the scale fields are unknown, no informer, GETs.
  expect(await t.scale.read("team-a", widget, "status.count")).toMatchObject({
    found: true,
    readyReplicas: 4,
  });
  expect(t.made).toEqual([]);
  expect(t.fake.calls.filter((c) => c.resource === "customresourcedefinitions")).toHaveLength(1);
  t.fake.seed(CRDS, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.test.example.com" },
    spec: {
      versions: [
        {
          name: "v1",
          subresources: { scale: { specReplicasPath: ".spec.size", statusReplicasPath: ".status.count" } },
        },
      ],
    },
  });
  await t.clock.advance(60_000);
  t.lw.next = () => ({
    items: [t.fake.peek(WIDGETS, { namespace: "team-a", name: "w" }) as KubernetesObject],
    resourceVersion: "1",
  });
  await t.scale.read("team-a", widget, "status.count");
  expect(t.made.map((s) => s.path)).toEqual(["/apis/test.example.com/v1/widgets"]);
  await flushPromises();
  t.fake.calls.length = 0;
  const read = await t.scale.read("team-a", widget, "status.count");
  expect(read).toMatchObject({ found: true, replicas: 4, readyReplicas: 4, settled: true });
  expect(t.fake.calls).toEqual([]);
  t.stop.abort();
});

test("with --namespace, a namespaced kind is watched in that namespace only", async () => {
  const t = setup();
  const targets = new TargetInformers({
    informer: <T extends KubeObject>(spec: InformerSpec<T>) => {
      t.made.push(spec as InformerSpec<KubeObject>);
      return new Informer<T>({ ...spec, listWatch: t.lw, clock: t.clock });
    },
    client: t.fake,
    namespace: "team-a",
    onChange: () => undefined,
  });
  await targets.lookup(WEB, DEPLOYMENTS, "team-a", "web");
  expect(t.made.map((s) => s.path)).toEqual(["/apis/apps/v1/namespaces/team-a/deployments"]);
  expect(t.fake.calls.filter((c) => c.verb === "list")).toEqual([
    { verb: "list", resource: "deployments", namespace: "team-a", name: undefined },
  ]);
});
