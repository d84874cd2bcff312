// Rolling an attempt back on a Karpenter NodePool (src/targets/karpenter/launches.ts rollbackWait, what
// the kind module src/targets/karpenter.ts makes of it, and the attempt steps of decide): the pool is lowered only once Karpenter has finished launching, because it
// deletes the Node of a NodeClaim only once that NodeClaim is registered. Also what a request says when
// its group's target is deleted under it (a Warning Event TargetNotFound, once).
import { decide } from "../../../src/controllers/resize/decide/index.js";
import {
  karpenterView,
  removalWait,
  rollbackWait,
  type KarpenterView,
  type NodeClaim,
} from "../../../src/targets/karpenter/launches.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import { karpenterCapacity } from "../../../src/targets/karpenter.js";
import {
  APPLIED,
  CFG,
  MIN,
  SEC,
  T0,
  accepted,
  appliedRequest,
  cond,
  group,
  iso,
  notFoundTarget,
  provisioningStatus,
  reasons,
  req,
  snap,
  statusOf,
} from "./builders.js";

const POOL = "gpu";

/** A NodeClaim of the pool in one of its lifecycle states. */
function nodeClaim(
  name: string,
  state: "new" | "launched" | "registered" | "failed" | "deleting",
  pool = POOL,
): NodeClaim {
  const launched =
    state === "new"
      ? []
      : [
          {
            type: "Launched",
            status: state === "failed" ? "Unknown" : "True",
            ...(state === "failed" && { reason: "LaunchFailed", message: "no capacity" }),
            lastTransitionTime: iso(T0 - 5 * SEC),
          },
        ];
  const registered = state === "registered" ? [{ type: "Registered", status: "True" }] : [];
  return {
    metadata: {
      name,
      labels: { "karpenter.sh/nodepool": pool },
      ...(state === "deleting" && { deletionTimestamp: iso(T0 - SEC) }),
    },
    status: { conditions: [...launched, ...registered] },
  };
}

const view = (claims: readonly NodeClaim[], nodeLimit?: number): KarpenterView =>
  karpenterView({ pool: POOL, nodeClaims: claims, events: [], nodeLimit });

describe("karpenterView(): which NodeClaims Karpenter is still launching", () => {
  test.each<[string, NodeClaim, { launching: number; active: number; deleting: number }]>([
    ["created, no condition yet", nodeClaim("gpu-aaaaa", "new"), { launching: 1, active: 1, deleting: 0 }],
    [
      "launched, not registered",
      nodeClaim("gpu-aaaaa", "launched"),
      { launching: 1, active: 1, deleting: 0 },
    ],
    ["registered", nodeClaim("gpu-aaaaa", "registered"), { launching: 0, active: 1, deleting: 0 }],
    ["its launch failed", nodeClaim("gpu-aaaaa", "failed"), { launching: 0, active: 1, deleting: 0 }],
    ["being deleted", nodeClaim("gpu-aaaaa", "deleting"), { launching: 0, active: 0, deleting: 1 }],
    ["of another pool", nodeClaim("cpu-aaaaa", "new", "cpu"), { launching: 0, active: 0, deleting: 0 }],
  ])("%s", (_title, claim, counts) => {
    const v = view([claim]);
    expect({ launching: v.launching.length, active: v.active, deleting: v.deleting }).toEqual(counts);
  });
});

describe("rollbackWait(): whether lowering the pool to roll back must wait", () => {
  const since = T0 - 10 * SEC;
  const two = [nodeClaim("gpu-aaaaa", "registered"), nodeClaim("gpu-bbbbb", "registered")];
  test.each<[string, KarpenterView | undefined, number, string | undefined]>([
    ["nothing read (not a Karpenter NodePool)", undefined, 4, undefined],
    ["NodeClaims it may not read", { ...view([]), unreadable: "forbidden" }, 4, undefined],
    [
      "a NodeClaim launching: wait",
      view([...two.slice(1), nodeClaim("gpu-ccccc", "launched")], 2),
      4,
      "Karpenter is launching NodeClaim(s) gpu-ccccc of NodePool gpu",
    ],
    ["as many registered as the replicas", view(two), 2, undefined],
    ["limits.nodes reached: Karpenter makes no more", view(two, 2), 4, undefined],
    [
      "NodeClaims being deleted do not count: Karpenter may still make their replacements",
      view([two[0] as NodeClaim, nodeClaim("gpu-ddddd", "deleting")], 2),
      4,
      "Karpenter has made 1 of the 2 NodeClaims of NodePool gpu it will make",
    ],
    [
      "fewer than Karpenter will make, none launching yet: wait",
      view(two.slice(1), 2),
      4,
      "Karpenter has made 1 of the 2 NodeClaims of NodePool gpu it will make",
    ],
    [
      "fewer than the replicas, no limit: wait",
      view(two),
      4,
      "Karpenter has made 2 of the 4 NodeClaims of NodePool gpu it will make",
    ],
    [
      "a launch failed since the attempt: it will not make them all",
      view([nodeClaim("gpu-fffff", "failed")]),
      4,
      undefined,
    ],
  ])("%s", (_title, v, replicas, wait) => {
    expect(rollbackWait(v, replicas, since)).toBe(wait);
  });

  test("a launch failed before the attempt does not count", () => {
    expect(rollbackWait(view([nodeClaim("gpu-fffff", "failed")]), 4, T0 + MIN)).toBe(
      "Karpenter has made 1 of the 4 NodeClaims of NodePool gpu it will make",
    );
  });
});

test("removalWait(): a rolled-back attempt ends once Karpenter has removed the NodeClaims beyond the replicas", () => {
  const claims = [nodeClaim("gpu-aaaaa", "registered"), nodeClaim("gpu-bbbbb", "deleting")];
  expect(removalWait(undefined, 1)).toBeUndefined();
  expect(removalWait({ ...view(claims), unreadable: "forbidden" }, 1)).toBeUndefined();
  expect(removalWait(view(claims), 1)).toBe("Karpenter is removing 1 NodeClaim(s) of NodePool gpu");
  expect(removalWait(view(claims.slice(0, 1)), 1)).toBeUndefined();
  expect(removalWait(view([]), 0)).toBeUndefined();
});

describe("decide(): rolling back an attempt on a Karpenter NodePool", () => {
  // limits.nodes 4 lets 2 of the attempt's 3 grow (target 5): rolled back at once (no grace).
  const g = group({ unschedulableGracePeriodMs: 0, targetKind: "NodePool", targetName: POOL });
  // What the NodePool's kind module makes of Karpenter's view for the attempt in flight (targets/karpenter.ts).
  const withKarpenter = (s: GroupSnapshot, karpenter: KarpenterView): GroupSnapshot => {
    const replicas = s.target?.found ? s.target.replicas : 0;
    const attempt = s.requests.find((r) => r.status.provisioning)?.status.provisioning;
    return { ...s, ...karpenterCapacity(karpenter, replicas, attempt) };
  };
  const launching = view(
    [
      nodeClaim("gpu-aaaaa", "registered"),
      nodeClaim("gpu-bbbbb", "registered"),
      nodeClaim("gpu-ccccc", "launched"),
      nodeClaim("gpu-ddddd", "new"),
    ],
    4,
  );
  const settled = view(
    ["gpu-aaaaa", "gpu-bbbbb", "gpu-ccccc", "gpu-ddddd"].map((n) => nodeClaim(n, "registered")),
    4,
  );
  const rollingBack = (startedMs: number) =>
    req("a", {
      resizeBy: 3,
      hasFinalizer: true,
      status: provisioningStatus("a", {
        phase: "RollingBack",
        baseReplicas: 5,
        targetReplicas: 2,
        startedTime: iso(startedMs),
        appliedTime: iso(APPLIED),
      }),
    });

  test("the rollback is recorded at once, the pool lowered only once Karpenter has finished launching", () => {
    const s = snap({ group: g, replicas: 5, ready: 2, requests: [appliedRequest("a")] });
    const plan = decide(withKarpenter(s, launching));
    const status = statusOf(plan, "a");
    expect(status.provisioning).toMatchObject({ phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 });
    expect(status.lastAttempt?.error?.errors[0]?.code).toBe("ZONE_RESOURCE_POOL_EXHAUSTED");
    expect(reasons(plan, "a")).toEqual(["AttemptFailed"]);
    expect(plan.scale).toBeUndefined();
    expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
    expect(cond(status, "Provisioning")?.message).toBe(
      "Removing the 3 instances of attempt 1 once Karpenter has finished launching: Karpenter is launching NodeClaim(s) gpu-ccccc, gpu-ddddd of NodePool gpu.",
    );
  });

  test("recorded, Karpenter still launching: waits; settled: lowers the pool", () => {
    const waiting = decide(
      withKarpenter(snap({ group: g, replicas: 5, requests: [rollingBack(T0 - SEC)] }), launching),
    );
    expect(waiting.scale).toBeUndefined();
    expect(waiting.requeueAfterMs).toBe(CFG.pollIntervalMs);
    const lowered = decide(
      withKarpenter(snap({ group: g, replicas: 5, requests: [rollingBack(T0 - SEC)] }), settled),
    );
    expect(lowered.scale).toEqual({ request: "a", from: 5, replicas: 2 });
  });

  test("Karpenter never settles: lowered anyway once the rollback waited the group's provisioningTimeout", () => {
    const started = T0 - g.provisioningTimeoutMs;
    const plan = decide(
      withKarpenter(snap({ group: g, replicas: 5, requests: [rollingBack(started)] }), launching),
    );
    expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
  });

  test("lowered: the attempt ends (back to the queue) only once Karpenter has removed the NodeClaims", () => {
    const removing = view(
      [
        nodeClaim("gpu-aaaaa", "registered"),
        nodeClaim("gpu-bbbbb", "registered"),
        nodeClaim("gpu-ccccc", "deleting"),
      ],
      4,
    );
    const waiting = decide(
      withKarpenter(snap({ group: g, replicas: 2, requests: [rollingBack(T0 - SEC)] }), removing),
    );
    expect(statusOf(waiting, "a").provisioning?.phase).toBe("RollingBack");
    expect(reasons(waiting, "a")).toEqual([]);
    expect(waiting.requeueAfterMs).toBe(CFG.pollIntervalMs);
    expect(cond(statusOf(waiting, "a"), "Provisioning")?.message).toBe(
      "The target is back at 2 replicas; Karpenter is removing 1 NodeClaim(s) of NodePool gpu, and the attempt ends once they are gone.",
    );
    const gone = view([nodeClaim("gpu-aaaaa", "registered"), nodeClaim("gpu-bbbbb", "registered")], 4);
    const ended = decide(
      withKarpenter(snap({ group: g, replicas: 2, requests: [rollingBack(T0 - SEC)] }), gone),
    );
    expect(statusOf(ended, "a").provisioning).toBeUndefined();
    expect(reasons(ended, "a")).toEqual(["RolledBack"]);
    const late = decide(
      withKarpenter(
        snap({ group: g, replicas: 2, requests: [rollingBack(T0 - g.provisioningTimeoutMs)] }),
        removing,
      ),
    );
    expect(reasons(late, "a")).toEqual(["RolledBack"]);
  });

  test("a cancel during the attempt waits the same way", () => {
    const a = appliedRequest("a");
    const cancelled = { ...a, spec: { ...a.spec, cancel: true } };
    const s = snap({ group: g, replicas: 5, ready: 2, requests: [cancelled] });
    expect(decide(withKarpenter(s, launching)).scale).toBeUndefined();
    expect(decide(withKarpenter(s, settled)).scale).toEqual({ request: "a", from: 5, replicas: 2 });
  });
});

describe("the target deleted under the group: a Warning Event TargetNotFound on each waiting request, once", () => {
  test("a queued request: keeps its place, reason TargetNotFound", () => {
    const queued = req("q", { status: accepted("q") });
    const plan = decide(snap({ target: notFoundTarget, requests: [queued] }));
    expect(statusOf(plan, "q").reason).toBe("TargetNotFound");
    expect(plan.events.map((e) => [e.request, e.event.type, e.event.reason])).toEqual([
      ["q", "Warning", "TargetNotFound"],
    ]);
    const again = req("q", { status: statusOf(plan, "q") });
    expect(decide(snap({ target: notFoundTarget, requests: [again] })).events).toEqual([]);
  });

  test("a request in an attempt: keeps its record, says so in its Provisioning condition", () => {
    const a = appliedRequest("a");
    const plan = decide(snap({ target: notFoundTarget, requests: [a] }));
    const status = statusOf(plan, "a");
    expect(status.provisioning).toEqual(a.status.provisioning);
    expect(cond(status, "Provisioning")).toMatchObject({
      status: "True",
      reason: "TargetNotFound",
      message: `${notFoundTarget.found ? "" : notFoundTarget.message}; attempt 1 keeps its record and waits for it to be recreated (cancel or delete the request to end it).`,
    });
    expect(reasons(plan, "a")).toEqual(["TargetNotFound"]);
    const again = req("a", { resizeBy: 3, hasFinalizer: true, status });
    expect(decide(snap({ target: notFoundTarget, requests: [again] })).events).toEqual([]);
  });
});
