// decide(): every request state × every kind of observation, checked against the invariants of the
// contract rather than exact outputs (the exact outputs are pinned by the other decide.*.test.ts files).
// Each case also carries a younger queued request "z" behind "a", so FIFO and "one change at a time"
// are exercised in every combination.
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import { inPlay } from "../../../src/cache/in-play.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import {
  MIN,
  SEC,
  T0,
  accepted,
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
  releaseOf,
  req,
  resolvedIn,
  snap,
  startedIn,
  statusAfter,
  type SnapshotOptions,
} from "./builders.js";
import { afterExecuting } from "./cluster.js";

const K = 3; // "a" asks for 3 instances; base 2, raised 5.
const quota = { errors: [{ code: "QUOTA_EXCEEDED", errorDetails: [{ quotaInfo: { limit: 1 } }] }] };

const states: { label: string; status: ResizeRequestStatus; created?: number }[] = [
  { label: "new", status: {} },
  { label: "new, just created", status: {}, created: T0 - SEC },
  { label: "CREATING", status: { state: "CREATING", reason: "GroupNotFound" }, created: T0 - 5 * SEC },
  { label: "queued head", status: accepted("a") },
  {
    label: "queued head in backoff",
    status: accepted("a", { attempts: 1, nextAttemptTime: iso(T0 + MIN) }),
  },
  {
    label: "queued head, backoff over",
    status: accepted("a", { attempts: 1, nextAttemptTime: iso(T0 - SEC) }),
  },
  {
    label: "Applying 2→5",
    status: provisioningStatus("a", { phase: "Applying", baseReplicas: 2, targetReplicas: 5 }),
  },
  {
    label: "Applied 2→5",
    status: provisioningStatus("a", {
      phase: "Applied",
      baseReplicas: 2,
      targetReplicas: 5,
      appliedTime: iso(T0 - 30 * SEC),
    }),
  },
  {
    label: "RollingBack 5→2",
    status: provisioningStatus(
      "a",
      { phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 },
      { lastAttempt: { error: { errors: [{ code: "PROVISIONING_TIMEOUT" }] } } },
    ),
  },
  { label: "SUCCEEDED", status: finalStatus("a", "SUCCEEDED", { succeededTime: iso(T0 - MIN) }) },
  { label: "SUCCEEDED, run ahead", status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 + MIN) }) },
  { label: "SUCCEEDED, run over", status: finalStatus("a", "SUCCEEDED", { runUntil: iso(T0 - MIN) }) },
  {
    label: "SUCCEEDED, release Applying 5→2",
    status: finalStatus("a", "SUCCEEDED", {
      runUntil: iso(T0 - MIN),
      release: releaseOf({ phase: "Applying", baseReplicas: 5, targetReplicas: 2 }),
    }),
  },
  {
    label: "SUCCEEDED, released",
    status: finalStatus("a", "SUCCEEDED", {
      runUntil: iso(T0 - MIN),
      release: releaseOf({
        phase: "Applied",
        baseReplicas: 5,
        targetReplicas: 2,
        appliedTime: iso(T0 - SEC),
      }),
    }),
  },
  { label: "FAILED", status: finalStatus("a", "FAILED", { error: quota }) },
  { label: "CANCELLED", status: finalStatus("a", "CANCELLED") },
];

const observations: { label: string; snapshot: SnapshotOptions }[] = [
  { label: "target at base, all ready", snapshot: { replicas: 2, ready: 2 } },
  { label: "target raised, not ready", snapshot: { replicas: 5, ready: 3 } },
  { label: "target raised, all ready", snapshot: { replicas: 5, ready: 5 } },
  {
    label: "target raised, unschedulable, deadline passed",
    snapshot: { replicas: 5, ready: 3, unschedulable: "0/3 nodes", now: T0 + 10 * MIN },
  },
  { label: "target changed outside", snapshot: { replicas: 7, ready: 7 } },
  { label: "target at maxSize", snapshot: { replicas: 10, ready: 10 } },
  { label: "target at 0", snapshot: { replicas: 0, ready: 0 } },
  { label: "minSize above the target", snapshot: { group: group({ minSize: 4 }), replicas: 2 } },
  { label: "maxSize below the request", snapshot: { group: group({ maxSize: 2 }), replicas: 2 } },
  { label: "group missing", snapshot: { group: null } },
  { label: "target NotFound", snapshot: { target: notFoundTarget } },
  { label: "target NotScalable", snapshot: { target: notScalableTarget } },
  { label: "much later", snapshot: { now: T0 + 24 * 60 * MIN, replicas: 5, ready: 5 } },
];

const user = [
  { label: "no user action", cancel: false, deleting: false },
  { label: "spec.cancel", cancel: true, deleting: false },
  { label: "deleting", cancel: false, deleting: true },
];

const FINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);

const table = states.flatMap((st) =>
  observations.flatMap((ob) =>
    user.map((u) => ({ state: st.label, obs: ob.label, action: u.label, st, ob, u })),
  ),
);

type Case = (typeof table)[number];

describe("state × observation × user action: invariants", () => {
  test.each(table)("$state × $obs × $action", async (c) => {
    await check(c);
  });
});

async function check({ st, ob, u }: Case): Promise<void> {
  const active = st.status.provisioning !== undefined;
  const a: RequestView = req("a", {
    resizeBy: K,
    created: st.created ?? T0 - 10 * MIN,
    cancel: u.cancel,
    deleting: u.deleting,
    // An attempt in flight holds the finalizer; a deleted object is only still there with one.
    hasFinalizer: active || u.deleting,
    status: st.status,
    run: { seconds: "60" },
  });
  // z is the youngest request of the group, so it is always behind a.
  const z = req("z", { resizeBy: 1, created: T0 - 500, status: accepted("z") });
  const s = snap({ ...ob.snapshot, requests: [z, a] });
  const plan = decide(s);
  const after = await afterExecuting(s, plan);

  // Protocol invariants: finals stay final, errors stay, one attempt, scales recorded and from == t.
  expect(checkStep(s, plan, after)).toEqual([]);
  // Deciding again right after the plan was carried out keeps them too.
  const next = decide({ ...after, nowMs: after.nowMs + SEC });
  expect(checkStep(after, next, await afterExecuting(after, next))).toEqual([]);
  // So does deciding again after the pass ended at any status write (a conflict or a crash).
  const writes = plan.requests.filter((c) => c.status !== undefined).length;
  for (let n = 0; n < writes; n++) {
    const cut = await afterExecuting(s, plan, { statusWrites: n });
    const retry = decide({ ...cut, nowMs: cut.nowMs + SEC });
    expect([n, checkStep(cut, retry, await afterExecuting(cut, retry))]).toEqual([n, []]);
  }

  // Requests out of play are invisible to the pass: a request the index leaves out gets nothing from
  // the decision, and leaving it out changes nothing for the rest (before and after the plan).
  for (const seen of [s, { ...after, nowMs: after.nowMs + SEC }]) {
    for (const out of seen.requests.filter((r) => !inPlay(r))) {
      const full = decide(seen);
      expect(changeOf(full, out.name)).toBeUndefined();
      expect(full.events.filter((e) => e.request === out.name)).toEqual([]);
      const without = decide({ ...seen, requests: seen.requests.filter((r) => r !== out) });
      expect(without).toEqual(full);
    }
  }

  const names = plan.requests.map((c) => c.name);
  expect(new Set(names).size).toBe(names.length);
  if (plan.requeueAfterMs !== undefined) expect(plan.requeueAfterMs).toBeGreaterThanOrEqual(0);
  if (s.target?.found !== true) expect(plan.scale).toBeUndefined();

  const aAfter = statusAfter(plan, a);
  const zAfter = statusAfter(plan, z);
  const wasFinal = FINAL.has(st.status.state ?? "");

  // A cancelled or deleted request never starts an attempt, and never gains a finalizer.
  if (u.cancel || u.deleting) {
    if (st.status.provisioning === undefined) expect(aAfter.provisioning).toBeUndefined();
    expect(changeOf(plan, "a")?.finalizer).not.toBe("add");
  }
  // Finished requests: never a finalizer added, never a scale up, only late-cancel/release events.
  if (wasFinal) {
    expect(changeOf(plan, "a")?.finalizer).not.toBe("add");
    if (plan.scale?.request === "a") {
      expect(st.status.state).toBe("SUCCEEDED");
      expect(plan.scale.replicas).toBeLessThan(plan.scale.from);
    }
    for (const e of plan.events.filter((x) => x.request === "a"))
      expect(["CancelRefused", "RunDurationElapsed"]).toContain(e.event.reason);
    if (plan.events.some((e) => e.event.reason === "CancelRefused")) expect(u.cancel).toBe(true);
  }
  // A finalizer is added only together with a new attempt's record.
  for (const c of plan.requests.filter((x) => x.finalizer === "add")) {
    const status = c.status;
    expect(status?.provisioning?.phase).toBe("Applying");
    expect(status?.provisioning?.attempt).toBe(status?.attempts);
    expect(plan.scale?.request).toBe(c.name);
  }
  // FIFO: z, younger, never starts while a is admitted, active and therefore ahead of it.
  if (aAfter.state === "ACCEPTED") {
    expect(zAfter.provisioning).toBeUndefined();
  }
  // An attempt that ends back in the queue keeps a's place: a is the head again (a head's reason, in
  // backoff unless it must first wait for room), z stays behind it (plainly queued) and does not start.
  if (active && aAfter.state === "ACCEPTED" && aAfter.provisioning === undefined) {
    expect(["Backoff", "WaitingForCapacity"]).toContain(aAfter.reason);
    expect(cond(aAfter, RC.Queued)).toMatchObject({ status: "True", reason: aAfter.reason });
    expect(Date.parse(aAfter.nextAttemptTime ?? "")).toBeGreaterThan(s.nowMs);
    expect(aAfter.lastAttempt?.error?.errors.length).toBeGreaterThan(0);
    expect(zAfter.reason).toBe("Queued");
    expect(cond(zAfter, RC.Queued)).toMatchObject({
      status: "True",
      reason: "Queued",
      message: queuedMessage(),
    });
    expect(changeOf(plan, "a")?.finalizer).toBe("remove");
  }
  // The group counts as queued exactly the active requests whose Queued condition is True.
  if (s.group !== undefined) {
    const queued = [aAfter, zAfter].filter(
      (x) => !FINAL.has(x.state ?? "") && cond(x, RC.Queued)?.status === "True",
    ).length;
    const activeCount = [aAfter, zAfter].filter((x) => !FINAL.has(x.state ?? "")).length;
    expect(plan.groupStatus).toMatchObject({ queuedRequests: queued, activeRequests: activeCount });
  }
  // When a's change is resolved, z (next in FIFO order) may start in the same decision, written last;
  // the next decision follows at once.
  if (resolvedIn(s, plan).includes("a")) {
    expect(plan.requeueAfterMs).toBe(0);
    const started = startedIn(s, plan);
    if (started.length > 0) {
      expect(started).toEqual(["z"]);
      expect(plan.scale?.request).toBe("z");
      expect(plan.requests.at(-1)?.name).toBe("z");
    }
  }
  // The first decision that sees an Applying increase applied, instances not all ready, starts the
  // provisioning clock: appliedTime now, deadline now + provisioningTimeout, no scale.
  if (st.status.provisioning?.phase === "Applying" && aAfter.provisioning?.phase === "Applied") {
    const timeout = (ob.snapshot.group ?? group()).provisioningTimeoutMs;
    expect(aAfter.provisioning.appliedTime).toBe(iso(s.nowMs));
    expect(aAfter.provisioning.deadline).toBe(iso(s.nowMs + timeout));
    expect(plan.scale).toBeUndefined();
  }
  // An admitted, active request has exactly one of Queued / Provisioning True.
  for (const status of [aAfter, zAfter]) {
    if (status.state !== "ACCEPTED") continue;
    const queued = cond(status, RC.Queued)?.status === "True";
    const provisioning = cond(status, RC.Provisioning)?.status === "True";
    expect(queued !== provisioning).toBe(true);
    expect(provisioning).toBe(status.provisioning !== undefined);
  }
  // Final states written by this decision carry exactly their final condition.
  if (!wasFinal && FINAL.has(aAfter.state ?? "")) {
    const type =
      aAfter.state === "SUCCEEDED" ? RC.Succeeded : aAfter.state === "FAILED" ? RC.Failed : RC.Cancelled;
    expect(cond(aAfter, type)?.status).toBe("True");
    expect(aAfter.provisioning).toBeUndefined();
    expect(cond(aAfter, RC.Queued)?.status).not.toBe("True");
    expect(aAfter.lastAttempt).toBeUndefined();
    if (aAfter.state === "FAILED") expect(aAfter.error?.errors.length).toBeGreaterThan(0);
    // All or nothing: a success means the target holds exactly the attempt's raised replicas.
    if (aAfter.state === "SUCCEEDED" && s.target?.found) {
      expect(s.target.replicas).toBe(st.status.provisioning?.targetReplicas);
    }
  }
}
