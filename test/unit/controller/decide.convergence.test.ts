// decide() run in a loop against a simulated cluster (builders.drive): decide → write statuses and
// finalizers → apply the scale (guarded by `from`) → instances become ready a step later. Checks that
// scenarios converge (a decision that changes nothing), end in the right states and replicas, keep the
// per-step invariants, and survive crashes between the status write and the /scale call (docs/design.md §4
// "Restart-safe and idempotent").
import { ErrorCode } from "../../../src/api/errors.js";
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import {
  MIN,
  SEC,
  T0,
  byName,
  cond,
  drive,
  group,
  replicasOf,
  req,
  resolvedIn,
  snap,
  startedIn,
  statusWrites,
  type DriveResult,
  type Step,
} from "./builders.js";

const at = (offsetSec: number): number => T0 - 10 * MIN + offsetSec * SEC;

function stateOf(s: GroupSnapshot, name: string): string | undefined {
  return byName(s, name)?.status.state;
}

function succeededOrder(r: DriveResult): string[] {
  return r.steps.flatMap((st) =>
    st.plan.events.filter((e) => e.event.reason === "Succeeded").map((e) => e.request),
  );
}

function startedOrder(r: DriveResult): string[] {
  return r.steps.flatMap((st) =>
    st.plan.events.filter((e) => e.event.reason === "ProvisioningStarted").map((e) => e.request),
  );
}

function expectHealthy(r: DriveResult): void {
  expect(r.violations).toEqual([]);
  expect(r.quiet).toBe(true);
  // Once quiet, deciding again on the final snapshot is still quiet.
  const again = decide({ ...r.final, groupStatus: r.groupStatus });
  expect(again.requests).toEqual([]);
  expect(again.scale).toBeUndefined();
  expect(again.groupStatus).toBeUndefined();
}

const three = (): RequestView[] => [
  req("r3", { resizeBy: 3, created: at(3) }),
  req("r1", { resizeBy: 2, created: at(1) }),
  req("r2", { resizeBy: 1, created: at(2) }),
];

// Runs whose steps name the tests below: computed before the tests are collected (top-level await).
const threeFromOne = (): GroupSnapshot => snap({ replicas: 1, requests: three() });
const cleanThreeFromOne = await drive(threeFromOne());
const sharedSteps = cleanThreeFromOne.steps
  .filter((st) => resolvedIn(st.before, st.plan).length > 0 && st.plan.scale !== undefined)
  .map((st) => st.index);

describe("scenarios converge", () => {
  test("three queued requests all succeed in FIFO order", async () => {
    const r = await drive(snap({ replicas: 1, requests: three() }));
    expectHealthy(r);
    expect(["r1", "r2", "r3"].map((n) => stateOf(r.final, n))).toEqual([
      "SUCCEEDED",
      "SUCCEEDED",
      "SUCCEEDED",
    ]);
    expect(succeededOrder(r)).toEqual(["r1", "r2", "r3"]);
    expect(startedOrder(r)).toEqual(["r1", "r2", "r3"]);
    expect(r.applied).toEqual([
      { request: "r1", from: 1, replicas: 3 },
      { request: "r2", from: 3, replicas: 4 },
      { request: "r3", from: 4, replicas: 7 },
    ]);
    expect(replicasOf(r.final)).toBe(7);
    expect(r.final.requests.every((x) => !x.hasFinalizer)).toBe(true);
    expect(r.final.requests.every((x) => x.status.attempts === 1)).toBe(true);
    expect(r.groupStatus).toMatchObject({
      targetSize: 7,
      readyInstances: 7,
      queuedRequests: 0,
      activeRequests: 0,
    });
    expect(r.groupStatus?.provisioningRequest).toBeUndefined();
  });

  test("one fails admission, the others succeed around it", async () => {
    const requests = [...three(), req("huge", { resizeBy: 11, created: at(2) + 500 })];
    const r = await drive(snap({ replicas: 1, requests }));
    expectHealthy(r);
    expect(stateOf(r.final, "huge")).toBe("FAILED");
    expect(byName(r.final, "huge")?.status.error?.errors[0]?.code).toBe(ErrorCode.QUOTA_EXCEEDED);
    expect(succeededOrder(r)).toEqual(["r1", "r2", "r3"]);
    expect(replicasOf(r.final)).toBe(7);
  });

  test("a head that does not fit waits for room and starts when maxSize is raised", async () => {
    const requests = [
      req("big", { resizeBy: 8, created: at(1) }),
      req("small", { resizeBy: 1, created: at(2) }),
    ];
    const r = await drive(snap({ replicas: 5, requests }), {
      maxSteps: 30,
      before: (i, s) => (i === 10 ? { ...s, group: group({ maxSize: 20 }) } : s),
    });
    expectHealthy(r);
    expect(startedOrder(r)).toEqual(["big", "small"]);
    expect(r.steps.slice(0, 10).every((st) => st.plan.scale === undefined)).toBe(true);
    expect(replicasOf(r.final)).toBe(14);
  });

  test("cancel mid-attempt (after the increase was applied) restores the replicas", async () => {
    const r = await drive(snap({ replicas: 4, requests: [req("a", { resizeBy: 3, created: at(1) })] }), {
      before: (i, s) =>
        i === 1
          ? { ...s, requests: s.requests.map((x) => ({ ...x, spec: { ...x.spec, cancel: true } })) }
          : s,
    });
    expectHealthy(r);
    expect(stateOf(r.final, "a")).toBe("CANCELLED");
    expect(replicasOf(r.final)).toBe(4);
    expect(r.applied).toEqual([
      { request: "a", from: 4, replicas: 7 },
      { request: "a", from: 7, replicas: 4 },
    ]);
    expect(byName(r.final, "a")?.hasFinalizer).toBe(false);
  });

  test("deleting mid-attempt rolls back first, then lets the object go", async () => {
    const r = await drive(snap({ replicas: 4, requests: [req("a", { resizeBy: 3, created: at(1) })] }), {
      before: (i, s) => (i === 1 ? { ...s, requests: s.requests.map((x) => ({ ...x, deleting: true })) } : s),
    });
    expectHealthy(r);
    expect(byName(r.final, "a")).toBeUndefined();
    expect(replicasOf(r.final)).toBe(4);
    expect(r.applied.map((x) => x.replicas)).toEqual([7, 4]);
  });

  test("cancel right after the record, before /scale ran: no instance is ever added", async () => {
    const r = await drive(snap({ replicas: 4, requests: [req("a", { resizeBy: 3, created: at(1) })] }), {
      crashAt: [0],
      before: (i, s) =>
        i === 1
          ? { ...s, requests: s.requests.map((x) => ({ ...x, spec: { ...x.spec, cancel: true } })) }
          : s,
    });
    expectHealthy(r);
    expect(stateOf(r.final, "a")).toBe("CANCELLED");
    expect(r.applied).toEqual([]);
    expect(replicasOf(r.final)).toBe(4);
  });

  test("no room in the cluster: the attempt times out, rolls back, backs off and succeeds once room appears", async () => {
    const g = group({ provisioningTimeoutMs: 5 * SEC });
    let capacity = 3;
    const r = await drive(
      snap({ group: g, replicas: 2, requests: [req("a", { resizeBy: 2, created: at(1) })] }),
      {
        maxSteps: 100,
        get capacity() {
          return capacity;
        },
        before: (i, s) => {
          if (i === 12) capacity = 100;
          return s;
        },
      },
    );
    expectHealthy(r);
    const a = byName(r.final, "a");
    expect(a?.status.state).toBe("SUCCEEDED");
    expect(a?.status.attempts).toBeGreaterThanOrEqual(2);
    expect(a?.status.lastAttempt).toBeUndefined();
    expect(replicasOf(r.final)).toBe(4);
    const failed = r.steps.flatMap((st) => st.plan.events.filter((e) => e.event.reason === "AttemptFailed"));
    expect(failed.length).toBe((a?.status.attempts ?? 0) - 1);
    const firstFailure = r.steps.find((st) => st.plan.events.some((e) => e.event.reason === "AttemptFailed"));
    expect(firstFailure?.plan.requests[0]?.status?.lastAttempt?.error?.errors[0]?.code).toBe(
      ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED,
    );
  });

  test("run durations: instances are released after success, the state stays SUCCEEDED", async () => {
    const requests = [
      req("a", { resizeBy: 2, created: at(1), run: { seconds: "60" } }),
      req("b", { resizeBy: 3, created: at(2), run: { seconds: "120" } }),
    ];
    const r = await drive(snap({ replicas: 1, requests }));
    expectHealthy(r);
    for (const n of ["a", "b"]) {
      const x = byName(r.final, n);
      expect(x?.status.state).toBe("SUCCEEDED");
      expect(x?.status.release?.phase).toBe("Applied");
      expect(cond(x?.status ?? {}, RC.Released)?.status).toBe("True");
    }
    expect(replicasOf(r.final)).toBe(1);
    const released = r.steps.flatMap((st) =>
      st.plan.events.filter((e) => e.event.reason === "RunDurationElapsed").map((e) => e.request),
    );
    expect(released).toEqual(["a", "b"]);
  });

  test("run duration with a floor: the release stops at minSize", async () => {
    const r = await drive(
      snap({
        group: group({ minSize: 3 }),
        replicas: 2,
        requests: [req("a", { resizeBy: 4, created: at(1), run: { seconds: "30" } })],
      }),
    );
    expectHealthy(r);
    expect(replicasOf(r.final)).toBe(3);
    expect(byName(r.final, "a")?.status.release).toMatchObject({ baseReplicas: 6, targetReplicas: 3 });
  });

  test("a head whose attempt timed out keeps its turn: FIFO order of success", async () => {
    const g = group({ provisioningTimeoutMs: 5 * SEC });
    let capacity = 3;
    const r = await drive(
      snap({
        group: g,
        replicas: 2,
        requests: [req("a", { resizeBy: 2, created: at(1) }), req("b", { resizeBy: 1, created: at(2) })],
      }),
      {
        maxSteps: 100,
        get capacity() {
          return capacity;
        },
        before: (i, s) => {
          if (i === 12) capacity = 100;
          return s;
        },
      },
    );
    expectHealthy(r);
    expect(succeededOrder(r)).toEqual(["a", "b"]);
    // b never started before a succeeded: every attempt up to a's success is a's.
    const started = startedOrder(r);
    expect(started[started.length - 1]).toBe("b");
    expect(started.slice(0, -1).every((n) => n === "a")).toBe(true);
    expect(byName(r.final, "a")?.status.attempts).toBeGreaterThanOrEqual(2);
    expect(byName(r.final, "b")?.status.attempts).toBe(1);
    expect(replicasOf(r.final)).toBe(5);
  });
});

describe("each success and the next start share a decision", () => {
  /** Steps whose plan resolves a recorded change (success, back to the queue, cancel, release). */
  const resolving = (r: DriveResult): Step[] =>
    r.steps.filter((st) => resolvedIn(st.before, st.plan).length > 0);

  /**
   * Every plan that resolves a change asks for the next decision at once and starts at most one change,
   * whose record is its last status write and whose scale is the plan's only one. Returns the number of
   * resolving plans that did start the next change.
   */
  function expectOneChangePerPlan(r: DriveResult): number {
    const steps = resolving(r);
    expect(steps.length).toBeGreaterThan(0);
    let startedWithResolution = 0;
    for (const st of steps) {
      expect(st.plan.requeueAfterMs).toBe(0);
      const started = startedIn(st.before, st.plan);
      expect(started.length).toBeLessThanOrEqual(1);
      if (st.plan.scale === undefined) continue;
      // A resolved change has nothing left to apply: the scale is the new change's, recorded last.
      expect(started).toEqual([st.plan.scale.request]);
      expect(statusWrites(st.plan).at(-1)).toBe(st.plan.scale.request);
      startedWithResolution++;
    }
    return startedWithResolution;
  }

  test("three queued requests: each success and the next start share a decision", async () => {
    const r = await drive(snap({ replicas: 1, requests: three() }));
    expectHealthy(r);
    expect(expectOneChangePerPlan(r)).toBe(2);
    const kinds = r.steps.map((st) => st.plan.events.map((e) => `${e.request}:${e.event.reason}`));
    for (const [n, next, from, to] of [
      ["r1", "r2", 3, 4],
      ["r2", "r3", 4, 7],
    ] as const) {
      const i = kinds.findIndex((k) => k.includes(`${n}:Succeeded`));
      expect(kinds[i]).toEqual([`${n}:Succeeded`, `${next}:ProvisioningStarted`]);
      const plan = r.steps[i]?.plan;
      expect(plan?.scale).toEqual({ request: next, from, replicas: to });
      expect(plan && statusWrites(plan)).toEqual([n, next]);
    }
    // r1 starts; then per request: increase seen applied (instances not ready), success (with the next
    // start); and a last decision that finds nothing to do. (Waiting a decision after each success made 10.)
    expect(r.steps.length).toBe(8);
  });

  test("run durations, timeouts with rollbacks, and a cancel: still one change per plan, and it converges", async () => {
    const g = group({ provisioningTimeoutMs: 5 * SEC });
    let capacity = 4;
    const requests = [
      req("a", { resizeBy: 2, created: at(1), run: { seconds: "30" } }),
      req("b", { resizeBy: 2, created: at(2) }),
      req("c", { resizeBy: 1, created: at(3), run: { seconds: "10" } }),
      req("d", { resizeBy: 1, created: at(4) }),
    ];
    const r = await drive(snap({ group: g, replicas: 1, requests }), {
      maxSteps: 300,
      get capacity() {
        return capacity;
      },
      before: (i, s) => {
        if (i === 15) capacity = 100;
        if (i === 2)
          return {
            ...s,
            requests: s.requests.map((x) =>
              x.name === "d" ? { ...x, spec: { ...x.spec, cancel: true } } : x,
            ),
          };
        return s;
      },
    });
    expectHealthy(r);
    expect(expectOneChangePerPlan(r)).toBeGreaterThan(0);
    expect(["a", "b", "c", "d"].map((n) => stateOf(r.final, n))).toEqual([
      "SUCCEEDED",
      "SUCCEEDED",
      "SUCCEEDED",
      "CANCELLED",
    ]);
    expect(succeededOrder(r)).toEqual(["a", "b", "c"]);
    expect(byName(r.final, "a")?.status.release?.phase).toBe("Applied");
    expect(byName(r.final, "c")?.status.release?.phase).toBe("Applied");
    // a (2) and c (1) released, b (2) stays.
    expect(replicasOf(r.final)).toBe(3);
    const kinds = r.steps.flatMap((st) => st.plan.events.map((e) => e.event.reason));
    expect(kinds).toContain("RolledBack");
    expect(kinds).toContain("RunDurationElapsed");
    expect(r.final.requests.every((x) => !x.hasFinalizer)).toBe(true);
  });

  test("crashes at every other step: one change per plan, each increase applied once", async () => {
    const crashAt = Array.from({ length: 100 }, (_, i) => i).filter((i) => i % 2 === 1);
    const r = await drive(snap({ replicas: 1, requests: three() }), { crashAt });
    expectHealthy(r);
    expect(expectOneChangePerPlan(r)).toBeGreaterThan(0);
    expect(r.applied.map((x) => x.request)).toEqual(["r1", "r2", "r3"]);
    expect(replicasOf(r.final)).toBe(7);
  });

  describe("a conflict on a decision that resolves one change and starts the next", () => {
    const scenario = threeFromOne;
    // The two success + start decisions of the clean run.
    const shared = sharedSteps;

    test("the clean run has two of them", () => {
      expect(shared.length).toBe(2);
    });

    test.each(shared)(
      "a conflict on the success at step %i: nothing of the start lands, the run converges",
      async (i) => {
        const r = await drive(scenario(), { conflictAt: (k) => (k === i ? 0 : undefined) });
        expectHealthy(r);
        const cut = r.steps[i];
        // Neither the success nor the next record landed, and no scale.
        expect(cut?.after.requests.map((x) => x.status)).toEqual(cut?.before.requests.map((x) => x.status));
        expect(cut?.scaleApplied).toBe(false);
        // The next decision does both again.
        expect(r.steps[i + 1]?.plan.scale).toEqual(cut?.plan.scale);
        // The cut plan's Succeeded is decided twice (the executor emits it only once, when written).
        expect(new Set(succeededOrder(r))).toEqual(new Set(["r1", "r2", "r3"]));
        expect(["r1", "r2", "r3"].map((n) => stateOf(r.final, n))).toEqual([
          "SUCCEEDED",
          "SUCCEEDED",
          "SUCCEEDED",
        ]);
        expect(r.applied.map((x) => x.request)).toEqual(["r1", "r2", "r3"]);
        expect(replicasOf(r.final)).toBe(7);
      },
    );

    test.each(shared)(
      "a conflict on the new record at step %i: the success stays, the start follows",
      async (i) => {
        const r = await drive(scenario(), {
          conflictAt: (k, plan) => (k === i ? statusWrites(plan).length - 1 : undefined),
        });
        expectHealthy(r);
        const cut = r.steps[i];
        expect(cut?.scaleApplied).toBe(false);
        const next = r.steps[i + 1]?.plan;
        expect(next?.scale).toEqual(cut?.plan.scale);
        expect(next && statusWrites(next)).toEqual([cut?.plan.scale?.request]);
        expect(r.applied.map((x) => x.request)).toEqual(["r1", "r2", "r3"]);
        expect(replicasOf(r.final)).toBe(7);
      },
    );

    test("a conflict on every success the first time it is decided: converges, each increase applied once", async () => {
      const cut = new Set<string>();
      const r = await drive(scenario(), {
        conflictAt: (_, plan) => {
          const success = plan.events.find((e) => e.event.reason === "Succeeded")?.request;
          if (success === undefined || cut.has(success)) return undefined;
          cut.add(success);
          return 0;
        },
      });
      expectHealthy(r);
      expect([...cut]).toEqual(["r1", "r2", "r3"]);
      expect(["r1", "r2", "r3"].map((n) => stateOf(r.final, n))).toEqual([
        "SUCCEEDED",
        "SUCCEEDED",
        "SUCCEEDED",
      ]);
      // Each start after a success was decided twice, applied once.
      expect(startedOrder(r)).toEqual(["r1", "r2", "r2", "r3", "r3"]);
      expect(r.applied.map((x) => x.request)).toEqual(["r1", "r2", "r3"]);
      expect(replicasOf(r.final)).toBe(7);
    });
  });
});

describe("crashes between the status write and /scale never apply a change twice or lose one", () => {
  const base = 1;
  const scenario = threeFromOne;
  const clean = cleanThreeFromOne;
  const scaleSteps = clean.steps.filter((st) => st.plan.scale !== undefined).map((st) => st.index);

  test("the clean run plans a scale in some steps", () => {
    expect(scaleSteps.length).toBe(3);
  });

  test.each(Array.from({ length: clean.steps.length }, (_, i) => i))("crash at step %i", async (i) => {
    const r = await drive(scenario(), { crashAt: [i] });
    expectHealthy(r);
    expect(succeededOrder(r)).toEqual(["r1", "r2", "r3"]);
    expect(replicasOf(r.final)).toBe(base + 2 + 1 + 3);
    // Each request's increase was applied exactly once.
    expect(r.applied.map((x) => x.request)).toEqual(["r1", "r2", "r3"]);
  });

  test("a crash at every step that plans a scale, twice in a row", async () => {
    const crashAt: number[] = [];
    // Each dropped scale shifts the later steps by one; crash twice at each scale-planning step.
    let shift = 0;
    for (const s of scaleSteps) {
      crashAt.push(s + shift, s + shift + 1);
      shift += 2;
    }
    const r = await drive(scenario(), { crashAt });
    expectHealthy(r);
    expect(r.steps.filter((st) => st.plan.scale !== undefined && !st.scaleApplied).length).toBe(6);
    expect(replicasOf(r.final)).toBe(7);
    expect(r.applied.map((x) => x.request)).toEqual(["r1", "r2", "r3"]);
  });

  test("crashes during rollbacks and releases too", async () => {
    const g = group({ provisioningTimeoutMs: 5 * SEC });
    let capacity = 1;
    const requests = [req("a", { resizeBy: 2, created: at(1), run: { seconds: "30" } })];
    const r = await drive(snap({ group: g, replicas: 1, requests }), {
      maxSteps: 150,
      crashAt: Array.from({ length: 150 }, (_, i) => i).filter((i) => i % 2 === 0),
      get capacity() {
        return capacity;
      },
      before: (i, s) => {
        if (i === 20) capacity = 100;
        return s;
      },
    });
    expectHealthy(r);
    const a = byName(r.final, "a");
    expect(a?.status.state).toBe("SUCCEEDED");
    expect(a?.status.release?.phase).toBe("Applied");
    expect(replicasOf(r.final)).toBe(1);
    // Every applied change alternates up and down by exactly 2: nothing doubled.
    expect(r.applied.every((x) => Math.abs(x.replicas - x.from) === 2)).toBe(true);
    expect(r.applied.some((x) => x.replicas < x.from && x.request === "a")).toBe(true);
  });

  test("deciding twice on the same snapshot gives the same plan (pure, deterministic)", () => {
    const s0 = scenario();
    const plan = decide(s0);
    expect(plan.scale).toEqual({ request: "r1", from: 1, replicas: 3 });
    const again = decide(s0);
    expect(again).toEqual(plan);
  });
});
