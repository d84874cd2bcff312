// decide(): spec.cancel and deletion (with the finalizer) in every phase of a request (docs/design.md §4
// "Final states", "Deletion"): queued requests leave at once, applied increases are rolled back first,
// final requests refuse a late cancel once and never change state.
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import {
  MIN,
  SEC,
  T0,
  accepted,
  acceptedAt,
  activeConditions,
  byName,
  changeOf,
  checkStep,
  cond,
  finalStatus,
  iso,
  provisioningStatus,
  reasons,
  releaseOf,
  replicasOf,
  req,
  snap,
  statusAfter,
  statusOf,
  statusWrites,
  type SnapshotOptions,
} from "./builders.js";
import { afterExecuting } from "./cluster.js";

type How = "cancel" | "delete";
const HOWS: How[] = ["cancel", "delete"];

/** The request "a" (resizeBy 3) with its status, cancelled by spec.cancel or deleted (finalizer held). */
function victim(
  how: How,
  status: ResizeRequestStatus,
  o: { created?: number; hasFinalizer?: boolean } = {},
): RequestView {
  return req("a", {
    resizeBy: 3,
    created: o.created ?? T0 - 10 * MIN,
    cancel: how === "cancel",
    deleting: how === "delete",
    hasFinalizer: how === "delete" ? true : (o.hasFinalizer ?? false),
    status,
  });
}

const cancelMessage = (how: How): string =>
  how === "cancel" ? "spec.cancel was set." : "The request was deleted while active.";

describe.each(HOWS)("%s of a request that has no instances yet → CANCELLED at once, no scale", (how) => {
  const cases: {
    label: string;
    status: ResizeRequestStatus;
    snapshot?: SnapshotOptions;
    created?: number;
  }[] = [
    { label: "new (no status)", status: {} },
    {
      label: "CREATING, waiting for its group",
      status: { state: "CREATING", reason: "GroupNotFound" },
      snapshot: { group: null },
      created: T0 - 5 * SEC,
    },
    { label: "queued", status: accepted("a") },
    {
      label: "head waiting for capacity",
      status: accepted("a", {
        reason: "WaitingForCapacity",
        conditions: activeConditions("queued", "WaitingForCapacity"),
      }),
      snapshot: { replicas: 9 },
    },
    {
      label: "head in backoff",
      status: accepted("a", {
        reason: "Backoff",
        conditions: activeConditions("queued", "Backoff"),
        attempts: 1,
        nextAttemptTime: iso(T0 + MIN),
        lastAttempt: { error: { errors: [{ code: "PROVISIONING_TIMEOUT" }] } },
      }),
    },
  ];
  test.each(cases)("$label", ({ status, snapshot, created }) => {
    const a = victim(how, status, created === undefined ? {} : { created });
    const plan = decide(snap({ replicas: 2, ...snapshot, requests: [a] }));
    const next = statusOf(plan, "a");
    expect(next.state).toBe("CANCELLED");
    expect(next.reason).toBe("Cancelled");
    expect(next.nextAttemptTime).toBeUndefined();
    expect(next.lastAttempt).toBeUndefined();
    expect(next.provisioning).toBeUndefined();
    expect(cond(next, RC.Cancelled)).toMatchObject({ status: "True", reason: "Cancelled" });
    expect(cond(next, RC.Cancelled)?.message).toContain(cancelMessage(how));
    if (cond(status, RC.Queued)) expect(cond(next, RC.Queued)).toMatchObject({ status: "False" });
    expect(reasons(plan, "a")).toEqual(["Cancelled"]);
    expect(plan.scale).toBeUndefined();
    expect(changeOf(plan, "a")?.finalizer).toBe(how === "delete" ? "remove" : undefined);
    // Gone from the queue (no group status at all while the group is missing).
    if (snapshot?.group === null) expect(plan.groupStatus).toBeUndefined();
    else expect(plan.groupStatus).toMatchObject({ queuedRequests: 0, activeRequests: 0 });
  });

  // Nothing was recorded for a queued head, so there is nothing to resolve: the successor may start.
  test("the cancelled head's successor starts in the same decision", () => {
    const a = victim(how, accepted("a"));
    const b = req("b", { created: T0 - 5 * MIN, status: accepted("b") });
    const plan = decide(snap({ replicas: 2, requests: [a, b] }));
    expect(statusOf(plan, "a").state).toBe("CANCELLED");
    expect(plan.scale).toEqual({ request: "b", from: 2, replicas: 4 });
  });
});

describe.each(HOWS)("%s during an attempt", (how) => {
  const applying = (
    extra: Partial<NonNullable<ResizeRequestStatus["provisioning"]>> = {},
  ): ResizeRequestStatus =>
    provisioningStatus("a", { phase: "Applying", baseReplicas: 2, targetReplicas: 5, ...extra });

  test("Applying, not applied yet (target == base): CANCELLED without any scale", () => {
    const a = victim(how, applying(), { hasFinalizer: true });
    const plan = decide(snap({ replicas: 2, requests: [a] }));
    const next = statusOf(plan, "a");
    expect(next.state).toBe("CANCELLED");
    expect(next.provisioning).toBeUndefined();
    expect(cond(next, RC.Provisioning)).toMatchObject({ status: "False", reason: "Cancelled" });
    expect(plan.scale).toBeUndefined();
    expect(changeOf(plan, "a")?.finalizer).toBe("remove");
    expect(reasons(plan, "a")).toEqual(["Cancelled"]);
    expect(plan.events[0]?.note).toContain("No instance had been added yet");
    expect(plan.requeueAfterMs).toBe(0);
  });

  test("Applying and the target changed outside: abandoned and CANCELLED, no scale", () => {
    const a = victim(how, applying(), { hasFinalizer: true });
    const plan = decide(snap({ replicas: 7, requests: [a] }));
    const next = statusOf(plan, "a");
    expect(next.state).toBe("CANCELLED");
    expect(next.lastAttempt).toBeUndefined();
    expect(plan.scale).toBeUndefined();
    expect(reasons(plan, "a")).toEqual(["AttemptAbandoned", "Cancelled"]);
    expect(changeOf(plan, "a")?.finalizer).toBe("remove");
    expect(plan.requeueAfterMs).toBe(0);
  });

  test.each([
    ["Applying", applying()],
    ["Applied", applying({ phase: "Applied", appliedTime: iso(T0 - SEC) })],
    ["RollingBack", provisioningStatus("a", { phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 })],
  ])(
    "%s and the target gone (its namespace being deleted): CANCELLED, finalizer released",
    (_phase, status) => {
      const a = victim(how, status, { hasFinalizer: true });
      const plan = decide(
        snap({ target: { found: false, reason: "NotFound", message: "gone" }, requests: [a] }),
      );
      const next = statusOf(plan, "a");
      expect(next.state).toBe("CANCELLED");
      expect(next.provisioning).toBeUndefined();
      expect(plan.scale).toBeUndefined();
      expect(reasons(plan, "a")).toEqual(["Cancelled"]);
      expect(cond(next, RC.Cancelled)?.message).toBe(
        `${cancelMessage(how)} Its target no longer exists; there was nothing to roll back.`,
      );
      expect(changeOf(plan, "a")?.finalizer).toBe("remove");
      expect(plan.requeueAfterMs).toBe(0);
    },
  );

  test("Applied and the target changed outside: abandoned and CANCELLED, no rollback", () => {
    const a = victim(how, applying({ phase: "Applied", appliedTime: iso(T0 - SEC) }), { hasFinalizer: true });
    const plan = decide(snap({ replicas: 7, ready: 7, requests: [a] }));
    const next = statusOf(plan, "a");
    expect(next.state).toBe("CANCELLED");
    expect(next.provisioning).toBeUndefined();
    expect(next.lastAttempt).toBeUndefined();
    expect(plan.scale).toBeUndefined();
    expect(reasons(plan, "a")).toEqual(["AttemptAbandoned", "Cancelled"]);
    expect(changeOf(plan, "a")?.finalizer).toBe("remove");
    expect(plan.requeueAfterMs).toBe(0);
  });

  describe.each([
    { label: "cancelled before the increase was applied", status: applying(), replicas: 2 },
    {
      label: "cancelled after its rollback",
      status: provisioningStatus("a", { phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 }),
      replicas: 2,
    },
    { label: "abandoned and cancelled", status: applying(), replicas: 3 },
  ])("the request behind an attempt $label", ({ status, replicas }) => {
    const a = victim(how, status, { hasFinalizer: true });
    const b = req("b", { created: T0 - 5 * MIN, status: acceptedAt("b", T0 - 5 * MIN) });
    const s = snap({ replicas, requests: [a, b] });
    const plan = decide(s);

    test("starts in the decision that cancels a, from the replicas left by a, recorded after a's cancel", async () => {
      expect(statusOf(plan, "a").state).toBe("CANCELLED");
      expect(changeOf(plan, "a")?.finalizer).toBe("remove");
      expect(plan.scale).toEqual({ request: "b", from: replicas, replicas: replicas + 2 });
      expect(statusOf(plan, "b").provisioning).toMatchObject({
        attempt: 1,
        phase: "Applying",
        baseReplicas: replicas,
        targetReplicas: replicas + 2,
      });
      expect(cond(statusOf(plan, "b"), RC.Provisioning)?.status).toBe("True");
      expect(changeOf(plan, "b")?.finalizer).toBe("add");
      // b's record is the last write: a conflict on a's cancel ends the pass before it.
      expect(statusWrites(plan)).toEqual(["a", "b"]);
      expect(plan.groupStatus).toMatchObject({
        queuedRequests: 0,
        activeRequests: 1,
        provisioningRequest: "b",
      });
      expect(reasons(plan, "b")).toEqual(["ProvisioningStarted"]);
      expect(plan.requeueAfterMs).toBe(0);
      expect(checkStep(s, plan, await afterExecuting(s, plan))).toEqual([]);
    });

    test("a conflict on a's cancel: b's change is neither recorded nor applied; the next decision does both again", async () => {
      const cut = await afterExecuting(s, plan, { statusWrites: 0 });
      expect(byName(cut, "a")?.status).toEqual(a.status);
      expect(byName(cut, "a")?.hasFinalizer).toBe(true);
      expect(byName(cut, "b")?.status).toEqual(b.status);
      expect(replicasOf(cut)).toBe(replicas);
      const retry = decide({ ...cut, nowMs: T0 + SEC });
      expect(statusOf(retry, "a").state).toBe("CANCELLED");
      expect(retry.scale).toEqual({ request: "b", from: replicas, replicas: replicas + 2 });
      expect(statusWrites(retry)).toEqual(["a", "b"]);
      expect(checkStep(cut, retry, await afterExecuting(cut, retry))).toEqual([]);
    });
  });

  describe.each([
    { label: "Applying, applied (target == targetReplicas)", status: applying(), ready: 3 },
    {
      label: "Applied, waiting for instances",
      status: applying({ phase: "Applied", appliedTime: iso(T0 - SEC) }),
      ready: 3,
    },
    {
      label: "Applied, all instances ready",
      status: applying({ phase: "Applied", appliedTime: iso(T0 - SEC) }),
      ready: 5,
    },
  ])("$label", ({ status, ready }) => {
    const a = victim(how, status, { hasFinalizer: true });
    const s0 = snap({ replicas: 5, ready, requests: [a] });
    const first = decide(s0);

    test("first decision: RollingBack recorded, the rollback scale planned, still ACCEPTED", () => {
      const next = statusOf(first, "a");
      expect(next.state).toBe("ACCEPTED");
      expect(next.reason).toBe("RollingBack");
      expect(next.provisioning).toMatchObject({ phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 });
      expect(first.scale).toEqual({ request: "a", from: 5, replicas: 2 });
      expect(changeOf(first, "a")?.finalizer).toBeUndefined();
      expect(first.events).toEqual([]);
    });

    test("a crash before the rollback is applied: the next decision re-plans it, nothing else", async () => {
      const again = decide({ ...(await afterExecuting(s0, first, { dropScale: true })), nowMs: T0 + SEC });
      expect(again.scale).toEqual({ request: "a", from: 5, replicas: 2 });
      expect(again.requests).toEqual([]);
    });

    test("next decision, rollback applied: CANCELLED, RolledBack + Cancelled, finalizer removed", async () => {
      const s1 = await afterExecuting(s0, first);
      const second = decide({ ...s1, nowMs: T0 + SEC });
      const next = statusOf(second, "a");
      expect(next.state).toBe("CANCELLED");
      expect(next.provisioning).toBeUndefined();
      expect(next.nextAttemptTime).toBeUndefined();
      expect(cond(next, RC.Cancelled)?.message).toContain("rolled back");
      expect(second.scale).toBeUndefined();
      expect(reasons(second, "a")).toEqual(["RolledBack", "Cancelled"]);
      expect(changeOf(second, "a")?.finalizer).toBe("remove");
      expect(second.requeueAfterMs).toBe(0);
    });
  });

  test("RollingBack after a timeout, then cancelled: the rollback finishes as CANCELLED", () => {
    const a = victim(
      how,
      provisioningStatus("a", { phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 }),
      { hasFinalizer: true },
    );
    const pending = decide(snap({ replicas: 5, requests: [a] }));
    expect(pending.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    expect(pending.requests).toEqual([]);
    const done = decide(snap({ replicas: 2, requests: [a] }));
    expect(statusOf(done, "a").state).toBe("CANCELLED");
    expect(done.scale).toBeUndefined();
    expect(changeOf(done, "a")?.finalizer).toBe("remove");
  });
});

describe("a request in a final state refuses a late cancel", () => {
  const finals: { label: string; status: ResizeRequestStatus }[] = [
    { label: "SUCCEEDED", status: finalStatus("a", "SUCCEEDED", { succeededTime: iso(T0 - MIN) }) },
    {
      label: "SUCCEEDED, released",
      status: finalStatus("a", "SUCCEEDED", {
        runUntil: iso(T0 - MIN),
        release: releaseOf({ phase: "Applied", baseReplicas: 5, targetReplicas: 2 }),
      }),
    },
    {
      label: "FAILED",
      status: finalStatus("a", "FAILED", {
        error: { errors: [{ code: "QUOTA_EXCEEDED", errorDetails: [{ quotaInfo: { limit: 1 } }] }] },
      }),
    },
  ];
  describe.each(finals)("$label + spec.cancel", ({ label, status }) => {
    const a = req("a", { resizeBy: 3, cancel: true, status });
    const plan = decide(snap({ replicas: 5, requests: [a] }));
    const next = statusOf(plan, "a");

    test("state unchanged, Cancelled=False CancelRefused, one CancelRefused event", () => {
      expect(next.state).toBe(status.state);
      expect(next.error).toEqual(status.error);
      expect(cond(next, RC.Cancelled)).toMatchObject({
        status: "False",
        reason: "CancelRefused",
        lastTransitionTime: iso(T0),
      });
      expect(cond(next, RC.Cancelled)?.message).toContain(label.split(",")[0] ?? "");
      expect(reasons(plan, "a")).toEqual(["CancelRefused"]);
      expect(plan.events[0]?.event.type).toBe("Warning");
      expect(plan.scale).toBeUndefined();
      expect(changeOf(plan, "a")?.finalizer).toBeUndefined();
    });

    test("a second decision with the refusal recorded emits nothing and writes nothing", () => {
      const again = decide(snap({ now: T0 + MIN, replicas: 5, requests: [{ ...a, status: next }] }));
      expect(again.events).toEqual([]);
      expect(again.requests).toEqual([]);
      expect(again.scale).toBeUndefined();
    });
  });

  test("CANCELLED + spec.cancel: nothing to refuse, nothing written", () => {
    const a = req("a", { cancel: true, status: finalStatus("a", "CANCELLED") });
    const plan = decide(snap({ requests: [a] }));
    expect(plan.requests).toEqual([]);
    expect(plan.events).toEqual([]);
  });
});

describe("deleting a finished request", () => {
  const finals: { label: string; status: ResizeRequestStatus }[] = [
    { label: "SUCCEEDED, run not over", status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 + MIN) }) },
    {
      label: "SUCCEEDED, run over, not released",
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - MIN) }),
    },
    {
      label: "SUCCEEDED, released",
      status: finalStatus("a", "SUCCEEDED", {
        runUntil: iso(T0 - MIN),
        release: releaseOf({ phase: "Applied", baseReplicas: 5, targetReplicas: 2 }),
      }),
    },
    {
      label: "FAILED",
      status: finalStatus("a", "FAILED", { error: { errors: [{ code: "RESOURCE_NOT_FOUND" }] } }),
    },
    { label: "CANCELLED", status: finalStatus("a", "CANCELLED") },
  ];
  test.each(finals)("$label: finalizer removed, no scale, state unchanged", ({ status }) => {
    const a = req("a", { resizeBy: 3, deleting: true, hasFinalizer: true, status });
    const plan = decide(snap({ replicas: 5, requests: [a] }));
    expect(changeOf(plan, "a")?.finalizer).toBe("remove");
    expect(plan.scale).toBeUndefined();
    expect(statusAfter(plan, a).state).toBe(status.state);
    expect(statusAfter(plan, a).error).toEqual(status.error);
    expect(reasons(plan, "a")).toEqual([]);
  });

  test("a finished request deleted without a finalizer: nothing to do", () => {
    const a = req("a", {
      deleting: true,
      status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - MIN) }),
    });
    const plan = decide(snap({ replicas: 5, requests: [a] }));
    expect(plan.requests).toEqual([]);
    expect(plan.scale).toBeUndefined();
  });
});
