// The fast rollback for a Karpenter NodePool target (src/targets/karpenter/launches.ts, the kind module
// src/targets/karpenter.ts, decide/capacity.ts): what
// Karpenter's NodeClaims, its insufficient-capacity Events and the pool's limits.nodes say, and when an
// Applied attempt rolls back because of it.
import { ErrorCode } from "../../../src/api/errors.js";
import { fastRollback } from "../../../src/controllers/resize/decide/capacity.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import {
  karpenterBlock,
  karpenterView,
  nodeLimitOf,
  type KarpenterView,
  type NodeClaim,
} from "../../../src/targets/karpenter/launches.js";
import type { CoreEvent } from "../../../src/runtime/builtin-kinds.js";
import { karpenterCapacity } from "../../../src/targets/karpenter.js";
import {
  APPLIED,
  CFG,
  SEC,
  T0,
  appliedAttempt,
  appliedRequest,
  group,
  iso,
  reasons,
  snap,
  statusOf,
} from "./builders.js";

const at = (offsetSec: number): number => T0 + offsetSec * SEC;
const POOL = "gpu";

function claim(
  name: string,
  launched: { status: string; reason?: string; message?: string; atMs?: number } | undefined,
  pool = POOL,
): NodeClaim {
  return {
    metadata: { name, labels: { "karpenter.sh/nodepool": pool } },
    status: {
      conditions: launched
        ? [
            {
              type: "Launched",
              status: launched.status,
              ...(launched.reason !== undefined && { reason: launched.reason }),
              ...(launched.message !== undefined && { message: launched.message }),
              lastTransitionTime: iso(launched.atMs ?? at(-10)),
            },
          ]
        : [],
    },
  };
}

function ice(nodeClaim: string, atMs: number): CoreEvent {
  return {
    involvedObject: { name: nodeClaim },
    reason: "InsufficientCapacityError",
    message: `NodeClaim ${nodeClaim} event: all requested instance types were unavailable during launch`,
    lastTimestamp: iso(atMs),
  };
}

const view = (o: Partial<Parameters<typeof karpenterView>[0]>): KarpenterView =>
  karpenterView({ pool: POOL, nodeClaims: [], events: [], nodeLimit: undefined, ...o });

describe("karpenterView(): failed launches from NodeClaims and Events", () => {
  test.each<[string, NodeClaim, boolean]>([
    ["Launched=True is no failure", claim("gpu-aaaaa", { status: "True" }), false],
    [
      "Unknown awaiting reconciliation is no failure",
      claim("gpu-aaaaa", { status: "Unknown", reason: "AwaitingReconciliation" }),
      false,
    ],
    ["Unknown without a reason is no failure", claim("gpu-aaaaa", { status: "Unknown" }), false],
    [
      "Unknown with LaunchFailed (Karpenter v1) is a failure",
      claim("gpu-aaaaa", { status: "Unknown", reason: "LaunchFailed", message: "creating instance" }),
      true,
    ],
    [
      "Unknown with a cloud provider's reason is a failure",
      claim("gpu-aaaaa", { status: "Unknown", reason: "InsufficientCapacity", message: "no GPUs" }),
      true,
    ],
    ["False is a failure", claim("gpu-aaaaa", { status: "False", reason: "LaunchFailed" }), true],
    ["no Launched condition yet is no failure", claim("gpu-aaaaa", undefined), false],
    [
      "another pool's NodeClaim is not ours",
      claim("cpu-aaaaa", { status: "False", reason: "LaunchFailed" }, "cpu"),
      false,
    ],
  ])("%s", (_title, nodeClaim, failed) => {
    expect(view({ nodeClaims: [nodeClaim] }).failures).toHaveLength(failed ? 1 : 0);
  });

  test("insufficient-capacity Events count for the pool's NodeClaims only (generateName <pool>-xxxxx)", () => {
    const v = view({
      events: [
        ice("gpu-x2b4c", at(-5)),
        ice("gpu-large-x2b4c", at(-5)),
        ice("gpux2b4c", at(-5)),
        { ...ice("gpu-q8r7t", at(-5)), reason: "Launched" },
      ],
    });
    expect(v.failures.map((f) => f.nodeClaim)).toEqual(["gpu-x2b4c"]);
    expect(v.failures[0]).toMatchObject({ reason: "InsufficientCapacityError", atMs: at(-5) });
  });

  test("a pool name with dots matches literally", () => {
    const v = karpenterView({
      pool: "gpu.a",
      nodeClaims: [],
      events: [ice("gpu.a-x2b4c", at(-5)), ice("gpuxa-x2b4c", at(-5))],
      nodeLimit: undefined,
    });
    expect(v.failures.map((f) => f.nodeClaim)).toEqual(["gpu.a-x2b4c"]);
  });

  test("failures in time order; the newest successful launch is kept", () => {
    const v = view({
      nodeClaims: [
        claim("gpu-bbbbb", { status: "Unknown", reason: "LaunchFailed", atMs: at(-3) }),
        claim("gpu-ccccc", { status: "True", atMs: at(-20) }),
        claim("gpu-ddddd", { status: "True", atMs: at(-8) }),
      ],
      events: [ice("gpu-aaaaa", at(-6))],
    });
    expect(v.failures.map((f) => f.nodeClaim)).toEqual(["gpu-aaaaa", "gpu-bbbbb"]);
    expect(v.lastLaunchMs).toBe(at(-8));
  });
});

test("nodeLimitOf(): the NodePool's spec.limits.nodes as a number", () => {
  expect(nodeLimitOf({ spec: { limits: { nodes: "4", cpu: "1000" } } })).toBe(4);
  expect(nodeLimitOf({ spec: { limits: { nodes: 10 } } })).toBe(10);
  expect(nodeLimitOf({ spec: { limits: { cpu: "1000" } } })).toBeUndefined();
  expect(nodeLimitOf({ spec: {} })).toBeUndefined();
  expect(nodeLimitOf({ spec: { limits: { nodes: "many" } } })).toBeUndefined();
});

describe("karpenterBlock(): whether Karpenter will not add what the attempt lacks", () => {
  const failed = (atMs: number) => claim("gpu-fffff", { status: "Unknown", reason: "LaunchFailed", atMs });
  test.each<[string, KarpenterView | undefined, number, number | undefined]>([
    ["nothing read", undefined, 5, undefined],
    ["no failure, no limit", view({}), 5, undefined],
    [
      "limits.nodes below the replicas wanted: from the attempt's appliedTime",
      view({ nodeLimit: 4 }),
      5,
      APPLIED,
    ],
    [
      "limits.nodes equal to the replicas wanted: Karpenter can get there",
      view({ nodeLimit: 5 }),
      5,
      undefined,
    ],
    ["a failed launch since the attempt: from its time", view({ nodeClaims: [failed(at(-10))] }), 5, at(-10)],
    [
      "a failed launch from before the attempt does not count",
      view({ nodeClaims: [failed(at(-60))] }),
      5,
      undefined,
    ],
    [
      "an Event posted in the attempt's first second counts (one-second resolution)",
      view({ events: [ice("gpu-x2b4c", Math.floor(APPLIED / 1000) * 1000)] }),
      5,
      Math.floor(APPLIED / 1000) * 1000,
    ],
    [
      "a launch that succeeded after the newest failure: Karpenter is getting through",
      view({ nodeClaims: [failed(at(-10)), claim("gpu-sssss", { status: "True", atMs: at(-5) })] }),
      5,
      undefined,
    ],
    [
      "a launch that succeeded before the newest failure does not help",
      view({ nodeClaims: [failed(at(-10)), claim("gpu-sssss", { status: "True", atMs: at(-15) })] }),
      5,
      at(-10),
    ],
  ])("%s", (_title, v, replicas, since) => {
    expect(karpenterBlock(v, replicas, APPLIED)?.sinceMs).toBe(since);
  });

  test("it says why, naming the NodeClaim and Karpenter's reason, or the limit", () => {
    const launch = karpenterBlock(view({ events: [ice("gpu-x2b4c", at(-10))] }), 5, APPLIED);
    expect(launch?.why).toBe(
      "Karpenter will not add capacity (NodeClaim gpu-x2b4c of NodePool gpu was not launched: InsufficientCapacityError: NodeClaim gpu-x2b4c event: all requested instance types were unavailable during launch)",
    );
    expect(launch?.summary).toMatch(/^1 launch\(es\) of NodePool gpu failed: InsufficientCapacityError/);
    expect(karpenterBlock(view({ nodeLimit: 4 }), 5, APPLIED)?.why).toBe(
      "Karpenter will not add capacity (NodePool gpu has limits.nodes 4 and the target wants 5 nodes)",
    );
  });
});

describe("fastRollback() with Karpenter's word", () => {
  const GRACE = 60 * SEC;
  const g = group({ unschedulableGracePeriodMs: GRACE });
  const attempt = appliedAttempt();

  test("the grace runs from the failure, or from appliedTime if later", () => {
    const failedAt = view({ events: [ice("gpu-x2b4c", at(-10))] });
    const said = (v: KarpenterView) => karpenterCapacity(v, 5, attempt).shortfall;
    expect(fastRollback(g, attempt, said(failedAt))?.atMs).toBe(at(-10) + GRACE);
    expect(fastRollback(g, attempt, said(view({ nodeLimit: 2 })))?.atMs).toBe(APPLIED + GRACE);
    expect(fastRollback(g, attempt, said(view({})))).toBeUndefined();
    expect(fastRollback(g, attempt, undefined)).toBeUndefined();
  });

  test("only an Applied attempt", () => {
    const v = karpenterCapacity(view({ nodeLimit: 2 }), 5, attempt).shortfall;
    expect(fastRollback(g, { ...attempt, phase: "Applying" }, v)).toBeUndefined();
    expect(fastRollback(g, { ...attempt, appliedTime: undefined }, v)).toBeUndefined();
    // What Karpenter says is read for an Applied attempt only: before, no failure is its own yet.
    expect(
      karpenterCapacity(view({ nodeLimit: 2 }), 5, { ...attempt, phase: "Applying" }).shortfall,
    ).toBeUndefined();
  });
});

describe("decide(): an Applied attempt on a Karpenter NodePool", () => {
  const GRACE = 60 * SEC;
  const a = appliedRequest("a");
  const karpenterSnap = (now: number, karpenter: KarpenterView) => ({
    ...snap({
      now,
      group: group({ unschedulableGracePeriodMs: GRACE, targetKind: "NodePool", targetName: POOL }),
      replicas: 5,
      ready: 2,
      requests: [a],
    }),
    // What the NodePool's kind module makes of Karpenter's view (targets/karpenter.ts).
    ...karpenterCapacity(karpenter, 5, a.status.provisioning),
  });
  const failing = view({ events: [ice("gpu-x2b4c", at(-10))] });

  test("within the grace: waits, and wakes when it ends", () => {
    const plan = decide(karpenterSnap(T0, failing));
    expect(statusOf(plan, "a").provisioning?.phase).toBe("Applied");
    expect(plan.scale).toBeUndefined();
    expect(plan.requeueAfterMs).toBeLessThanOrEqual(CFG.pollIntervalMs);
  });

  test("once the grace ends: rolled back with ZONE_RESOURCE_POOL_EXHAUSTED saying what Karpenter said", () => {
    const plan = decide(karpenterSnap(at(-10) + GRACE, failing));
    expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    const error = statusOf(plan, "a").lastAttempt?.error?.errors[0];
    expect(error?.code).toBe(ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED);
    expect(error?.message).toBe(
      "only 2 of 5 instances were ready after 1m20s: new Nodes could not be launched and Karpenter will not add capacity (NodeClaim gpu-x2b4c of NodePool gpu was not launched: InsufficientCapacityError: NodeClaim gpu-x2b4c event: all requested instance types were unavailable during launch): 1 launch(es) of NodePool gpu failed: InsufficientCapacityError: NodeClaim gpu-x2b4c event: all requested instance types were unavailable during launch",
    );
    expect(error?.errorDetails?.[0]?.errorInfo?.metadatas).toMatchObject({ rolledBackEarly: "true" });
    expect(reasons(plan, "a")).toEqual(["AttemptFailed"]);
  });

  test("NodeClaims it may not read: the attempt waits for its timeout and its message says why", () => {
    const plan = decide(karpenterSnap(at(120), { ...view({}), unreadable: "forbidden" }));
    expect(plan.scale).toBeUndefined();
    expect(statusOf(plan, "a").conditions?.find((c) => c.type === "Provisioning")?.message).toBe(
      "Waiting for 5 instances to be ready (2 are). Karpenter's failed launches cannot be seen (forbidden), so the attempt waits for its provisioningTimeout.",
    );
  });
});
