// decide(): a provisioning attempt from its record to its outcome (docs/design.md §4 "Provisioning is
// all-or-nothing", "Restart-safe and idempotent"), resolved by comparing the target with the record.
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { backoffMs, decide, type Plan } from "../../../src/controllers/resize/decide/index.js";
import { AttemptErrorCode } from "../../../src/controllers/errors.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
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
  group,
  iso,
  provisioningStatus,
  queuedMessage,
  reasons,
  replicasOf,
  req,
  snap,
  statusAfter,
  statusOf,
  statusWrites,
  type RequestOptions,
} from "./builders.js";
import { afterExecuting } from "./cluster.js";

/** The head "a" (resizeBy 3) in an attempt from 2 to 5, with the given phase and fields. */
function head(
  phase: "Applying" | "Applied" | "RollingBack",
  o: {
    base?: number;
    target?: number;
    attempt?: number;
    started?: number;
    deadline?: number;
    extra?: ResizeRequestStatus;
  } = {},
  opts: RequestOptions = {},
): RequestView {
  const attempt = o.attempt ?? 1;
  return req("a", {
    resizeBy: 3,
    hasFinalizer: true,
    ...opts,
    status: provisioningStatus(
      "a",
      {
        attempt,
        phase,
        baseReplicas: o.base ?? (phase === "RollingBack" ? 5 : 2),
        targetReplicas: o.target ?? (phase === "RollingBack" ? 2 : 5),
        startedTime: iso(o.started ?? T0 - MIN),
        deadline: iso(o.deadline ?? T0 + 9 * MIN),
        ...(phase !== "Applying" && { appliedTime: iso(T0 - 30 * SEC) }),
      },
      o.extra,
    ),
  });
}

describe("Applying: the change is recorded; was it applied?", () => {
  test("target == base (crash before /scale): the same scale is planned again, without a new record", () => {
    const a = head("Applying");
    const plan = decide(snap({ replicas: 2, ready: 2, requests: [a] }));
    expect(plan.scale).toEqual({ request: "a", from: 2, replicas: 5 });
    expect(changeOf(plan, "a")).toBeUndefined();
    expect(plan.events).toEqual([]);
    expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
  });

  test("target == base and the deadline passed: still applied (the attempt never really started)", () => {
    const a = head("Applying", { deadline: T0 - SEC });
    const plan = decide(snap({ replicas: 2, requests: [a] }));
    expect(plan.scale).toEqual({ request: "a", from: 2, replicas: 5 });
    expect(changeOf(plan, "a")).toBeUndefined();
  });

  test("target == targetReplicas, instances not ready: phase Applied, appliedTime and deadline from now", () => {
    const a = head("Applying");
    const plan = decide(snap({ replicas: 5, ready: 3, requests: [a] }));
    const status = statusOf(plan, "a");
    expect(status.provisioning).toEqual({
      ...a.status.provisioning,
      phase: "Applied",
      appliedTime: iso(T0),
      deadline: iso(T0 + 10 * MIN),
    });
    expect(status.state).toBe("ACCEPTED");
    expect(status.reason).toBe("WaitingForInstances");
    expect(cond(status, RC.Provisioning)).toMatchObject({ status: "True", reason: "WaitingForInstances" });
    expect(plan.scale).toBeUndefined();
    expect(plan.events).toEqual([]);
    expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
    expect(changeOf(plan, "a")?.finalizer).toBeUndefined();
  });

  test("Applied, still waiting: requeue never later than the deadline", () => {
    const a = head("Applied", { deadline: T0 + 300 });
    const plan = decide(snap({ replicas: 5, ready: 3, requests: [a] }));
    expect(plan.requeueAfterMs).toBe(300);
    expect(plan.scale).toBeUndefined();
  });

  test("Applied, still waiting with the same counts: nothing is written", () => {
    const first = decide(snap({ replicas: 5, ready: 3, requests: [head("Applying")] }));
    const a = { ...head("Applying"), status: statusOf(first, "a") };
    const plan = decide(snap({ now: T0 + SEC, replicas: 5, ready: 3, requests: [a] }));
    expect(plan.requests).toEqual([]);
    expect(plan.events).toEqual([]);
  });

  describe.each(["Applying", "Applied"] as const)("%s and all instances ready → SUCCEEDED", (phase) => {
    const cases = [
      { label: "no run duration", run: undefined, runMs: undefined },
      { label: "run 1h", run: { seconds: "3600" }, runMs: 3_600_000 },
      { label: "run 90s + 500ms", run: { seconds: "90", nanos: 500_000_000 }, runMs: 90_500 },
      { label: "run 0s + 1ns (rounded down)", run: { seconds: "0", nanos: 1 }, runMs: 0 },
      { label: "run nanos only", run: { nanos: 250_000_000 }, runMs: 250 },
    ];
    test.each(cases)("$label", ({ run, runMs }) => {
      const a = head(
        phase,
        { extra: { lastAttempt: { error: { errors: [{ code: "PROVISIONING_TIMEOUT" }] } } } },
        run === undefined ? {} : { run },
      );
      const plan = decide(snap({ replicas: 5, ready: 5, requests: [a] }));
      const status = statusOf(plan, "a");
      expect(status.state).toBe("SUCCEEDED");
      expect(status.reason).toBe("Provisioned");
      expect(status.succeededTime).toBe(iso(T0));
      expect(status.runUntil).toBe(runMs === undefined ? undefined : iso(T0 + runMs));
      expect(status.lastAttempt).toBeUndefined();
      expect(status.provisioning).toBeUndefined();
      expect(status.nextAttemptTime).toBeUndefined();
      expect(status.error).toBeUndefined();
      expect(cond(status, RC.Succeeded)).toMatchObject({ status: "True", reason: "Provisioned" });
      expect(cond(status, RC.Provisioning)).toMatchObject({ status: "False", reason: "Provisioned" });
      expect(cond(status, RC.Queued)).toMatchObject({ status: "False", reason: "Provisioned" });
      expect(plan.groupStatus).toMatchObject({ queuedRequests: 0, activeRequests: 0 });
      expect(changeOf(plan, "a")?.finalizer).toBe("remove");
      expect(reasons(plan, "a")).toEqual(["Succeeded"]);
      expect(plan.scale).toBeUndefined();
      // The success is a resolution: the next decision follows at once (it then waits for runUntil).
      expect(plan.requeueAfterMs).toBe(0);
    });
  });

  test.each([
    { label: "no run duration", run: undefined, requeue: undefined },
    { label: "run 1h", run: { seconds: "3600" }, requeue: 3_600_000 - SEC },
  ])("the decision after a success ($label) writes nothing and waits for runUntil", ({ run, requeue }) => {
    const a = head("Applied", {}, run === undefined ? {} : { run });
    const first = decide(snap({ replicas: 5, ready: 5, requests: [a] }));
    const done = { ...a, hasFinalizer: false, status: statusOf(first, "a") };
    const plan = decide(snap({ now: T0 + SEC, replicas: 5, ready: 5, requests: [done] }));
    expect(plan.requests).toEqual([]);
    expect(plan.events).toEqual([]);
    expect(plan.scale).toBeUndefined();
    expect(plan.requeueAfterMs).toBe(requeue);
  });

  test("more ready than desired also counts as all ready", () => {
    const plan = decide(snap({ replicas: 5, ready: 6, requests: [head("Applied")] }));
    expect(statusOf(plan, "a").state).toBe("SUCCEEDED");
  });

  test("a ready count the workload has not caught up with (instances still being removed) is not trusted", () => {
    const stale = snap({ replicas: 5, ready: 8, requests: [head("Applied")] });
    const target = { found: true as const, replicas: 5, readyReplicas: 8, settled: false };
    const plan = decide({ ...stale, target });
    expect(statusOf(plan, "a").state).toBe("ACCEPTED");
    expect(statusOf(plan, "a").reason).toBe("WaitingForInstances");
    const caughtUp = decide({ ...stale, target: { ...target, readyReplicas: 5, settled: true } });
    expect(statusOf(caughtUp, "a").state).toBe("SUCCEEDED");
  });

  describe("after success the next request in the queue starts in the same decision, from the new size", () => {
    const b = req("b", { created: T0 - 5 * MIN, status: acceptedAt("b", T0 - 5 * MIN) });
    const s = snap({ replicas: 5, ready: 5, requests: [head("Applied"), b] });
    const plan = decide(s);

    test("a SUCCEEDED and b's attempt recorded from 5 to 7 in one plan, b's record written last", async () => {
      expect(statusOf(plan, "a").state).toBe("SUCCEEDED");
      expect(changeOf(plan, "a")?.finalizer).toBe("remove");
      expect(plan.scale).toEqual({ request: "b", from: 5, replicas: 7 });
      expect(statusOf(plan, "b").provisioning).toMatchObject({
        attempt: 1,
        phase: "Applying",
        baseReplicas: 5,
        targetReplicas: 7,
      });
      expect(statusOf(plan, "b").reason).toBe("Provisioning");
      expect(cond(statusOf(plan, "b"), RC.Provisioning)?.status).toBe("True");
      expect(changeOf(plan, "b")?.finalizer).toBe("add");
      // The record of the new change comes after the resolution it relies on.
      expect(statusWrites(plan)).toEqual(["a", "b"]);
      expect(plan.requests.map((c) => c.name)).toEqual(["a", "b"]);
      expect(plan.events.map((e) => `${e.request}:${e.event.reason}`)).toEqual([
        "a:Succeeded",
        "b:ProvisioningStarted",
      ]);
      expect(plan.groupStatus).toMatchObject({
        queuedRequests: 0,
        activeRequests: 1,
        provisioningRequest: "b",
      });
      // The resolution still asks for the next decision at once.
      expect(plan.requeueAfterMs).toBe(0);
      expect(checkStep(s, plan, await afterExecuting(s, plan))).toEqual([]);
    });

    test("the next decision sees b's increase applied and starts nothing else", async () => {
      const s1 = { ...(await afterExecuting(s, plan)), nowMs: T0 + SEC };
      expect(s1.target).toMatchObject({ replicas: 7 });
      const next = decide(s1);
      expect(next.scale).toBeUndefined();
      expect(statusWrites(next)).toEqual(["b"]);
      expect(statusOf(next, "b").provisioning).toMatchObject({ attempt: 1, phase: "Applied" });
      expect(next.events).toEqual([]);
    });

    test("a conflict on a's success ends the pass: nothing of b's change lands, and the next decision does both again", async () => {
      const cut = await afterExecuting(s, plan, { statusWrites: 0 });
      expect(byName(cut, "a")?.status).toEqual(s.requests[0]?.status);
      expect(byName(cut, "a")?.hasFinalizer).toBe(true);
      expect(byName(cut, "b")?.status).toEqual(b.status);
      expect(replicasOf(cut)).toBe(5);
      const retry = decide({ ...cut, nowMs: T0 + SEC });
      expect(statusOf(retry, "a").state).toBe("SUCCEEDED");
      expect(retry.scale).toEqual({ request: "b", from: 5, replicas: 7 });
      expect(statusWrites(retry)).toEqual(["a", "b"]);
      // The finalizer added before the conflict is already there: not added twice.
      expect(changeOf(retry, "b")?.finalizer).toBeUndefined();
      expect(checkStep(cut, retry, await afterExecuting(cut, retry))).toEqual([]);
    });

    test("a conflict on b's record: a's success stays, b starts again in the next decision, from 5", async () => {
      expect(statusWrites(plan)[1]).toBe("b");
      const cut = await afterExecuting(s, plan, { statusWrites: 1 });
      expect(byName(cut, "a")?.status.state).toBe("SUCCEEDED");
      expect(byName(cut, "b")?.status.provisioning).toBeUndefined();
      expect(replicasOf(cut)).toBe(5);
      const retry = decide({ ...cut, nowMs: T0 + SEC });
      expect(retry.scale).toEqual({ request: "b", from: 5, replicas: 7 });
      expect(statusWrites(retry)).toEqual(["b"]);
      expect(reasons(retry, "b")).toEqual(["ProvisioningStarted"]);
      expect(checkStep(cut, retry, await afterExecuting(cut, retry))).toEqual([]);
    });
  });
});

describe("after the head of a queue of several succeeds, the requests behind are not rewritten", () => {
  // No position is stored, so the queue moving up changes nothing in the statuses of the requests still
  // waiting: the success writes the head and the new head starting (recorded last), nothing else.
  const behind = ["b", "c", "d", "e"];
  const views = behind.map((n, i) => req(n, { created: T0 - (5 - i) * MIN, status: {} }));
  // Settle the queue first while a's instances are not ready yet (statuses as decide writes them). Room
  // for everyone (maxSize 20): with maxSize 10, d would wait for capacity as the head, a new reason
  // that is written.
  const g = group({ maxSize: 20 });
  const fresh = snap({ group: g, replicas: 5, ready: 2, requests: [head("Applied"), ...views] });
  const admitted = decide(fresh);
  // Carried out by the real executor before the tests look at them.
  let settled: GroupSnapshot;
  let success: Plan;
  let s1: GroupSnapshot;
  beforeAll(async () => {
    settled = await afterExecuting(fresh, admitted);
    const s = { ...settled, target: { found: true as const, replicas: 5, readyReplicas: 5 } };
    success = decide(s);
    s1 = { ...(await afterExecuting(s, success)), nowMs: T0 + SEC };
  });

  test("the settled queue: every request behind a waits with the same Queued status", () => {
    expect(statusWrites(admitted)).toEqual(["a", ...behind]);
    for (const n of behind) {
      expect(cond(statusOf(admitted, n), RC.Queued)).toMatchObject({
        status: "True",
        reason: "Queued",
        message: queuedMessage(),
      });
    }
    expect(decide(settled).requests).toEqual([]);
    expect(admitted.groupStatus).toMatchObject({ queuedRequests: 4, activeRequests: 5 });
  });

  test("the decision with the success writes a and b starting (b last), and no other request", () => {
    expect(statusOf(success, "a").state).toBe("SUCCEEDED");
    expect(success.scale).toEqual({ request: "b", from: 5, replicas: 7 });
    expect(statusOf(success, "b").provisioning).toMatchObject({ attempt: 1, phase: "Applying" });
    expect(statusWrites(success)).toEqual(["a", "b"]);
    expect(success.requests.map((r) => r.name)).toEqual(["a", "b"]);
    for (const n of ["c", "d", "e"]) expect(changeOf(success, n)).toBeUndefined();
    expect(success.events.map((e) => `${e.request}:${e.event.reason}`)).toEqual([
      "a:Succeeded",
      "b:ProvisioningStarted",
    ]);
    expect(success.groupStatus).toMatchObject({
      queuedRequests: 3,
      activeRequests: 4,
      provisioningRequest: "b",
    });
  });

  test("the following decisions write b, then b and c as c starts, then c: never a request still waiting", async () => {
    // What each decision sees: b's new instances not ready, still not ready, all ready; then c's not ready.
    let state = s1;
    let ready = 5;
    const writes: string[][] = [];
    for (const allReady of [false, false, true, false]) {
      const t = replicasOf(state);
      if (allReady) ready = t;
      state = { ...state, target: { found: true, replicas: t, readyReplicas: ready } };
      const plan = decide(state);
      writes.push(statusWrites(plan));
      state = { ...(await afterExecuting(state, plan)), nowMs: state.nowMs + SEC };
    }
    // b seen applied (Applied), b still waiting (nothing), b ready (SUCCEEDED) and c starting in the
    // same decision (c last), c seen applied. d and e are never written.
    expect(writes).toEqual([["b"], [], ["b", "c"], ["c"]]);
    expect(replicasOf(state)).toBe(9);
  });
});

describe("deadline passed without all instances ready → RollingBack", () => {
  const cases = [
    {
      label: "unschedulable pods: ZONE_RESOURCE_POOL_EXHAUSTED",
      unschedulable: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
      code: AttemptErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED,
    },
    {
      label: "no scheduling problem seen: PROVISIONING_TIMEOUT",
      unschedulable: undefined,
      code: "PROVISIONING_TIMEOUT",
    },
  ];
  describe.each(cases)("$label", ({ unschedulable, code }) => {
    test.each([
      { phase: "Applied" as const, deadline: T0 - SEC, label: "a second ago" },
      { phase: "Applied" as const, deadline: T0, label: "exactly now" },
    ])("$phase, deadline $label", ({ phase, deadline }) => {
      const a = head(phase, { attempt: 2, deadline });
      const plan = decide(snap({ replicas: 5, ready: 3, unschedulable, requests: [a] }));
      const status = statusOf(plan, "a");
      expect(status.state).toBe("ACCEPTED");
      expect(status.reason).toBe("RollingBack");
      expect(status.provisioning).toMatchObject({
        attempt: 2,
        phase: "RollingBack",
        baseReplicas: 5,
        targetReplicas: 2,
        startedTime: iso(T0),
      });
      const error = status.lastAttempt?.error?.errors[0];
      expect(error?.code).toBe(code);
      expect(error?.message).toContain("only 3 of 5 instances were ready after 10m");
      if (unschedulable !== undefined) expect(error?.message).toContain(unschedulable);
      expect(error?.errorDetails?.[0]?.errorInfo).toMatchObject({
        reason: code,
        metadatas: { ready: "3", wanted: "5" },
      });
      expect(status.error).toBeUndefined();
      expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
      expect(reasons(plan, "a")).toEqual(["AttemptFailed"]);
      expect(changeOf(plan, "a")?.finalizer).toBeUndefined();
    });
  });

  test("the timeout in the message follows the group (90s)", () => {
    const plan = decide(
      snap({
        group: group({ provisioningTimeoutMs: 90 * SEC }),
        replicas: 5,
        ready: 3,
        requests: [head("Applied", { deadline: T0 - SEC })],
      }),
    );
    expect(statusOf(plan, "a").lastAttempt?.error?.errors[0]?.message).toContain("after 1m30s");
  });

  test("the rollback never goes below zero (a record smaller than the request's size)", () => {
    // Defensive: the rollback removes the request's size from the target, clamped at 0, even when the
    // record's increase (0 → 3) is smaller than resizeBy (5).
    const a = req("a", {
      resizeBy: 5,
      hasFinalizer: true,
      status: provisioningStatus("a", {
        phase: "Applied",
        baseReplicas: 0,
        targetReplicas: 3,
        deadline: iso(T0 - SEC),
      }),
    });
    const plan = decide(snap({ replicas: 3, ready: 0, requests: [a] }));
    expect(plan.scale).toEqual({ request: "a", from: 3, replicas: 0 });
    expect(statusOf(plan, "a").provisioning).toMatchObject({
      phase: "RollingBack",
      baseReplicas: 3,
      targetReplicas: 0,
    });
  });

  test("deadline passed but the target was lowered after the increase: abandoned, never rolled back", () => {
    // Rolling back 3 from a target someone lowered to 2 would remove instances that are not ours.
    const plan = decide(snap({ replicas: 2, ready: 0, requests: [head("Applied", { deadline: T0 - SEC })] }));
    expect(plan.scale).toBeUndefined();
    expect(statusOf(plan, "a").lastAttempt?.error?.errors[0]?.code).toBe(AttemptErrorCode.TARGET_MODIFIED);
    expect(reasons(plan, "a")).toEqual(["AttemptAbandoned"]);
  });
});

describe("Applied and the target's replicas changed outside the operator → abandoned", () => {
  describe.each([
    { label: "lowered back to base", t: 2 },
    { label: "lowered below base", t: 1 },
    { label: "lowered to 0", t: 0 },
    { label: "lowered between base and target", t: 4 },
    { label: "raised above the target", t: 6 },
  ])("$label (target at $t, all ready)", ({ t }) => {
    const a = head("Applied", { attempt: 2 });
    const plan = decide(snap({ replicas: t, ready: t, requests: [a] }));
    const status = statusOf(plan, "a");

    test("not a success: TARGET_MODIFIED, back to the queue at its head with backoff", () => {
      expect(status.state).toBe("ACCEPTED");
      expect(status.provisioning).toBeUndefined();
      expect(status.succeededTime).toBeUndefined();
      expect(status.reason).toBe("Backoff");
      expect(status.attempts).toBe(2);
      expect(status.nextAttemptTime).toBe(iso(T0 + backoffMs(2, CFG)));
      expect(status.lastAttempt?.error?.errors[0]?.code).toBe(AttemptErrorCode.TARGET_MODIFIED);
      expect(status.lastAttempt?.error?.errors[0]?.message).toContain(`found ${t}`);
      expect(status.error).toBeUndefined();
      // The message the head of the queue gets in backoff: it keeps its place at the head.
      expect(cond(status, RC.Queued)).toMatchObject({
        status: "True",
        reason: "Backoff",
        message: `The next attempt starts at ${iso(T0 + backoffMs(2, CFG))}.`,
      });
      expect(cond(status, RC.Provisioning)).toMatchObject({ status: "False" });
      expect(cond(status, RC.Succeeded)).toBeUndefined();
    });

    test("no scale (the target is left alone), AttemptAbandoned, finalizer removed, requeue at once", () => {
      expect(plan.scale).toBeUndefined();
      expect(reasons(plan, "a")).toEqual(["AttemptAbandoned"]);
      expect(changeOf(plan, "a")?.finalizer).toBe("remove");
      expect(plan.requeueAfterMs).toBe(0);
    });
  });

  test("not ready either: abandoned all the same, not left waiting", () => {
    const plan = decide(snap({ replicas: 4, ready: 2, requests: [head("Applied")] }));
    expect(statusOf(plan, "a").provisioning).toBeUndefined();
    expect(reasons(plan, "a")).toEqual(["AttemptAbandoned"]);
    expect(plan.scale).toBeUndefined();
  });

  test.each(["cancel", "delete"] as const)(
    "%s asked as well: CANCELLED without rollback, AttemptAbandoned then Cancelled",
    (how) => {
      const a = head("Applied", {}, { cancel: how === "cancel", deleting: how === "delete" });
      const plan = decide(snap({ replicas: 2, ready: 2, requests: [a] }));
      const status = statusOf(plan, "a");
      expect(status.state).toBe("CANCELLED");
      expect(status.provisioning).toBeUndefined();
      expect(status.lastAttempt).toBeUndefined();
      expect(cond(status, RC.Cancelled)).toMatchObject({ status: "True", reason: "Cancelled" });
      expect(plan.scale).toBeUndefined();
      expect(reasons(plan, "a")).toEqual(["AttemptAbandoned", "Cancelled"]);
      expect(changeOf(plan, "a")?.finalizer).toBe("remove");
      expect(plan.requeueAfterMs).toBe(0);
    },
  );

  test("the target back at targetReplicas is still the attempt: waiting, then SUCCEEDED", () => {
    const waiting = decide(snap({ replicas: 5, ready: 4, requests: [head("Applied")] }));
    expect(statusAfter(waiting, head("Applied")).provisioning?.phase).toBe("Applied");
    expect(reasons(waiting, "a")).toEqual([]);
    const done = decide(snap({ replicas: 5, ready: 5, requests: [head("Applied")] }));
    expect(statusOf(done, "a").state).toBe("SUCCEEDED");
  });

  // Once the increase was seen applied only targetReplicas is expected; the base is not.
  test("the TARGET_MODIFIED message of an Applied attempt does not call the found value expected", () => {
    const plan = decide(snap({ replicas: 2, ready: 2, requests: [head("Applied")] }));
    const message = statusOf(plan, "a").lastAttempt?.error?.errors[0]?.message ?? "";
    expect(message).toContain("found 2");
    expect(message).not.toMatch(/expected[^)]*\b2\b[^)]*, found 2/);
  });
});

describe("the provisioning deadline counts from when the increase is applied", () => {
  test("an increase applied late still gets the whole provisioningTimeout", () => {
    const a = head("Applying", { started: T0 - 20 * MIN, deadline: T0 - 10 * MIN });
    const plan = decide(snap({ replicas: 5, ready: 2, requests: [a] }));
    expect(plan.scale).toBeUndefined();
    const status = statusOf(plan, "a");
    expect(status.provisioning).toEqual({
      ...a.status.provisioning,
      phase: "Applied",
      appliedTime: iso(T0),
      deadline: iso(T0 + 10 * MIN),
    });
    expect(status.lastAttempt).toBeUndefined();
    expect(status.reason).toBe("WaitingForInstances");
    expect(reasons(plan, "a")).toEqual([]);
    expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
  });

  test("then waits until the new deadline, and rolls back once it passes", () => {
    const g = group({ provisioningTimeoutMs: 90 * SEC });
    const a = head("Applying", { started: T0 - 20 * MIN, deadline: T0 - 10 * MIN });
    const first = decide(snap({ group: g, replicas: 5, ready: 2, requests: [a] }));
    const applied = { ...a, status: statusOf(first, "a") };
    expect(applied.status.provisioning?.deadline).toBe(iso(T0 + 90 * SEC));
    const before = decide(
      snap({ group: g, now: T0 + 90 * SEC - 1, replicas: 5, ready: 2, requests: [applied] }),
    );
    expect(before.scale).toBeUndefined();
    expect(before.requests).toEqual([]);
    expect(before.requeueAfterMs).toBe(1);
    const after = decide(snap({ group: g, now: T0 + 90 * SEC, replicas: 5, ready: 2, requests: [applied] }));
    expect(after.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    expect(reasons(after, "a")).toEqual(["AttemptFailed"]);
    expect(statusOf(after, "a").lastAttempt?.error?.errors[0]?.message).toContain("after 1m30s");
  });

  test("a short timeout caps the first requeue", () => {
    const g = group({ provisioningTimeoutMs: 300 });
    const plan = decide(snap({ group: g, replicas: 5, ready: 2, requests: [head("Applying")] }));
    expect(statusOf(plan, "a").provisioning?.deadline).toBe(iso(T0 + 300));
    expect(plan.requeueAfterMs).toBe(300);
  });

  test("an increase applied late with all instances already ready goes straight to SUCCEEDED", () => {
    const a = head("Applying", { started: T0 - 20 * MIN, deadline: T0 - 10 * MIN });
    const plan = decide(snap({ replicas: 5, ready: 5, requests: [a] }));
    expect(statusOf(plan, "a").state).toBe("SUCCEEDED");
    expect(statusOf(plan, "a").provisioning).toBeUndefined();
    expect(reasons(plan, "a")).toEqual(["Succeeded"]);
    expect(plan.scale).toBeUndefined();
  });

  test("an Applied record keeps its deadline: it is not moved again", () => {
    const a = head("Applied", { deadline: T0 + 2 * MIN });
    const plan = decide(snap({ replicas: 5, ready: 3, requests: [a] }));
    expect(statusAfter(plan, a).provisioning).toEqual(a.status.provisioning);
  });
});

describe("Applying and the target changed outside (neither base nor target) → abandoned", () => {
  test.each([1, 3, 7])("target at %i: TARGET_MODIFIED, back to the queue with backoff, no scale", (t) => {
    const a = head("Applying", { attempt: 2 });
    const plan = decide(snap({ replicas: t, ready: t, requests: [a] }));
    const status = statusOf(plan, "a");
    expect(plan.scale).toBeUndefined();
    expect(status.state).toBe("ACCEPTED");
    expect(status.provisioning).toBeUndefined();
    expect(status.reason).toBe("Backoff");
    expect(status.nextAttemptTime).toBe(iso(T0 + backoffMs(2, CFG)));
    expect(status.lastAttempt?.error?.errors[0]?.code).toBe(AttemptErrorCode.TARGET_MODIFIED);
    expect(status.lastAttempt?.error?.errors[0]?.message).toContain(`expected 2 or 5, found ${t}`);
    expect(cond(status, RC.Queued)).toMatchObject({ status: "True", reason: "Backoff" });
    expect(cond(status, RC.Provisioning)).toMatchObject({ status: "False" });
    expect(changeOf(plan, "a")?.finalizer).toBe("remove");
    expect(reasons(plan, "a")).toEqual(["AttemptAbandoned"]);
    expect(cond(status, RC.Queued)?.message).toBe(
      `The next attempt starts at ${iso(T0 + backoffMs(2, CFG))}.`,
    );
    expect(plan.requeueAfterMs).toBe(0);
  });
});

describe("RollingBack", () => {
  test("target == base (crash before /scale): the rollback scale is planned again, nothing written", () => {
    const a = head("RollingBack");
    const plan = decide(snap({ replicas: 5, ready: 3, requests: [a] }));
    expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    expect(changeOf(plan, "a")).toBeUndefined();
    expect(plan.events).toEqual([]);
  });

  test.each([
    { attempt: 1, delay: 10 * SEC },
    { attempt: 2, delay: 20 * SEC },
    { attempt: 3, delay: 40 * SEC },
    { attempt: 30, delay: CFG.backoffMaxMs },
  ])(
    "target == targetReplicas after attempt $attempt: back to the queue, next attempt in $delay ms",
    ({ attempt, delay }) => {
      const lastAttempt = { error: { errors: [{ code: "PROVISIONING_TIMEOUT", message: "late" }] } };
      const a = head("RollingBack", { attempt, extra: { lastAttempt } });
      const plan = decide(snap({ replicas: 2, ready: 2, requests: [a] }));
      const status = statusOf(plan, "a");
      expect(plan.scale).toBeUndefined();
      expect(status.state).toBe("ACCEPTED");
      expect(status.reason).toBe("Backoff");
      expect(status.provisioning).toBeUndefined();
      expect(status.nextAttemptTime).toBe(iso(T0 + delay));
      expect(status.attempts).toBe(attempt);
      expect(status.lastAttempt).toEqual(lastAttempt);
      expect(cond(status, RC.Queued)).toMatchObject({ status: "True", reason: "Backoff" });
      expect(cond(status, RC.Provisioning)).toMatchObject({ status: "False", reason: "Backoff" });
      expect(changeOf(plan, "a")?.finalizer).toBe("remove");
      expect(reasons(plan, "a")).toEqual(["RolledBack"]);
      // Back in the queue it keeps its place at the head (the head's backoff message); the next decision
      // follows at once.
      expect(cond(status, RC.Queued)?.message).toBe(`The next attempt starts at ${iso(T0 + delay)}.`);
      expect(plan.groupStatus).toMatchObject({ queuedRequests: 1, activeRequests: 1 });
      expect(plan.groupStatus?.provisioningRequest).toBeUndefined();
      expect(plan.requeueAfterMs).toBe(0);
    },
  );

  test("the next decision keeps it queued at the head in backoff, without a new attempt", () => {
    const first = decide(snap({ replicas: 2, requests: [head("RollingBack")] }));
    const a = { ...head("RollingBack"), hasFinalizer: false, status: statusOf(first, "a") };
    const plan = decide(snap({ now: T0 + 3 * SEC, replicas: 2, requests: [a] }));
    expect(plan.scale).toBeUndefined();
    expect(statusAfter(plan, a).provisioning).toBeUndefined();
    expect(plan.requests).toEqual([]);
    expect(cond(statusAfter(plan, a), RC.Queued)).toMatchObject({ status: "True", reason: "Backoff" });
    expect(plan.requeueAfterMs).toBe(7 * SEC);
  });

  describe.each([
    { label: "rolled back", a: head("RollingBack"), replicas: 2, event: "RolledBack" },
    {
      label: "abandoned while Applying (TARGET_MODIFIED)",
      a: head("Applying"),
      replicas: 3,
      event: "AttemptAbandoned",
    },
    {
      label: "abandoned while Applied (TARGET_MODIFIED)",
      a: head("Applied"),
      replicas: 3,
      event: "AttemptAbandoned",
    },
  ])("the request behind a head that just went back to the queue ($label)", ({ a, replicas, event }) => {
    const b = req("b", { created: T0 - 5 * MIN, status: acceptedAt("b", T0 - 5 * MIN) });
    const s = snap({ replicas, requests: [a, b] });
    const plan = decide(s);

    test("does not jump ahead: a stays the head in backoff, b waits behind it, nothing scales", () => {
      const next = statusOf(plan, "a").nextAttemptTime;
      expect(next).toBeDefined();
      expect(statusOf(plan, "a").reason).toBe("Backoff");
      expect(cond(statusOf(plan, "a"), RC.Queued)).toMatchObject({
        status: "True",
        reason: "Backoff",
        message: `The next attempt starts at ${next ?? ""}.`,
      });
      expect(plan.scale).toBeUndefined();
      expect(statusAfter(plan, b).provisioning).toBeUndefined();
      expect(statusAfter(plan, b).reason).toBe("Queued");
      expect(cond(statusAfter(plan, b), RC.Queued)).toMatchObject({
        status: "True",
        reason: "Queued",
        message: queuedMessage(),
      });
      expect(plan.groupStatus).toMatchObject({ queuedRequests: 2, activeRequests: 2 });
      expect(changeOf(plan, "b")?.finalizer).toBeUndefined();
      expect(plan.events.map((e) => `${e.request}:${e.event.reason}`)).toEqual([`a:${event}`]);
      expect(plan.requeueAfterMs).toBe(0);
    });

    test("the next decisions keep it so until a's backoff is over; then a starts again, not b", async () => {
      const s1 = await afterExecuting(s, plan);
      const waiting = decide({ ...s1, nowMs: T0 + SEC });
      expect(waiting.requests).toEqual([]);
      expect(waiting.scale).toBeUndefined();
      expect(waiting.requeueAfterMs).toBe(backoffMs(1, CFG) - SEC);
      const due = decide({ ...s1, nowMs: T0 + backoffMs(1, CFG) });
      expect(due.scale).toEqual({ request: "a", from: replicas, replicas: replicas + 3 });
      expect(statusOf(due, "a").provisioning).toMatchObject({ attempt: 2, phase: "Applying" });
      expect(statusAfter(due, b).provisioning).toBeUndefined();
      // b stays behind a, and its status (written with the first plan) is not rewritten.
      expect(changeOf(due, "b")).toBeUndefined();
      expect(statusWrites(due)).toEqual(["a"]);
    });
  });

  test("RollingBack and the target changed outside: treated as rolled back, no further scale", () => {
    const plan = decide(snap({ replicas: 3, requests: [head("RollingBack")] }));
    expect(plan.scale).toBeUndefined();
    expect(statusOf(plan, "a").provisioning).toBeUndefined();
    expect(reasons(plan, "a")).toEqual(["RolledBack"]);
  });
});

describe("the target disappears during an attempt", () => {
  test.each(["Applying", "Applied", "RollingBack"] as const)(
    "%s: wait, keep the record, no scale",
    (phase) => {
      const a = head(phase);
      const plan = decide(
        snap({ target: { found: false, reason: "NotFound", message: "gone" }, requests: [a] }),
      );
      expect(plan.scale).toBeUndefined();
      const status = statusAfter(plan, a);
      expect(status.provisioning).toEqual(a.status.provisioning);
      expect(status.reason).toBe("TargetNotFound");
      expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
    },
  );
});
