// The resize reconciler's one memory between passes: when it last wrote each group's status, carried in
// the snapshot (decide/coalesce.ts decides on it). Kept per key, set only when a write was made, and
// forgotten when the group goes, so a group created again is written at once. The real observer and
// executor against the in-memory API server (test/support/fake-kube.ts).
import { pino } from "pino";
import { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { INSTANCE_GROUP_MANAGERS } from "../../../src/api/kinds.js";
import { API_VERSION } from "../../../src/api/names.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { GROUP_INDEXERS, REQUEST_INDEXERS } from "../../../src/cache/indexes.js";
import { resizeReconciler } from "../../../src/controllers/resize/controller.js";
import { DEFAULT_DECIDE_CONFIG } from "../../../src/controllers/resize/snapshot.js";
import type { ReconcileResult } from "../../../src/runtime/controller.js";
import type { ResourceLocation } from "../../../src/runtime/resource-kind.js";
import { Store } from "../../../src/runtime/store.js";
import type { NodeCounter } from "../../../src/targets/node-informers.js";
import { ScaleClient } from "../../../src/targets/scale-client.js";
import { FakeKube } from "../../support/fake-kube.js";
import { RecordingRecorder } from "./cluster.js";

const NS = "team-a";
const T0 = Date.parse("2025-01-01T00:10:00Z");
const DEPLOYMENTS: ResourceLocation = { apiVersion: "apps/v1", resource: "deployments", namespaced: true };
const noNodes: NodeCounter = {
  count: () => Promise.reject(new Error("no group here counts Nodes")),
  selected: () => [],
};

function setup(intervalMs?: number) {
  let nowMs = T0;
  const fake = new FakeKube(() => nowMs);
  fake.serve("apps/v1", [
    { name: "deployments", kind: "Deployment", namespaced: true },
    { name: "deployments/scale", kind: "Scale", namespaced: true },
  ]);
  const groups = new Store<InstanceGroupManager>(GROUP_INDEXERS);
  const requests = new Store<ResizeRequest>(REQUEST_INDEXERS);
  /** The target's ready count: a change of it changes the group's status. */
  const ready = (readyReplicas: number): void => {
    fake.seed(DEPLOYMENTS, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "workers", namespace: NS },
      spec: { replicas: 5 },
      status: { replicas: 5, readyReplicas },
    });
  };
  /** The group as the cache holds it: the server's copy, our last status write included. */
  const cache = (name: string): void => {
    const raw = fake.peek(INSTANCE_GROUP_MANAGERS, { namespace: NS, name });
    if (raw) groups.set(InstanceGroupManager.parse(raw));
  };
  const create = (name: string): void => {
    fake.seed(INSTANCE_GROUP_MANAGERS, {
      apiVersion: API_VERSION,
      kind: "InstanceGroupManager",
      metadata: { name, namespace: NS, uid: `uid-${name}-${nowMs}`, generation: 1 },
      spec: { zone: "local-a", targetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "workers" } },
    });
    cache(name);
  };
  const remove = (name: string): void => {
    fake.remove(INSTANCE_GROUP_MANAGERS, { namespace: NS, name });
    groups.delete(`${NS}/${name}`);
  };
  const reconcile = resizeReconciler(
    {
      groups,
      requests,
      scale: new ScaleClient(fake),
      client: fake,
      nodes: noNodes,
      now: () => nowMs,
      recorder: new RecordingRecorder(),
    },
    { ...DEFAULT_DECIDE_CONFIG, ...(intervalMs !== undefined && { groupStatusIntervalMs: intervalMs }) },
  );
  const writes = (name: string): number =>
    fake
      .writes()
      .filter((c) => c.verb === "updateStatus" && c.resource === "instancegroupmanagers" && c.name === name)
      .length;
  /** One pass of `name` at `atMs` after T0; the cache then sees what it wrote. */
  const pass = async (name: string, atMs: number): Promise<ReconcileResult | undefined> => {
    nowMs = T0 + atMs;
    const result = await reconcile(
      { namespace: NS, name },
      { signal: new AbortController().signal, log: pino({ level: "silent" }), retries: 0 },
    );
    cache(name);
    return result;
  };
  return { ready, create, remove, pass, writes };
}

describe("the reconciler remembers when it wrote each group's status", () => {
  test("a change within the interval waits for its end; the pass then writes it", async () => {
    const c = setup();
    c.ready(5);
    c.create("pool");
    expect(await c.pass("pool", 0)).toBeUndefined();
    expect(c.writes("pool")).toBe(1);
    c.ready(4);
    // Withheld: the group is woken when the interval is over (sooner than its 10 s look at a moving target).
    expect(await c.pass("pool", 400)).toEqual({ requeueAfterMs: 600 });
    expect(c.writes("pool")).toBe(1);
    expect(await c.pass("pool", 1000)).toEqual({ requeueAfterMs: 10_000 });
    expect(c.writes("pool")).toBe(2);
  });

  test("keys are independent: another group writes at once", async () => {
    const c = setup();
    c.ready(5);
    c.create("pool");
    c.create("other");
    await c.pass("pool", 0);
    await c.pass("other", 100);
    expect([c.writes("pool"), c.writes("other")]).toEqual([1, 1]);
  });

  test("a group gone is forgotten: created again, its status is written at once", async () => {
    const c = setup();
    c.ready(5);
    c.create("pool");
    await c.pass("pool", 0);
    c.remove("pool");
    expect(await c.pass("pool", 100)).toBeUndefined();
    c.create("pool");
    await c.pass("pool", 200);
    expect(c.writes("pool")).toBe(2);
  });

  test("the interval is the setting's: 0 writes every change", async () => {
    const c = setup(0);
    c.ready(5);
    c.create("pool");
    await c.pass("pool", 0);
    c.ready(4);
    await c.pass("pool", 1);
    expect(c.writes("pool")).toBe(2);
  });
});
