// What goes wrong on a group over the real Karpenter (testbed/karpenter.ts, its kwok provider), end to
// end, each on its own static NodePool:
// - a stockout: limits.nodes lets only 2 of 4 grow. The attempt rolls back early on Karpenter's word
//   (limits.nodes below the replicas wanted), the error is in status.lastAttempt, the request retries;
//   it fails at its queue deadline while the limit stays, and succeeds once the limit is raised. After
//   each rollback nothing is left behind: no NodeClaim and no Node of the pool. Karpenter deletes the
//   Node of a NodeClaim only once registered, so the operator lowers the pool only once Karpenter has
//   finished launching (docs/karpenter.md "Limits"); scale → rollback and rollback → nothing left are
//   timed and reported;
// - a cancel while queued: the second of two requests is cancelled while the first holds the pool; it
//   ends CANCELLED and the pool was never scaled for it;
// - the NodePool deleted under the group: the group's Ready condition says so, the running attempt and
//   the queued request wait with reason TargetNotFound, each told by a Warning Event;
//   Karpenter removes the pool's Nodes; the cancelled attempt ends CANCELLED without a finalizer left,
//   and the queued request FAILED at its queue deadline.
import * as k8s from "@kubernetes/client-node";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { FINALIZER } from "../../../src/api/names.js";
import { KARPENTER, UNREGISTERED_TAINT } from "../../../testbed/karpenter-manifests.js";
import { listEvents } from "../events/support.js";
import { eventually, kubeConfig } from "../../support/kube.js";
import {
  isReadyNode,
  nodeClaimsOf,
  nodePoolGroup,
  poolNodes,
  poolReplicas,
  poolSelector,
  recordReplicas,
  setNodeLimit,
  setUpKarpenterE2e,
  type KarpenterE2e,
  type ReplicasRecorder,
} from "../../support/karpenter.js";
import { report } from "../../support/reliability.js";
import * as resize from "../../support/resize.js";

const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
const POOLS = {
  stockFails: "fail-stock-a",
  stockSucceeds: "fail-stock-b",
  cancel: "fail-cancel",
  gone: "fail-gone",
} as const;

/** A group over a stockout pool: rolled back as soon as Karpenter says it will not grow. */
const STOCKOUT_GROUP = { maxSize: 4, unschedulableGracePeriod: "0s", provisioningTimeout: "5m" };

let e2e: KarpenterE2e;
let ns: string;

beforeAll(async () => {
  e2e = await setUpKarpenterE2e("karpenter-failures", {
    [POOLS.stockFails]: { instanceType: "cpu-32x", maxNodes: 2 },
    [POOLS.stockSucceeds]: { instanceType: "cpu-32x", maxNodes: 2 },
    [POOLS.cancel]: { instanceType: "cpu-32x", maxNodes: 8 },
    [POOLS.gone]: { instanceType: "cpu-32x", maxNodes: 1 },
  });
  ns = e2e.namespace;
}, 240_000);

afterAll(async () => {
  await e2e.tearDown();
}, 240_000);

/** The pools' replicas recorded by the test running, stopped after it. */
const recorders: ReplicasRecorder[] = [];
function recorded(pool: string): ReplicasRecorder {
  const rec = recordReplicas(pool);
  recorders.push(rec);
  return rec;
}
afterEach(async () => {
  await Promise.all(recorders.splice(0).map((rec) => rec.stop()));
});

/**
 * Creates a group over `pool` and waits until the operator has reconciled it (its Ready condition
 * written): on a busy machine the operator may still be starting, and a request's queue deadline runs
 * from its creation.
 */
async function createPoolGroup(name: string, pool: string, spec: Record<string, unknown>): Promise<void> {
  await resize.createGroup(ns, name, nodePoolGroup(pool, spec));
  await eventually(
    `group ${name} reconciled`,
    async () => ((await resize.getGroup(ns, name)).status?.conditions ?? []).find((c) => c.type === "Ready"),
    90_000,
  );
}

/** Waits until the request no longer holds the operator's finalizer (removed after its final status). */
async function untilFinalizerReleased(name: string): Promise<void> {
  await eventually(`${name} without the finalizer`, async () =>
    (await resize.getRequest(ns, name)).metadata.finalizers?.includes(FINALIZER) ? undefined : true,
  );
}

/** Waits until the pool has neither NodeClaims nor Nodes; returns when that was first seen. */
async function untilNothingLeft(pool: string, timeoutMs = 120_000): Promise<number> {
  await eventually(
    `no NodeClaim and no Node of NodePool ${pool}`,
    async () => {
      const claims = await nodeClaimsOf(poolSelector(pool));
      const nodes = await poolNodes(pool);
      if (claims.length === 0 && nodes.length === 0) return true;
      throw new Error(
        `${String(claims.length)} NodeClaim(s), Node(s) ${JSON.stringify(
          nodes.map((n) => ({ name: n.metadata?.name, taints: n.spec?.taints?.map((t) => t.key) })),
        )}`,
      );
    },
    timeoutMs,
  );
  return Date.now();
}

/** The first time the pool went from `from` to `to` replicas, after having been at `from`. */
function firstChange(rec: ReplicasRecorder, from: number, to: number): { upMs: number; downMs: number } {
  const up = rec.changes.findIndex((c) => c.replicas === from);
  const down = rec.changes.findIndex((c, i) => i > up && c.replicas === to);
  const upAt = rec.changes[up];
  const downAt = rec.changes[down];
  if (!upAt || !downAt)
    throw new Error(`no change ${String(from)} → ${String(to)}: ${JSON.stringify(rec.changes)}`);
  return { upMs: upAt.atMs, downMs: downAt.atMs };
}

const lastAttemptError = (rr: ResizeRequest) => rr.status?.lastAttempt?.error?.errors[0];

/** The request as soon as it carries a lastAttempt error while still ACCEPTED (retrying). */
function untilLastAttemptError(name: string): Promise<ResizeRequest> {
  return eventually(
    `${name} ACCEPTED with an error in status.lastAttempt`,
    async () => {
      const rr = await resize.getRequest(ns, name);
      if (rr.status?.state === "SUCCEEDED" || rr.status?.state === "FAILED")
        throw new Error(`${rr.status.state}: ${JSON.stringify(rr.status)}`);
      return lastAttemptError(rr) ? rr : undefined;
    },
    60_000,
  );
}

describe("stockout: limits.nodes lets only 2 of 4 grow", () => {
  test("the attempt rolls back early, retries, FAILED at its queue deadline; nothing is left behind", async () => {
    const pool = POOLS.stockFails;
    await createPoolGroup("stock-a", pool, STOCKOUT_GROUP);
    const rec = recorded(pool);
    await resize.createRequest(ns, "four-a", {
      instanceGroupManager: "stock-a",
      resizeBy: 4,
      maxQueueDuration: "12s",
    });
    const retrying = await untilLastAttemptError("four-a");
    const error = lastAttemptError(retrying);
    expect(error?.code).toBe("ZONE_RESOURCE_POOL_EXHAUSTED");
    expect(error?.message).toContain(`NodePool ${pool} has limits.nodes 2 and the target wants 4 nodes`);
    const failed = await resize.untilState(ns, "four-a", ["FAILED"], 90_000);
    expect(failed.status?.error?.errors[0]?.code).toBe("DEADLINE_EXCEEDED");
    expect(failed.status?.error?.errors[0]?.message).toMatch(
      /in backoff after \d+ failed attempts \(last: ZONE_RESOURCE_POOL_EXHAUSTED\)/,
    );
    expect(failed.status?.attempts).toBeGreaterThanOrEqual(2);
    await untilFinalizerReleased("four-a");
    const { upMs, downMs } = await eventually("the rollback seen", () =>
      Promise.resolve(firstChange(rec, 4, 0)),
    );
    const lastDownMs = rec.changes.at(-1)?.atMs ?? downMs;
    expect(await poolReplicas(pool)).toBe(0);
    const cleanMs = await untilNothingLeft(pool);
    const figures = {
      scaleToRollbackMs: downMs - upMs,
      lastRollbackToNothingLeftMs: cleanMs - lastDownMs,
      attempts: failed.status?.attempts ?? 0,
    };
    process.stderr.write(`[karpenter-failures] stockout, FAILED: ${JSON.stringify(figures)}\n`);
    report("karpenter failures: stockout rolled back, nothing left behind (FAILED at its deadline)", figures);
    // Nothing comes back once Karpenter has settled.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await nodeClaimsOf(poolSelector(pool))).toHaveLength(0);
    expect(await poolNodes(pool)).toHaveLength(0);
  }, 240_000);

  test("the attempt rolls back early and retries; SUCCEEDED once the limit is raised", async () => {
    const pool = POOLS.stockSucceeds;
    await createPoolGroup("stock-b", pool, STOCKOUT_GROUP);
    const rec = recorded(pool);
    await resize.createRequest(ns, "four-b", { instanceGroupManager: "stock-b", resizeBy: 4 });
    const retrying = await untilLastAttemptError("four-b");
    expect(lastAttemptError(retrying)?.code).toBe("ZONE_RESOURCE_POOL_EXHAUSTED");
    const { upMs, downMs } = await eventually("the rollback seen", () =>
      Promise.resolve(firstChange(rec, 4, 0)),
    );
    await eventually("a retry", async () => {
      const rr = await resize.getRequest(ns, "four-b");
      return (rr.status?.attempts ?? 0) >= 2 ? rr : undefined;
    });
    await setNodeLimit(pool, 4);
    const started = Date.now();
    const done = await resize.untilState(ns, "four-b", ["SUCCEEDED", "FAILED"], 120_000);
    expect(done.status?.state).toBe("SUCCEEDED");
    const nodes = await poolNodes(pool);
    expect(nodes).toHaveLength(4);
    expect(nodes.every(isReadyNode)).toBe(true);
    // Every Node has its NodeClaim: none left over from the rolled-back attempts.
    expect(await nodeClaimsOf(poolSelector(pool))).toHaveLength(4);
    const figures = {
      scaleToRollbackMs: downMs - upMs,
      limitRaisedToSucceededMs: Date.now() - started,
      attempts: done.status?.attempts ?? 0,
    };
    process.stderr.write(`[karpenter-failures] stockout, SUCCEEDED: ${JSON.stringify(figures)}\n`);
    report("karpenter failures: stockout retried, SUCCEEDED once limits.nodes raised", figures);
  }, 240_000);
});

test("cancel while queued: CANCELLED, the pool never scaled for it", async () => {
  const pool = POOLS.cancel;
  // maxSize 4: the second request (2) cannot start while the first holds 3 of the pool's nodes.
  await createPoolGroup("cancel", pool, { maxSize: 4 });
  const rec = recorded(pool);
  await resize.createRequest(ns, "first", { instanceGroupManager: "cancel", resizeBy: 3 });
  await resize.createRequest(ns, "second", { instanceGroupManager: "cancel", resizeBy: 2 });
  const queued = await eventually("second queued", async () => {
    const rr = await resize.getRequest(ns, "second");
    return rr.status?.conditions?.some((c) => c.type === "Queued" && c.status === "True") ? rr : undefined;
  });
  expect(queued.status?.state).toBe("ACCEPTED");
  await resize.cancelRequest(ns, "second");
  const cancelled = await resize.untilState(ns, "second", ["CANCELLED"], 30_000);
  expect(cancelled.status?.attempts ?? 0).toBe(0);
  await untilFinalizerReleased("second");
  expect((await resize.untilState(ns, "first", ["SUCCEEDED"], 120_000)).status?.state).toBe("SUCCEEDED");
  // The pool went 0 → 3 for the first request and never further.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(rec.max()).toBe(3);
  expect(await poolReplicas(pool)).toBe(3);
  expect(await nodeClaimsOf(poolSelector(pool))).toHaveLength(3);
  const reasons = (await listEvents(ns)).filter((e) => e.regarding?.name === "second").map((e) => e.reason);
  expect(reasons).toContain("Cancelled");
  expect(reasons).not.toContain("ProvisioningStarted");
}, 240_000);

test("the NodePool deleted under the group: a clear failure, nothing stuck", async () => {
  const pool = POOLS.gone;
  // limits.nodes 1 and a long grace: the attempt for 2 waits (Applied) when the pool goes.
  await createPoolGroup("gone", pool, {
    maxSize: 4,
    unschedulableGracePeriod: "10m",
    provisioningTimeout: "10m",
  });
  await resize.createRequest(ns, "running", { instanceGroupManager: "gone", resizeBy: 2 });
  // Deleted while Karpenter still launches, a NodeClaim leaves its kwok Node behind (Karpenter deletes
  // the Node of a registered NodeClaim only; docs/karpenter.md): the pool goes once its one Node is up.
  await eventually("the attempt Applied, the pool's one Node Ready", async () => {
    const rr = await resize.getRequest(ns, "running");
    const nodes = await poolNodes(pool);
    const registered = (n: k8s.V1Node) => !(n.spec?.taints ?? []).some((t) => t.key === UNREGISTERED_TAINT);
    return rr.status?.provisioning?.phase === "Applied" &&
      nodes.length === 1 &&
      nodes.every((n) => isReadyNode(n) && registered(n))
      ? true
      : undefined;
  });
  await resize.createRequest(ns, "waiting", {
    instanceGroupManager: "gone",
    resizeBy: 1,
    maxQueueDuration: "30s",
  });
  await eventually("waiting queued", async () =>
    (await resize.getRequest(ns, "waiting")).status?.state === "ACCEPTED" ? true : undefined,
  );

  await custom.deleteClusterCustomObject({ ...KARPENTER, name: pool });
  const group = await eventually("the group's Ready condition False", async () => {
    const g = await resize.getGroup(ns, "gone");
    const ready = g.status?.conditions?.find((c) => c.type === "Ready");
    return ready?.status === "False" ? ready : undefined;
  });
  expect(group.reason).toBe("NotFound");
  expect(group.message).toContain(`NodePool ${pool} does not exist`);
  const running = await eventually("the attempt waits, saying why", async () => {
    const rr = await resize.getRequest(ns, "running");
    return rr.status?.reason === "TargetNotFound" ? rr : undefined;
  });
  const provisioning = running.status?.conditions?.find((c) => c.type === "Provisioning");
  expect(provisioning?.status).toBe("True");
  expect(provisioning?.reason).toBe("TargetNotFound");
  expect(provisioning?.message).toContain(`NodePool ${pool} does not exist`);
  const waiting = await eventually("the queued request waits, saying why", async () => {
    const rr = await resize.getRequest(ns, "waiting");
    return rr.status?.reason === "TargetNotFound" ? rr : undefined;
  });
  expect(waiting.status?.conditions?.find((c) => c.type === "Queued")?.message).toContain(
    `NodePool ${pool} does not exist`,
  );
  await eventually("a Warning Event on each request", async () => {
    const events = (await listEvents(ns)).filter(
      (e) => e.reason === "TargetNotFound" && e.type === "Warning",
    );
    const about = events.map((e) => e.regarding?.name ?? "");
    return about.includes("running") && about.includes("waiting") ? events : undefined;
  });
  // Karpenter removes the deleted pool's NodeClaims and Nodes.
  await untilNothingLeft(pool);

  // Nothing is stuck: the attempt ends when cancelled (its finalizer released), the queued request at
  // its queue deadline.
  await resize.cancelRequest(ns, "running");
  await resize.untilState(ns, "running", ["CANCELLED"], 30_000);
  await untilFinalizerReleased("running");
  const expired = await resize.untilState(ns, "waiting", ["FAILED"], 60_000);
  expect(expired.status?.error?.errors[0]?.code).toBe("DEADLINE_EXCEEDED");
  expect(expired.status?.error?.errors[0]?.message).toContain(`for its target NodePool/${pool}`);
  await untilFinalizerReleased("waiting");
}, 240_000);
