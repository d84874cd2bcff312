// The ScaleClient on the in-memory API server (test/support/fake-kube.ts): a cluster-scoped target is
// read and scaled without a namespace, and a forbidden call is a refusal the group shows, not an error
// (a forbidden /scale update is remembered for a while so it is not tried at every pass).
import { ScaleClient, type TargetRef } from "../../../src/targets/scale-client.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import type { ResourceLocation } from "../../../src/runtime/resource-kind.js";
import { FakeKube, type FakeCall } from "../../support/fake-kube.js";

const READY = "status.readyReplicas";
const API_VERSION = "test.example.com/v1";
const forbidden = (call: FakeCall): ApiError =>
  new ApiError(
    403,
    "Forbidden",
    `${call.resource} "${call.name ?? ""}" is forbidden: User "op" cannot ${call.verb}`,
  );

function cluster(namespaced: boolean) {
  let now = 1_000_000;
  const fake = new FakeKube(() => now);
  const kind = namespaced ? "Widget" : "Gadget";
  const resource = namespaced ? "widgets" : "gadgets";
  fake.serve(API_VERSION, [
    { name: resource, kind, namespaced },
    { name: `${resource}/scale`, kind: "Scale", namespaced },
  ]);
  const where: ResourceLocation = { apiVersion: API_VERSION, resource, namespaced };
  fake.seed(where, {
    apiVersion: API_VERSION,
    kind,
    metadata: { name: "one", ...(namespaced && { namespace: "team-a" }) },
    spec: { replicas: 2 },
    status: { replicas: 2, readyReplicas: 1 },
  });
  const ref: TargetRef = { apiVersion: API_VERSION, kind, name: "one" };
  const scale = new ScaleClient(fake, { refusedUpdateTtlMs: 5_000, now: () => now });
  return { fake, ref, where, scale, advance: (ms: number) => (now += ms) };
}

test("a cluster-scoped target is read and scaled without a namespace", async () => {
  const { fake, ref, where, scale } = cluster(false);
  const read = await scale.read("team-a", ref, READY);
  expect(read).toMatchObject({
    found: true,
    replicas: 2,
    readyReplicas: 1,
    served: { resource: "gadgets", namespaced: false },
  });
  if (!read.found) throw new Error("not found");
  expect(await scale.scale("team-a", ref, 2, 5, read.scale)).toBe(true);
  expect(fake.peek(where, { name: "one" })?.spec).toEqual({ replicas: 5 });
  expect(fake.calls.map((c) => [c.verb, c.resource, c.namespace])).toEqual([
    ["get", "gadgets", undefined],
    ["get", "gadgets/scale", undefined],
    ["update", "gadgets/scale", undefined],
  ]);
});

test("a namespaced target is addressed in the group's namespace", async () => {
  const { fake, ref, scale } = cluster(true);
  expect(await scale.read("team-a", ref, READY)).toMatchObject({ found: true, served: { namespaced: true } });
  expect(fake.calls.map((c) => c.namespace)).toEqual(["team-a", "team-a"]);
});

test("a missing target is named as it is: no namespace for a cluster-scoped one", async () => {
  const { ref, scale } = cluster(false);
  expect(await scale.read("team-a", { ...ref, name: "two" }, READY)).toEqual({
    found: false,
    reason: "NotFound",
    message: "Gadget two does not exist",
  });
  const ns = cluster(true);
  expect(await ns.scale.read("team-a", { ...ns.ref, name: "two" }, READY)).toMatchObject({
    message: "Widget team-a/two does not exist",
  });
});

test.each([
  ["the object", "gadgets", 'may not get gadgets.test.example.com "one" (cluster-scoped)'],
  ["its /scale", "gadgets/scale", 'may not get gadgets.test.example.com/scale "one" (cluster-scoped)'],
])("a 403 reading %s is TargetForbidden", async (_label, resource, says) => {
  const { fake, ref, scale } = cluster(false);
  fake.inject({ match: (c) => c.resource === resource, when: "before", error: forbidden });
  const read = await scale.read("team-a", ref, READY);
  expect(read).toMatchObject({ found: false, reason: "TargetForbidden" });
  expect(read.found ? "" : read.message).toContain(says);
});

test("a 403 updating /scale: no change, and read() tells it until it is tried again", async () => {
  const { fake, ref, scale, advance } = cluster(true);
  fake.inject({ match: (c) => c.verb === "update", when: "before", error: forbidden });
  const read = await scale.read("team-a", ref, READY);
  if (!read.found) throw new Error("not found");
  expect(await scale.scale("team-a", ref, 2, 5, read.scale)).toBe(false);
  const calls = fake.calls.length;
  const refused = await scale.read("team-a", ref, READY);
  expect(refused).toMatchObject({ found: false, reason: "TargetForbidden" });
  expect(refused.found ? "" : refused.message).toContain(
    'may not update widgets.test.example.com/scale "one" in namespace team-a',
  );
  expect(fake.calls.length).toBe(calls);
  advance(5_000);
  expect(await scale.read("team-a", ref, READY)).toMatchObject({ found: true, replicas: 2 });
});

test("a 403 reading /scale again before the update names the read", async () => {
  const { fake, ref, scale } = cluster(true);
  fake.inject({
    match: (c) => c.verb === "get" && c.resource === "widgets/scale",
    when: "before",
    error: forbidden,
  });
  expect(await scale.scale("team-a", ref, 2, 5)).toBe(false);
  const refused = await scale.read("team-a", ref, READY);
  expect(refused.found ? "" : refused.message).toContain('may not get widgets.test.example.com/scale "one"');
});

test("any other error is not a refusal: it fails the call as before", async () => {
  const { fake, ref, scale } = cluster(true);
  const boom = (): ApiError => new ApiError(500, undefined, "etcd is down");
  fake.inject({ match: (c) => c.resource === "widgets", when: "before", error: boom });
  await expect(scale.read("team-a", ref, READY)).rejects.toThrow("etcd is down");
  fake.inject({ match: (c) => c.verb === "update", when: "before", error: boom });
  await expect(scale.scale("team-a", ref, 2, 5)).rejects.toThrow("etcd is down");
});

describe("with the operator's list of cluster-scoped targets", () => {
  test("an unlisted cluster-scoped kind is refused from discovery alone, before any read", async () => {
    const { fake, ref } = cluster(false);
    const scale = new ScaleClient(fake, { clusterScopedTargets: new Set(["NodePool.karpenter.sh"]) });
    expect(await scale.read("team-a", ref, READY)).toMatchObject({
      found: false,
      reason: "ClusterScopedTargetNotAllowed",
    });
    expect(fake.calls).toEqual([]);
  });

  test("a listed one is read", async () => {
    const { fake, ref } = cluster(false);
    const scale = new ScaleClient(fake, { clusterScopedTargets: new Set(["Gadget.test.example.com"]) });
    expect(await scale.read("team-a", ref, READY)).toMatchObject({ found: true, replicas: 2 });
  });

  test("a kind served under another resource than the guess is refused", async () => {
    const fake = new FakeKube(() => 0);
    fake.serve(API_VERSION, [
      { name: "octopi", kind: "Octopus", namespaced: true },
      { name: "octopi/scale", kind: "Scale", namespaced: true },
    ]);
    const scale = new ScaleClient(fake, { clusterScopedTargets: new Set() });
    const read = await scale.read("team-a", { apiVersion: API_VERSION, kind: "Octopus", name: "o" }, READY);
    expect(read).toMatchObject({ found: false, reason: "TargetResourceMismatch" });
    expect(fake.calls).toEqual([]);
  });
});
