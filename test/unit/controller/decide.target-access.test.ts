// decide() on a target the operator refuses (controller/target-access.ts): forbidden to it, a cluster-
// scoped kind not listed, or a kind whose resource admission did not check. The group says why (Ready
// condition and one Warning Event), requests wait for what an administrator can lift and fail for what
// nobody can, and an attempt in flight keeps its record.
import {
  CFG,
  MIN,
  SEC,
  T0,
  accepted,
  cond,
  found,
  notFoundTarget,
  provisioningStatus,
  reasons,
  req,
  snap,
  statusOf,
} from "./builders.js";
import {
  InstanceGroupManagerCondition as GC,
  ResizeRequestCondition as RC,
} from "../../../src/api/conditions.js";
import { ErrorCode } from "../../../src/api/errors.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import type { TargetUnavailable, TargetView } from "../../../src/targets/view.js";

const forbidden: TargetUnavailable = {
  found: false,
  reason: "TargetForbidden",
  message: 'The operator may not get widgets.example.com "workers" in namespace team-a (…).',
};
const notListed: TargetUnavailable = {
  found: false,
  reason: "ClusterScopedTargetNotAllowed",
  message: "Gadget.example.com is cluster-scoped but not listed as a cluster-scoped target kind (…).",
};
const mismatch: TargetUnavailable = {
  found: false,
  reason: "TargetResourceMismatch",
  message: "The API server serves kind Person as resource people.example.com, but (…).",
};
const RECHECK = 5 * CFG.pollIntervalMs;

describe.each([forbidden, notListed])("a target refused with $reason", (target) => {
  test.each([
    ["within the admission grace", T0 - 10 * SEC],
    ["long past the admission grace", T0 - 60 * MIN],
  ])("a new request %s waits in CREATING, told once, and is looked at again", (_label, created) => {
    const plan = decide(snap({ target, requests: [req("a", { created })] }));
    const status = statusOf(plan, "a");
    expect(status.state).toBe("CREATING");
    expect(status.reason).toBe(target.reason);
    expect(status.error).toBeUndefined();
    expect(cond(status, RC.Accepted)).toMatchObject({ status: "Unknown", reason: target.reason });
    expect(reasons(plan, "a")).toEqual(["WaitingForGroup"]);
    expect(plan.events[0]?.note).toBe(target.message);
    expect(plan.requeueAfterMs).toBe(RECHECK);

    const again = decide(snap({ target, now: T0 + SEC, requests: [req("a", { created, status })] }));
    expect(again.events).toEqual([]);
    expect(again.requests).toEqual([]);
  });

  test("a queued request keeps its place, Queued=True with the refusal", () => {
    const plan = decide(snap({ target, requests: [req("q", { status: accepted("q") })] }));
    const status = statusOf(plan, "q");
    expect(status.state).toBe("ACCEPTED");
    expect(cond(status, RC.Queued)).toMatchObject({ status: "True", reason: target.reason });
    expect(plan.events).toEqual([]);
    expect(plan.requeueAfterMs).toBe(RECHECK);
  });

  test("its queue deadline still applies", () => {
    const r = req("d", { created: T0 - 2 * MIN });
    const plan = decide(snap({ target, requests: [{ ...r, spec: { ...r.spec, maxQueueDuration: "1m" } }] }));
    expect(statusOf(plan, "d").state).toBe("FAILED");
    expect(statusOf(plan, "d").error?.errors[0]?.code).toBe(ErrorCode.DEADLINE_EXCEEDED);
  });

  test.each([
    ["in flight", false],
    ["cancelled", true],
  ])("an attempt %s keeps its record and changes nothing on the target", (_label, cancel) => {
    const status = provisioningStatus("p", { phase: "Applied", baseReplicas: 2, targetReplicas: 4 });
    const plan = decide(snap({ target, requests: [req("p", { cancel, hasFinalizer: true, status })] }));
    const next = statusOf(plan, "p");
    expect(next.state).toBe("ACCEPTED");
    expect(next.reason).toBe(target.reason);
    expect(next.provisioning).toEqual(status.provisioning);
    expect(plan.scale).toBeUndefined();
    expect(plan.events).toEqual([]);
    expect(plan.requeueAfterMs).toBe(RECHECK);
  });
});

test("a target that is gone lets a cancelled attempt end (nothing to roll back), unlike a refused one", () => {
  const status = provisioningStatus("p", { phase: "Applied", baseReplicas: 2, targetReplicas: 4 });
  const plan = decide(
    snap({ target: notFoundTarget, requests: [req("p", { cancel: true, hasFinalizer: true, status })] }),
  );
  expect(statusOf(plan, "p").state).toBe("CANCELLED");
});

describe("a target whose resource admission did not check (TargetResourceMismatch)", () => {
  test.each([
    ["a new request", {}],
    ["a queued request", accepted("a")],
  ])("%s fails with UNSUPPORTED_OPERATION and the reason", (_label, initial) => {
    const plan = decide(snap({ target: mismatch, requests: [req("a", { status: initial })] }));
    const status = statusOf(plan, "a");
    expect(status.state).toBe("FAILED");
    expect(status.reason).toBe("TargetResourceMismatch");
    expect(status.error?.errors[0]).toMatchObject({
      code: ErrorCode.UNSUPPORTED_OPERATION,
      message: mismatch.message,
      errorDetails: [{ errorInfo: { reason: "TARGET_RESOURCE_MISMATCH" } }],
    });
    expect(reasons(plan, "a")).toEqual(["AdmissionFailed"]);
  });
});

describe("the group: Ready=False with the refusal, and one Warning Event when it appears", () => {
  const refusals: readonly TargetUnavailable[] = [forbidden, notListed, mismatch];

  test.each(refusals)("$reason: condition and Event", (target) => {
    const plan = decide(snap({ target }));
    expect(cond(plan.groupStatus ?? {}, GC.Ready)).toMatchObject({
      status: "False",
      reason: target.reason,
      message: target.message,
    });
    expect(plan.groupStatus?.targetSize).toBeUndefined();
    expect(plan.groupEvents.map((e) => [e.event.type, e.event.reason, e.note])).toEqual([
      ["Warning", target.reason, target.message],
    ]);
  });

  test("the same refusal again: no write, no Event", () => {
    const first = decide(snap({ target: forbidden }));
    const again = decide({ ...snap({ target: forbidden, now: T0 + MIN }), groupStatus: first.groupStatus });
    expect(again.groupStatus).toBeUndefined();
    expect(again.groupEvents).toEqual([]);
  });

  test("another refusal (a different message) is told again", () => {
    const first = decide(snap({ target: forbidden }));
    const update: TargetView = { ...forbidden, message: "The operator may not update widgets/scale (…)." };
    const next = decide({ ...snap({ target: update }), groupStatus: first.groupStatus });
    expect(next.groupEvents.map((e) => e.note)).toEqual([update.message]);
  });

  test("lifted: Ready=True, and no Event; a missing target is no refusal either", () => {
    const first = decide(snap({ target: forbidden }));
    const lifted = decide({ ...snap({ target: found(2) }), groupStatus: first.groupStatus });
    expect(cond(lifted.groupStatus ?? {}, GC.Ready)).toMatchObject({ status: "True" });
    expect(lifted.groupEvents).toEqual([]);
    expect(decide(snap({ target: notFoundTarget })).groupEvents).toEqual([]);
  });
});
