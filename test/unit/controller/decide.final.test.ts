// decide(): requests in a final state (docs/design.md §4 "Final states": never change state, status.error is
// never removed) and the run-duration release of SUCCEEDED requests (docs/design.md §4 "Run duration").
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import {
  CFG,
  MIN,
  SEC,
  T0,
  acceptedAt,
  byName,
  changeOf,
  checkStep,
  cond,
  finalStatus,
  group,
  iso,
  notFoundTarget,
  notScalableTarget,
  provisioningStatus,
  queuedMessage,
  reasons,
  releaseOf,
  replicasOf,
  req,
  snap,
  statusAfter,
  statusOf,
  statusWrites,
  type RequestOptions,
  type SnapshotOptions,
} from "./builders.js";
import { afterExecuting } from "./cluster.js";

const quotaError = {
  errors: [
    {
      code: "QUOTA_EXCEEDED",
      message: "too big",
      errorDetails: [{ quotaInfo: { metricName: "m", limitName: "maxSize", limit: 1 } }],
    },
  ],
};

describe("final states never change state, and status.error stays", () => {
  const finals: { label: string; status: ResizeRequestStatus }[] = [
    {
      label: "SUCCEEDED (no run duration)",
      status: finalStatus("a", "SUCCEEDED", { succeededTime: iso(T0 - MIN) }),
    },
    {
      label: "SUCCEEDED (run over, released)",
      status: finalStatus("a", "SUCCEEDED", {
        runUntil: iso(T0 - MIN),
        release: releaseOf({
          phase: "Applied",
          baseReplicas: 5,
          targetReplicas: 2,
          appliedTime: iso(T0 - MIN),
        }),
      }),
    },
    {
      label: "SUCCEEDED (run over, not released yet)",
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - MIN) }),
    },
    {
      label: "SUCCEEDED (release Applying)",
      status: finalStatus("a", "SUCCEEDED", {
        runUntil: iso(T0 - MIN),
        release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 2 }),
      }),
    },
    { label: "FAILED", status: finalStatus("a", "FAILED", { error: quotaError }) },
    { label: "CANCELLED", status: finalStatus("a", "CANCELLED") },
  ];
  const inputs: { label: string; snapshot: SnapshotOptions; request?: RequestOptions }[] = [
    { label: "nothing new", snapshot: {} },
    { label: "group missing", snapshot: { group: null } },
    { label: "target NotFound", snapshot: { target: notFoundTarget } },
    { label: "target NotScalable", snapshot: { target: notScalableTarget } },
    { label: "maxSize lowered below the request", snapshot: { group: group({ maxSize: 1 }) } },
    { label: "target at maxSize", snapshot: { replicas: 10 } },
    { label: "target at 0", snapshot: { replicas: 0 } },
    { label: "instances unready and unschedulable", snapshot: { ready: 0, unschedulable: "0/3 nodes" } },
    { label: "long after the admission grace", snapshot: { now: T0 + 24 * 60 * MIN } },
    { label: "spec.cancel", snapshot: {}, request: { cancel: true } },
    { label: "deleting with finalizer", snapshot: {}, request: { deleting: true, hasFinalizer: true } },
    // Left by a pass that wrote the final state and then ended early (a conflict, a crash).
    { label: "finalizer left behind", snapshot: {}, request: { hasFinalizer: true } },
    { label: "generation bumped", snapshot: {}, request: { generation: 2 } },
    {
      label: "another request queued behind",
      snapshot: { requests: [req("z", { created: T0 - MIN, status: acceptedAt("z", T0 - MIN) })] },
    },
    {
      label: "another request in an attempt",
      snapshot: {
        requests: [
          req("z", {
            created: T0 - MIN,
            hasFinalizer: true,
            status: provisioningStatus("z", { phase: "Applied", baseReplicas: 0, targetReplicas: 2 }),
          }),
        ],
        ready: 0,
      },
    },
  ];
  const table = finals.flatMap((f) => inputs.map((i) => ({ ...i, final: f.label, status: f.status })));
  test.each(table)("$final × $label", ({ status, snapshot, request }) => {
    const a = req("a", { resizeBy: 3, ...request, status });
    const plan = decide(snap({ replicas: 2, ...snapshot, requests: [a, ...(snapshot.requests ?? [])] }));
    const next = statusAfter(plan, a);
    expect(next.state).toBe(status.state);
    expect(next.error).toEqual(status.error);
    expect(next.provisioning).toBeUndefined();
    expect(cond(next, RC.Queued)?.status).not.toBe("True");
    expect(next.lastAttempt).toBeUndefined();
    expect(changeOf(plan, "a")?.finalizer).not.toBe("add");
    // A finished request keeps no finalizer: whatever holds one gets it removed.
    expect(changeOf(plan, "a")?.finalizer).toBe(request?.hasFinalizer ? "remove" : undefined);
    if (plan.scale?.request === "a") {
      // Only a SUCCEEDED request's release may scale, and only down.
      expect(status.state).toBe("SUCCEEDED");
      expect(plan.scale.replicas).toBeLessThan(plan.scale.from);
    }
    for (const e of plan.events.filter((x) => x.request === "a")) {
      expect(["CancelRefused", "RunDurationElapsed"]).toContain(e.event.reason);
    }
  });

  test("a FAILED request with a stale lastAttempt keeps its error", () => {
    const a = req("a", {
      status: finalStatus("a", "FAILED", { error: quotaError, lastAttempt: { error: quotaError } }),
    });
    const plan = decide(snap({ requests: [a] }));
    expect(statusAfter(plan, a).error).toEqual(quotaError);
  });
});

describe("run duration", () => {
  /** A SUCCEEDED "a" (resizeBy 3) with the given runUntil / release. */
  function succeeded(extra: ResizeRequestStatus, o: RequestOptions = {}): RequestView {
    return req("a", {
      resizeBy: 3,
      run: { seconds: "3600" },
      ...o,
      status: finalStatus("a", "SUCCEEDED", { succeededTime: iso(T0 - 60 * MIN), ...extra }),
    });
  }

  test.each([{ left: 1 }, { left: 90 * SEC }, { left: 59 * MIN }])(
    "runUntil in $left ms: nothing written, requeue at runUntil",
    ({ left }) => {
      const a = succeeded({ runUntil: iso(T0 + left) });
      const plan = decide(snap({ replicas: 5, requests: [a] }));
      expect(plan.requests).toEqual([]);
      expect(plan.scale).toBeUndefined();
      expect(plan.requeueAfterMs).toBe(left);
    },
  );

  test.each([
    { label: "plain", minSize: 0, t: 5, to: 2 },
    { label: "elapsed exactly now", minSize: 0, t: 5, to: 2, runUntil: T0 },
    { label: "clamped at 0", minSize: 0, t: 2, to: 0 },
    { label: "t − k under minSize: the floor holds", minSize: 4, t: 5, to: 4 },
    { label: "t − k equals minSize", minSize: 2, t: 5, to: 2 },
  ])(
    "elapsed ($label): release Applying t→max(minSize, t−k) recorded and the scale planned",
    ({ minSize, t, to, runUntil }) => {
      const a = succeeded({ runUntil: iso(runUntil ?? T0 - SEC) });
      const plan = decide(snap({ group: group({ minSize }), replicas: t, requests: [a] }));
      const next = statusOf(plan, "a");
      expect(next.state).toBe("SUCCEEDED");
      expect(next.release).toEqual({
        phase: "Applying",
        baseReplicas: t,
        targetReplicas: to,
        startedTime: iso(T0),
      });
      expect(plan.scale).toEqual({ request: "a", from: t, replicas: to });
      // The target is not watched: the group looks again, so no lost watch event can strand the release.
      expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
      expect(plan.events).toEqual([]);
      expect(changeOf(plan, "a")?.finalizer).toBeUndefined();
    },
  );

  test.each([
    { label: "at the floor (minSize 5, target 5)", minSize: 5, t: 5 },
    { label: "already empty", minSize: 0, t: 0 },
  ])("elapsed, $label: Applied at once, without a scale", ({ minSize, t }) => {
    const a = succeeded({ runUntil: iso(T0 - SEC) });
    const plan = decide(snap({ group: group({ minSize }), replicas: t, requests: [a] }));
    const next = statusOf(plan, "a");
    expect(plan.scale).toBeUndefined();
    expect(next.state).toBe("SUCCEEDED");
    expect(next.release).toMatchObject({
      phase: "Applied",
      appliedTime: iso(T0),
      baseReplicas: t,
      targetReplicas: t,
    });
    expect(cond(next, RC.Released)).toMatchObject({ status: "True", reason: "RunDurationElapsed" });
    expect(reasons(plan, "a")).toEqual(["RunDurationElapsed"]);
  });

  test.each([
    { label: "minSize 5, target 3", minSize: 5, t: 3 },
    { label: "minSize 4, target 0", minSize: 4, t: 0 },
    { label: "minSize 10, target 9", minSize: 10, t: 9 },
  ])("elapsed, target already below the floor ($label): Applied at once, no scale up", ({ minSize, t }) => {
    const a = succeeded({ runUntil: iso(T0 - SEC) });
    const plan = decide(snap({ group: group({ minSize }), replicas: t, requests: [a] }));
    const next = statusOf(plan, "a");
    expect(plan.scale).toBeUndefined();
    expect(next.state).toBe("SUCCEEDED");
    expect(next.release).toEqual({
      phase: "Applied",
      baseReplicas: t,
      targetReplicas: t,
      startedTime: iso(T0),
      appliedTime: iso(T0),
    });
    expect(cond(next, RC.Released)).toMatchObject({ status: "True", reason: "RunDurationElapsed" });
    expect(reasons(plan, "a")).toEqual(["RunDurationElapsed"]);
    expect(plan.events[0]?.note).toContain("nothing to remove");
    expect(changeOf(plan, "a")?.finalizer).toBeUndefined();
  });

  test("whatever minSize says, a release never plans a scale up", () => {
    for (const minSize of [0, 1, 2, 3, 4, 5, 9, 10]) {
      for (const t of [0, 1, 3, 4, 5, 9]) {
        const a = succeeded({ runUntil: iso(T0 - SEC) });
        const plan = decide(snap({ group: group({ minSize }), replicas: t, requests: [a] }));
        if (plan.scale) expect(plan.scale.replicas).toBeLessThan(plan.scale.from);
        const release = statusOf(plan, "a").release;
        expect(release?.targetReplicas).toBeLessThanOrEqual(t);
      }
    }
  });

  test("release Applying and the target == base (crash before /scale): re-planned, nothing written", () => {
    const a = succeeded({
      runUntil: iso(T0 - MIN),
      release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 2 }),
    });
    const plan = decide(snap({ replicas: 5, requests: [a] }));
    expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
    expect(plan.requests).toEqual([]);
    expect(plan.events).toEqual([]);
  });

  test("release Applying and the target == targetReplicas: Applied, Released=True, event, still SUCCEEDED", () => {
    const release = releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 2 });
    const a = succeeded({ runUntil: iso(T0 - MIN), release });
    const plan = decide(snap({ replicas: 2, requests: [a] }));
    const next = statusOf(plan, "a");
    expect(plan.scale).toBeUndefined();
    expect(next.state).toBe("SUCCEEDED");
    expect(next.release).toEqual({ ...release, phase: "Applied", appliedTime: iso(T0) });
    expect(cond(next, RC.Released)).toMatchObject({ status: "True", reason: "RunDurationElapsed" });
    expect(reasons(plan, "a")).toEqual(["RunDurationElapsed"]);
    expect(plan.events[0]?.note).toContain("from 5 to 2");
    // The confirmed release is a resolution: the next decision follows at once.
    expect(plan.requeueAfterMs).toBe(0);
    const again = decide(snap({ now: T0 + MIN, replicas: 2, requests: [{ ...a, status: next }] }));
    expect(again.requests).toEqual([]);
    expect(again.events).toEqual([]);
    expect(again.scale).toBeUndefined();
    expect(again.requeueAfterMs).toBeUndefined();
  });

  test("release Applying and the target changed outside: Applied, left alone, no scale", () => {
    const a = succeeded({
      runUntil: iso(T0 - MIN),
      release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 2 }),
    });
    const plan = decide(snap({ replicas: 7, requests: [a] }));
    expect(plan.scale).toBeUndefined();
    expect(statusOf(plan, "a").release?.phase).toBe("Applied");
    expect(plan.events[0]?.note).toContain("left alone");
    expect(plan.requeueAfterMs).toBe(0);
  });

  // NOTE: of all resolutions, a release confirmed Applied (seen done after its scale) is the only one
  // after which decide() still starts nothing else in the same decision: stepRelease() marks the group
  // busy before it knows the release is done. An Applied-at-once release at the floor and every
  // resolved attempt let the next change start in the same decision (recorded last), and
  // docs/lifecycle.md counts a finished release among them. These tests pin what decide() does today.
  describe("a confirmed release frees the group in the same decision", () => {
    const done = (): RequestView =>
      succeeded({
        runUntil: iso(T0 - MIN),
        release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 2 }),
      });

    test("the head of the queue starts in the decision that confirms, its record written last", async () => {
      const head = req("q", { created: T0 - MIN, status: acceptedAt("q", T0 - MIN) });
      const s = snap({ replicas: 2, requests: [done(), head] });
      const plan = decide(s);
      expect(statusOf(plan, "a").release?.phase).toBe("Applied");
      expect(plan.scale).toEqual({ request: "q", from: 2, replicas: 4 });
      expect(reasons(plan, "q")).toEqual(["ProvisioningStarted"]);
      expect(statusWrites(plan)).toEqual(["a", "q"]);
      expect(plan.requeueAfterMs).toBe(0);
      expect(checkStep(s, plan, await afterExecuting(s, plan))).toEqual([]);
      // A conflict on a's confirmation: q's change is neither recorded nor applied; decided again.
      const cut = await afterExecuting(s, plan, { statusWrites: 0 });
      expect(statusAfter(plan, head).provisioning).toBeDefined();
      expect(byName(cut, "q")?.status.provisioning).toBeUndefined();
      expect(cut.target).toEqual(s.target);
      const retry = decide({ ...cut, nowMs: T0 + SEC });
      expect(retry.scale).toEqual({ request: "q", from: 2, replicas: 4 });
      expect(statusWrites(retry)).toEqual(["a", "q"]);
    });

    test("another due release starts in the decision that confirms", async () => {
      const other = req("b", {
        resizeBy: 1,
        created: T0 - 5 * MIN,
        run: { seconds: "60" },
        status: finalStatus("b", "SUCCEEDED", { runUntil: iso(T0 - SEC) }),
      });
      const s = snap({ replicas: 2, requests: [done(), other] });
      const plan = decide(s);
      expect(statusOf(plan, "a").release?.phase).toBe("Applied");
      expect(plan.scale).toEqual({ request: "b", from: 2, replicas: 1 });
      expect(statusOf(plan, "b").release).toMatchObject({
        phase: "Applying",
        baseReplicas: 2,
        targetReplicas: 1,
      });
      expect(statusWrites(plan).at(-1)).toBe("b");
      expect(checkStep(s, plan, await afterExecuting(s, plan))).toEqual([]);
    });

    test("a release re-planned after a crash (not resolved) keeps blocking as before, with no requeue at 0", () => {
      const plan = decide(snap({ replicas: 5, requests: [done()] }));
      expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
      expect(plan.requeueAfterMs).not.toBe(0);
    });
  });

  // A release found at the floor is written Applied at once, with no scale: a resolution. The head of
  // the queue may start in the same decision, its record written after the release: if the release's
  // write conflicts, the start is neither recorded nor applied, so its increase can never be taken for
  // room the release could remove.
  describe("a release Applied at once (at the floor) and the start of the head of the queue share a decision", () => {
    const a = succeeded({ runUntil: iso(T0 - SEC) });
    const head = req("q", { created: T0 - MIN, status: acceptedAt("q", T0 - MIN) });
    const s = snap({ group: group({ minSize: 5 }), replicas: 3, requests: [a, head] });
    const plan = decide(s);

    test("a's release Applied, then q's attempt recorded from 3 to 5, written last", async () => {
      expect(statusOf(plan, "a").release).toMatchObject({
        phase: "Applied",
        baseReplicas: 3,
        targetReplicas: 3,
      });
      expect(reasons(plan, "a")).toEqual(["RunDurationElapsed"]);
      expect(plan.scale).toEqual({ request: "q", from: 3, replicas: 5 });
      expect(statusOf(plan, "q").provisioning).toMatchObject({
        attempt: 1,
        phase: "Applying",
        baseReplicas: 3,
        targetReplicas: 5,
      });
      expect(changeOf(plan, "q")?.finalizer).toBe("add");
      expect(reasons(plan, "q")).toEqual(["ProvisioningStarted"]);
      expect(statusWrites(plan)).toEqual(["a", "q"]);
      expect(plan.requeueAfterMs).toBe(0);
      expect(checkStep(s, plan, await afterExecuting(s, plan))).toEqual([]);
    });

    test("a conflict on the release's write: q's change is neither recorded nor applied; the next decision does both again", async () => {
      const cut = await afterExecuting(s, plan, { statusWrites: 0 });
      expect(byName(cut, "a")?.status).toEqual(a.status);
      expect(byName(cut, "q")?.status).toEqual(head.status);
      expect(replicasOf(cut)).toBe(3);
      const retry = decide({ ...cut, nowMs: T0 + SEC });
      expect(statusOf(retry, "a").release?.phase).toBe("Applied");
      expect(retry.scale).toEqual({ request: "q", from: 3, replicas: 5 });
      expect(statusWrites(retry)).toEqual(["a", "q"]);
      expect(checkStep(cut, retry, await afterExecuting(cut, retry))).toEqual([]);
    });
  });

  test("a release that comes due starts in the decision that resolves an attempt, and holds back the queue", async () => {
    // c (oldest) succeeded long ago and its run is over; a's attempt is all ready; q waits behind a.
    const c = req("c", {
      resizeBy: 1,
      created: T0 - 30 * MIN,
      run: { seconds: "60" },
      status: finalStatus("c", "SUCCEEDED", { runUntil: iso(T0 - SEC) }),
    });
    const a = req("a", {
      resizeBy: 3,
      hasFinalizer: true,
      status: provisioningStatus("a", { phase: "Applied", baseReplicas: 2, targetReplicas: 5 }),
    });
    const q = req("q", { created: T0 - MIN, status: acceptedAt("q", T0 - MIN) });
    const s = snap({ replicas: 5, ready: 5, requests: [c, a, q] });
    const plan = decide(s);
    expect(statusOf(plan, "a").state).toBe("SUCCEEDED");
    expect(statusOf(plan, "c").release).toMatchObject({
      phase: "Applying",
      baseReplicas: 5,
      targetReplicas: 4,
    });
    expect(plan.scale).toEqual({ request: "c", from: 5, replicas: 4 });
    // One scale per plan: q stays queued at the head.
    expect(statusAfter(plan, q).provisioning).toBeUndefined();
    expect(reasons(plan, "q")).toEqual([]);
    // The release's record is written last, after a's success.
    const writes = statusWrites(plan);
    expect(writes[0]).toBe("a");
    expect(writes.at(-1)).toBe("c");
    expect(plan.requeueAfterMs).toBe(0);
    expect(checkStep(s, plan, await afterExecuting(s, plan))).toEqual([]);
    // A conflict on a's success: nothing of the release lands, and the next decision does both again.
    const cut = await afterExecuting(s, plan, { statusWrites: 0 });
    expect(byName(cut, "a")?.status).toEqual(a.status);
    expect(byName(cut, "c")?.status).toEqual(c.status);
    expect(replicasOf(cut)).toBe(5);
    const retry = decide({ ...cut, nowMs: T0 + SEC });
    expect(statusOf(retry, "a").state).toBe("SUCCEEDED");
    expect(retry.scale).toEqual({ request: "c", from: 5, replicas: 4 });
    expect(checkStep(cut, retry, await afterExecuting(cut, retry))).toEqual([]);
  });

  test("no requestedRunDuration: never released", () => {
    const a = req("a", {
      resizeBy: 3,
      status: finalStatus("a", "SUCCEEDED", { succeededTime: iso(T0 - 60 * MIN) }),
    });
    const plan = decide(snap({ now: T0 + 365 * 24 * 60 * MIN, replicas: 5, requests: [a] }));
    expect(plan.requests).toEqual([]);
    expect(plan.scale).toBeUndefined();
    expect(plan.requeueAfterMs).toBeUndefined();
  });

  test.each([
    { label: "group missing", snapshot: { group: null } },
    { label: "target missing", snapshot: { target: notFoundTarget } },
  ])("elapsed but $label: nothing released yet", ({ snapshot }) => {
    const a = succeeded({ runUntil: iso(T0 - SEC) });
    const plan = decide(snap({ ...snapshot, requests: [a] }));
    expect(plan.scale).toBeUndefined();
    expect(statusAfter(plan, a).release).toBeUndefined();
  });

  describe("a release waits while another request's change is in flight", () => {
    const b = (phase: "Applying" | "Applied" | "RollingBack", base: number, target: number): RequestView =>
      req("b", {
        resizeBy: 2,
        created: T0 - MIN,
        hasFinalizer: true,
        status: provisioningStatus("b", { phase, baseReplicas: base, targetReplicas: target }),
      });
    test.each([
      { label: "attempt recorded, not applied", other: b("Applying", 5, 7), replicas: 5 },
      { label: "attempt applied, instances not ready", other: b("Applying", 5, 7), replicas: 7 },
      { label: "attempt Applied, waiting", other: b("Applied", 5, 7), replicas: 7 },
      { label: "attempt rolling back", other: b("RollingBack", 7, 5), replicas: 7 },
    ])("$label", ({ other, replicas }) => {
      const a = succeeded({ runUntil: iso(T0 - SEC) });
      const plan = decide(snap({ replicas, ready: 5, requests: [a, other] }));
      expect(plan.scale?.request ?? "b").toBe("b");
      expect(statusAfter(plan, a).release).toBeUndefined();
      expect(reasons(plan, "a")).toEqual([]);
    });

    test("another request's release Applying: only one release at a time", () => {
      const other = req("b", {
        resizeBy: 2,
        created: T0 - 20 * MIN,
        run: { seconds: "60" },
        status: finalStatus("b", "SUCCEEDED", {
          runUntil: iso(T0 - MIN),
          release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 3 }),
        }),
      });
      const a = succeeded({ runUntil: iso(T0 - SEC) });
      const plan = decide(snap({ replicas: 5, requests: [a, other] }));
      expect(plan.scale).toEqual({ request: "b", from: 5, replicas: 3 });
      expect(statusAfter(plan, a).release).toBeUndefined();
    });

    test("two releases due together: the older request goes first, the other waits", () => {
      const older = req("b", {
        resizeBy: 2,
        created: T0 - 20 * MIN,
        run: { seconds: "60" },
        status: finalStatus("b", "SUCCEEDED", { runUntil: iso(T0 - MIN) }),
      });
      const a = succeeded({ runUntil: iso(T0 - SEC) });
      const plan = decide(snap({ replicas: 5, requests: [a, older] }));
      expect(plan.scale).toEqual({ request: "b", from: 5, replicas: 3 });
      expect(statusAfter(plan, a).release).toBeUndefined();
    });

    test("a release blocks the head of the queue from starting in the same decision", () => {
      const head = req("q", { created: T0 - MIN, status: acceptedAt("q", T0 - MIN) });
      const a = succeeded({ runUntil: iso(T0 - SEC) });
      const plan = decide(snap({ replicas: 5, requests: [a, head] }));
      expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
      expect(statusAfter(plan, head).provisioning).toBeUndefined();
      expect(cond(statusAfter(plan, head), RC.Queued)).toMatchObject({
        status: "True",
        reason: "Queued",
        message: queuedMessage(),
      });
      expect(plan.groupStatus).toMatchObject({ queuedRequests: 1, activeRequests: 1 });
    });
  });

  test("a release record left on a request whose group is gone: no scale, release stays Applying", () => {
    const a = succeeded({
      runUntil: iso(T0 - MIN),
      release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 2 }),
    });
    const plan = decide(snap({ group: null, requests: [a] }));
    expect(plan.scale).toBeUndefined();
    expect(statusAfter(plan, a).release?.phase).toBe("Applying");
  });
});
