// NodeInformers (src/targets/node-informers.ts) with real informers over a scripted list-watch and
// the in-memory API server for its permission check: one informer whatever the selectors, made only
// when asked, counting through its transform; a refusal is an answer, checked again later; a Node
// change that can change a count is reported with its selector, a heartbeat is not.
import type { KubernetesObject } from "@kubernetes/client-node";
import { NodeInformers, NODES_FORBIDDEN_MESSAGE } from "../../../src/targets/node-informers.js";
import type { NodeReadinessRule } from "../../../src/targets/node-readiness.js";
import { ApiError } from "../../../src/runtime/api-errors.js";
import { NODES } from "../../../src/runtime/builtin-kinds.js";
import { FakeClock, flushPromises } from "../../support/fake-clock.js";
import { FakeKube } from "../../support/fake-kube.js";
import { FakeListWatch, runningInformers } from "../runtime/fake-list-watch.js";

const POOL = { "karpenter.sh/nodepool": "gpu" };
const rule: NodeReadinessRule = { nodeSelector: POOL, declaredTaints: [] };

function node(name: string, rv: string, o: { ready?: string; taint?: boolean } = {}): KubernetesObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, resourceVersion: rv, labels: { ...POOL, "kubernetes.io/hostname": name } },
    spec: o.taint ? { taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] } : {},
    status: {
      conditions: [
        {
          type: "Ready",
          status: o.ready ?? "True",
          lastHeartbeatTime: `2025-01-01T00:00:${rv.padStart(2, "0")}Z`,
        },
      ],
    },
  } as KubernetesObject;
}

function setup(fake = new FakeKube()) {
  const clock = new FakeClock();
  const lw = new FakeListWatch();
  const changed: string[] = [];
  const stop = new AbortController();
  const { informer, made } = runningInformers(lw, clock, stop.signal);
  const nodes = new NodeInformers({
    informer,
    client: fake,
    clock,
    onChange: (selector) => changed.push(selector),
    forbiddenRetryMs: 10_000,
    syncWaitMs: 5_000,
  });
  return { nodes, lw, made, changed, clock, stop, fake };
}

const forbidden = () =>
  new ApiError(403, "Forbidden", 'nodes is forbidden: User "operator" cannot list resource "nodes"');

afterEach(async () => {
  await flushPromises();
});

test("one cluster-wide informer, made when first asked, counting ready Nodes in memory", async () => {
  const t = setup();
  t.lw.next = () => ({
    items: [node("a", "1"), node("b", "1", { ready: "False" }), node("c", "1", { taint: true })],
    resourceVersion: "1",
  });
  expect(t.made).toEqual([]);
  // Beside the count, the selected Nodes that do not count and why (node-readiness.ts, countNodes).
  expect(await t.nodes.count(rule)).toEqual({
    ready: 1,
    heldBack: {
      total: 2,
      nodes: [
        { node: "c", reason: "NotRegistered", taint: "karpenter.sh/unregistered:NoExecute" },
        { node: "b", reason: "NotReady" },
      ],
    },
  });
  expect(t.made).toHaveLength(1);
  expect(t.made[0]).toMatchObject({ path: "/api/v1/nodes" });
  expect(t.made[0]).not.toHaveProperty("labelSelector");
  // The same labels in another order: the same informer.
  await t.nodes.count({ nodeSelector: { ...POOL }, declaredTaints: [] });
  expect(t.made).toHaveLength(1);
  // The permission was checked once.
  expect(t.fake.calls.filter((c) => c.resource === NODES.resource)).toEqual([
    { verb: "list", resource: "nodes", namespace: undefined, name: undefined },
  ]);
  t.stop.abort();
});

test("a refusal is an answer, believed for forbiddenRetryMs, and no informer is made", async () => {
  const fake = new FakeKube();
  fake.inject({ match: (c) => c.resource === "nodes", when: "before", error: forbidden });
  const t = setup(fake);
  expect(await t.nodes.count(rule)).toEqual({ forbidden: NODES_FORBIDDEN_MESSAGE });
  expect(await t.nodes.count(rule)).toEqual({ forbidden: NODES_FORBIDDEN_MESSAGE });
  expect(fake.calls.filter((c) => c.resource === "nodes")).toHaveLength(1);
  expect(t.made).toEqual([]);
  // Granted meanwhile (the injection hit its one call): checked again after the retry period.
  await t.clock.advance(10_000);
  expect(await t.nodes.count(rule)).toMatchObject({ ready: 0 });
  expect(t.made).toHaveLength(1);
  t.stop.abort();
});

test("another error of the check fails the count (the pass is retried), and is not remembered", async () => {
  const fake = new FakeKube();
  fake.inject({
    match: (c) => c.resource === "nodes",
    when: "before",
    error: () => new ApiError(500, "InternalError", "boom"),
  });
  const t = setup(fake);
  await expect(t.nodes.count(rule)).rejects.toThrow("boom");
  expect(await t.nodes.count(rule)).toMatchObject({ ready: 0 });
  t.stop.abort();
});

test("a count waits for the informer's first list, and fails after syncWaitMs without it", async () => {
  const t = setup();
  t.lw.next = () => {
    throw new Error("the API server is away");
  };
  let outcome: unknown;
  void t.nodes.count(rule).then(
    (answer) => (outcome = answer),
    (err: unknown) => (outcome = err),
  );
  await t.clock.advance(4_999);
  expect(outcome).toBeUndefined();
  await t.clock.advance(1);
  expect(outcome).toEqual(
    new Error("the Nodes selected by karpenter.sh/nodepool=gpu are not listed yet; retrying"),
  );
  t.stop.abort();
});

test("changes that can change a count are reported with the selector; a heartbeat is not", async () => {
  const t = setup();
  t.lw.next = () => ({ items: [node("a", "1")], resourceVersion: "1" });
  await t.nodes.count(rule);
  expect(t.changed).toEqual(["karpenter.sh/nodepool=gpu"]);
  t.changed.length = 0;
  t.lw.current.emit({ type: "MODIFIED", object: node("a", "2") });
  expect(t.changed).toEqual([]);
  t.lw.current.emit({ type: "MODIFIED", object: node("a", "3", { taint: true }) });
  t.lw.current.emit({ type: "ADDED", object: node("b", "4") });
  t.lw.current.emit({ type: "DELETED", object: node("b", "5") });
  expect(t.changed).toEqual(Array(3).fill("karpenter.sh/nodepool=gpu"));
  expect(await t.nodes.count(rule)).toMatchObject({ ready: 0 });
  t.stop.abort();
});

test("changing a group's selector 50 times opens one Node watch, not 50", async () => {
  const t = setup();
  t.lw.next = () => ({ items: [node("a", "1"), node("b", "1")], resourceVersion: "1" });
  for (let i = 0; i < 50; i++) {
    const answer = await t.nodes.count({ nodeSelector: { "example.com/pool": `p${i}` }, declaredTaints: [] });
    expect(answer).toMatchObject({ ready: 0 });
  }
  expect(await t.nodes.count(rule)).toMatchObject({ ready: 2 });
  expect(t.made).toHaveLength(1);
  expect(t.nodes.watches()).toBe(1);
  t.stop.abort();
});

test("a Node change is reported to the selectors that select it, before or after", async () => {
  const t = setup();
  t.lw.next = () => ({ items: [], resourceVersion: "1" });
  const other = { nodeSelector: { "example.com/pool": "cpu" }, declaredTaints: [] };
  await t.nodes.count(rule);
  await t.nodes.count(other);
  t.lw.current.emit({ type: "ADDED", object: node("a", "2") });
  expect(t.changed).toEqual(["karpenter.sh/nodepool=gpu"]);
  t.changed.length = 0;
  // Relabelled into the other pool: both hear of it.
  const moved = node("a", "3");
  (moved.metadata as { labels: Record<string, string> }).labels = { "example.com/pool": "cpu" };
  t.lw.current.emit({ type: "MODIFIED", object: moved });
  expect(t.changed.sort()).toEqual(["example.com/pool=cpu", "karpenter.sh/nodepool=gpu"]);
  t.stop.abort();
});
