// decide(): the group's status (docs/design.md §3.1) and condition bookkeeping (metav1.Condition semantics:
// lastTransitionTime moves only when the status flips; nothing is written when nothing changed).
import {
  InstanceGroupManagerCondition as GC,
  ResizeRequestCondition as RC,
} from "../../../src/api/conditions.js";
import type { InstanceGroupManagerStatus } from "../../../src/api/instance-group-manager.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import { numericId } from "../../../src/api/identity.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import {
  CFG,
  MIN,
  SEC,
  T0,
  accepted,
  asServed,
  cond,
  finalStatus,
  group,
  identityOf,
  iso,
  notFoundTarget,
  notScalableTarget,
  provisioningStatus,
  queuedMessage,
  req,
  snap,
  statusOf,
} from "./builders.js";

function groupStatusOf(s: GroupSnapshot, previous?: InstanceGroupManagerStatus): InstanceGroupManagerStatus {
  const status = decide({ ...s, groupStatus: previous }).groupStatus;
  if (status === undefined) throw new Error("no group status");
  return status;
}

/** A busy group: one attempt applied and waiting, two queued, one new, three finished. */
const busy = (): GroupSnapshot =>
  snap({
    replicas: 5,
    ready: 3,
    requests: [
      req("p", {
        resizeBy: 3,
        created: T0 - 9 * MIN,
        hasFinalizer: true,
        status: provisioningStatus("p", { phase: "Applied", baseReplicas: 2, targetReplicas: 5 }),
      }),
      req("q1", { created: T0 - 8 * MIN, status: accepted("q1") }),
      req("q2", { created: T0 - 7 * MIN, status: accepted("q2") }),
      req("n", { created: T0 - SEC }),
      req("s", { status: finalStatus("s", "SUCCEEDED") }),
      req("f", { status: finalStatus("f", "FAILED", { error: { errors: [{ code: "QUOTA_EXCEEDED" }] } }) }),
      req("c", { status: finalStatus("c", "CANCELLED") }),
    ],
  });

describe("group status", () => {
  test("a busy group: sizes, counts, the provisioning request, Ready=True, id and observedGeneration", () => {
    const status = groupStatusOf(busy());
    expect(status).toEqual({
      id: numericId("uid-group-pool"),
      targetSize: 5,
      readyInstances: 3,
      queuedRequests: 3,
      activeRequests: 4,
      provisioningRequest: "p",
      conditions: [
        {
          type: GC.Ready,
          status: "True",
          reason: "TargetScalable",
          message: "Deployment/workers can be scaled through /scale.",
          observedGeneration: 3,
          lastTransitionTime: iso(T0),
        },
      ],
      observedGeneration: 3,
    });
    expect(status.id).toMatch(/^[0-9]+$/);
  });

  test("an idle group: zero counts, no provisioning request", () => {
    const status = groupStatusOf(snap({ replicas: 4, ready: 4 }));
    expect(status).toMatchObject({ targetSize: 4, readyInstances: 4, queuedRequests: 0, activeRequests: 0 });
    expect(status.provisioningRequest).toBeUndefined();
  });

  test("the counts follow the decision, not the observed statuses: a request starting now is provisioning", () => {
    const status = groupStatusOf(
      snap({ replicas: 0, requests: [req("x"), req("y", { created: T0 - 9 * MIN })] }),
    );
    expect(status).toMatchObject({ queuedRequests: 1, activeRequests: 2, provisioningRequest: "x" });
  });

  describe("queuedRequests counts the active requests whose Queued condition is True", () => {
    test("the head waiting for capacity and the requests behind it, whatever their reason", () => {
      const status = groupStatusOf(
        snap({
          replicas: 9,
          requests: [
            req("h", { created: T0 - 9 * MIN }),
            req("w1", { created: T0 - 8 * MIN, status: accepted("w1") }),
            req("w2", { created: T0 - 7 * MIN }),
            req("s", { status: finalStatus("s", "SUCCEEDED") }),
          ],
        }),
      );
      expect(status).toMatchObject({ queuedRequests: 3, activeRequests: 3 });
      expect(status.provisioningRequest).toBeUndefined();
    });

    test("the head in backoff is queued; a request in an attempt is not", () => {
      const status = groupStatusOf(
        snap({
          replicas: 2,
          requests: [
            req("b", {
              created: T0 - 9 * MIN,
              status: accepted("b", { attempts: 1, nextAttemptTime: iso(T0 + MIN) }),
            }),
            req("w", { created: T0 - 8 * MIN, status: accepted("w") }),
          ],
        }),
      );
      expect(status).toMatchObject({ queuedRequests: 2, activeRequests: 2 });
    });

    test("a request waiting for its group to appear (CREATING) is active, not queued", () => {
      const status = groupStatusOf(
        snap({
          target: notFoundTarget,
          requests: [
            req("old", { created: T0 - 9 * MIN, status: accepted("old") }),
            req("new", { created: T0 - SEC }),
          ],
        }),
      );
      expect(status).toMatchObject({ queuedRequests: 1, activeRequests: 2 });
    });

    test("a request whose observed status says Queued but that starts now is not counted", () => {
      const status = groupStatusOf(snap({ replicas: 2, requests: [req("a", { status: accepted("a") })] }));
      expect(status).toMatchObject({ queuedRequests: 0, activeRequests: 1, provisioningRequest: "a" });
    });
  });

  test.each([
    { label: "NotFound", target: notFoundTarget, reason: "NotFound" },
    { label: "NotScalable", target: notScalableTarget, reason: "NotScalable" },
  ])("target $label: Ready=False with the reason, no sizes", ({ target, reason }) => {
    const status = groupStatusOf(snap({ target }));
    expect(cond(status, GC.Ready)).toMatchObject({
      status: "False",
      reason,
      message: target.found ? "" : target.message,
    });
    expect(status.targetSize).toBeUndefined();
    expect(status.readyInstances).toBeUndefined();
  });

  test("group missing: no group status", () => {
    expect(
      decide(snap({ group: null, requests: [req("a", { created: T0 - SEC })] })).groupStatus,
    ).toBeUndefined();
  });

  test("undefined when unchanged", () => {
    const first = groupStatusOf(busy());
    expect(decide({ ...busy(), nowMs: T0 + MIN, groupStatus: first }).groupStatus).toBeUndefined();
  });

  test("the id is stable: an existing id is kept", () => {
    const previous: InstanceGroupManagerStatus = { ...groupStatusOf(busy()), id: "42" };
    const plan = decide({ ...busy(), nowMs: T0 + MIN, groupStatus: previous });
    expect(plan.groupStatus).toBeUndefined();
    const moved = groupStatusOf(
      { ...busy(), target: { found: true, replicas: 5, readyReplicas: 4 } },
      previous,
    );
    expect(moved.id).toBe("42");
  });

  test("the id does not depend on anything but the group's uid", () => {
    const a = groupStatusOf(snap({ group: group({ generation: 9, name: "other" }), replicas: 7 }));
    expect(a.id).toBe(numericId("uid-group-pool"));
  });

  test("a new generation is observed", () => {
    const first = groupStatusOf(busy());
    const next = groupStatusOf({ ...busy(), group: group({ generation: 4 }) }, first);
    expect(next.observedGeneration).toBe(4);
    expect(cond(next, GC.Ready)).toMatchObject({ observedGeneration: 4, lastTransitionTime: iso(T0) });
  });

  test("Ready: lastTransitionTime moves only when the status flips", () => {
    const first = groupStatusOf(busy());
    const sizeChanged = groupStatusOf(
      { ...busy(), nowMs: T0 + MIN, target: { found: true, replicas: 5, readyReplicas: 5 } },
      first,
    );
    expect(cond(sizeChanged, GC.Ready)?.lastTransitionTime).toBe(iso(T0));
    const lost = groupStatusOf({ ...busy(), nowMs: T0 + 2 * MIN, target: notFoundTarget }, sizeChanged);
    expect(cond(lost, GC.Ready)).toMatchObject({ status: "False", lastTransitionTime: iso(T0 + 2 * MIN) });
    const notScalable = groupStatusOf({ ...busy(), nowMs: T0 + 3 * MIN, target: notScalableTarget }, lost);
    expect(cond(notScalable, GC.Ready)).toMatchObject({
      status: "False",
      reason: "NotScalable",
      lastTransitionTime: iso(T0 + 2 * MIN),
    });
    const back = groupStatusOf({ ...busy(), nowMs: T0 + 4 * MIN }, notScalable);
    expect(cond(back, GC.Ready)).toMatchObject({ status: "True", lastTransitionTime: iso(T0 + 4 * MIN) });
  });
});

describe("request conditions", () => {
  test("starting an attempt flips Queued and Provisioning (new times) and keeps Accepted's time", () => {
    const a = req("a", { status: accepted("a") });
    const status = statusOf(decide(snap({ requests: [a] })), "a");
    expect(cond(status, RC.Accepted)).toMatchObject({
      status: "True",
      lastTransitionTime: iso(T0 - 5 * MIN),
    });
    expect(cond(status, RC.Queued)).toMatchObject({ status: "False", lastTransitionTime: iso(T0) });
    expect(cond(status, RC.Provisioning)).toMatchObject({ status: "True", lastTransitionTime: iso(T0) });
  });

  test("a reason change without a status flip keeps lastTransitionTime", () => {
    const a = req("a", {
      hasFinalizer: true,
      status: provisioningStatus("a", { phase: "Applying", baseReplicas: 2, targetReplicas: 4 }),
    });
    const status = statusOf(decide(snap({ replicas: 4, ready: 2, requests: [a] })), "a");
    expect(cond(status, RC.Provisioning)).toMatchObject({
      status: "True",
      reason: "WaitingForInstances",
      lastTransitionTime: iso(T0 - 5 * MIN),
    });
    expect(cond(status, RC.Queued)).toMatchObject({ status: "False", lastTransitionTime: iso(T0 - 5 * MIN) });
  });

  test("a new request gets each condition once, with observedGeneration", () => {
    const status = statusOf(decide(snap({ requests: [req("a", { generation: 4 })] })), "a");
    const types = (status.conditions ?? []).map((c) => c.type);
    expect(new Set(types).size).toBe(types.length);
    expect(types.sort()).toEqual([RC.Accepted, RC.Provisioning, RC.Queued].sort());
    expect(status.conditions?.every((c) => c.observedGeneration === 4)).toBe(true);
    expect(status.observedGeneration).toBe(4);
  });

  test("reaching a final state closes Queued and Provisioning and sets exactly one final condition", () => {
    const a = req("a", {
      hasFinalizer: true,
      status: provisioningStatus("a", { phase: "Applied", baseReplicas: 2, targetReplicas: 4 }),
    });
    const status = statusOf(decide(snap({ replicas: 4, ready: 4, requests: [a] })), "a");
    expect(cond(status, RC.Queued)?.status).toBe("False");
    expect(cond(status, RC.Provisioning)).toMatchObject({ status: "False", lastTransitionTime: iso(T0) });
    expect(cond(status, RC.Succeeded)?.status).toBe("True");
    expect(cond(status, RC.Failed)).toBeUndefined();
    expect(cond(status, RC.Cancelled)).toBeUndefined();
  });

  test("nothing changed: no RequestChange at all", () => {
    const first = decide(busy());
    const settled: GroupSnapshot = {
      ...busy(),
      nowMs: T0 + 2 * SEC,
      requests: busy().requests.map((r) => {
        const c = first.requests.find((x) => x.name === r.name);
        return { ...r, status: c?.status ?? r.status };
      }),
    };
    const again = decide(settled);
    expect(again.requests).toEqual([]);
    expect(again.events).toEqual([]);
  });

  test("a new generation of a request is observed (status write), nothing else changes", () => {
    const a = req("a", { status: finalStatus("a", "CANCELLED") });
    expect(decide(snap({ requests: [a] })).requests).toEqual([]);
    const bumped = { ...a, generation: 2 };
    const plan = decide(snap({ requests: [bumped] }));
    expect(statusOf(plan, "a")).toEqual({ ...a.status, observedGeneration: 2 });
  });

  test("identity fields are filled in and an existing id is kept", () => {
    const a = req("a", { status: { ...finalStatus("a", "CANCELLED"), id: "7" } });
    const kept = statusOf(decide(snap({ requests: [a] })), "a");
    expect(kept.id).toBe("7");
    expect(kept.selfLinkWithId).toMatch(/\/resizeRequests\/7$/);
    expect(kept.selfLink).toMatch(/\/resizeRequests\/a$/);
    const fresh = statusOf(decide(snap({ requests: [req("a", { status: { state: "CANCELLED" } })] })), "a");
    expect(fresh).toMatchObject({ ...identityOf("a"), state: "CANCELLED" });
  });
});

describe("statuses read back from the API server", () => {
  // The API server serves custom resources with object keys in alphabetical order, while decide builds
  // conditions as {type, status, reason, ...} and the group status as {id, targetSize, ...}. Change
  // detection is structural, so an unchanged situation read back from the server is not rewritten
  // (conditions.ts: "re-deciding an unchanged situation produces an identical status and therefore no
  // write").
  const servedAfter = (first: ReturnType<typeof decide>, nowMs: number): GroupSnapshot => ({
    ...busy(),
    nowMs,
    requests: busy().requests.map((r) => {
      const c = first.requests.find((x) => x.name === r.name);
      return { ...r, status: asServed(c?.status ?? r.status) };
    }),
  });

  test("an unchanged request status served with sorted keys is not rewritten", () => {
    const first = decide(busy());
    const again = decide(servedAfter(first, T0 + 2 * SEC));
    expect(again.requests).toEqual([]);
    expect(again.events).toEqual([]);
    expect(again.scale).toBeUndefined();
  });

  test("an unchanged group status served with sorted keys is not rewritten", () => {
    const previous = asServed(groupStatusOf(busy()));
    expect(decide({ ...busy(), nowMs: T0 + MIN, groupStatus: previous }).groupStatus).toBeUndefined();
  });

  test("a real change under sorted keys is still written (request status)", () => {
    const first = decide(busy());
    const served = servedAfter(first, T0 + 2 * SEC);
    // One more instance became ready: the waiting message of the attempt changes, nothing else.
    const plan = decide({ ...served, target: { found: true, replicas: 5, readyReplicas: 4 } });
    expect(plan.requests.map((c) => c.name)).toEqual(["p"]);
    expect(cond(statusOf(plan, "p"), RC.Provisioning)?.message).toContain("(4 are)");
  });

  test("a real change under sorted keys is still written (group status)", () => {
    const previous = asServed(groupStatusOf(busy()));
    const next = decide({
      ...busy(),
      nowMs: T0 + MIN,
      target: { found: true, replicas: 5, readyReplicas: 4 },
      groupStatus: previous,
    }).groupStatus;
    expect(next).toEqual({ ...previous, readyInstances: 4 });
  });

  test("a nested value changed under sorted keys is still written (stale condition reason, condition message)", () => {
    const first = decide(busy());
    const served = servedAfter(first, T0 + 2 * SEC);
    const edited = served.requests.map((r) =>
      r.name === "q1"
        ? {
            ...r,
            status: {
              ...r.status,
              conditions: (r.status.conditions ?? []).map((c) =>
                c.type === RC.Queued ? { ...c, reason: "Stale" } : c,
              ),
            },
          }
        : r.name === "q2"
          ? {
              ...r,
              status: {
                ...r.status,
                conditions: (r.status.conditions ?? []).map((c) =>
                  c.type === RC.Queued ? { ...c, message: "stale" } : c,
                ),
              },
            }
          : r,
    );
    const plan = decide({ ...served, requests: edited });
    expect(plan.requests.map((c) => c.name)).toEqual(["q1", "q2"]);
    expect(cond(statusOf(plan, "q1"), RC.Queued)?.reason).toBe("Queued");
    expect(cond(statusOf(plan, "q2"), RC.Queued)?.message).toBe(queuedMessage());
  });
});

describe("an idle group follows its target", () => {
  test.each([
    ["pods still ending after a release", 2, 4, CFG.pollIntervalMs * 10],
    ["pods still starting after a manual scale", 4, 2, CFG.pollIntervalMs * 10],
    ["a settled target", 3, 3, undefined],
  ])("%s (%i replicas, %i ready): next look in %p ms", (_, replicas, ready, requeue) => {
    const plan = decide(snap({ replicas, ready, requests: [] }));
    expect(plan.groupStatus?.readyInstances).toBe(ready);
    expect(plan.requeueAfterMs).toBe(requeue);
  });
});
