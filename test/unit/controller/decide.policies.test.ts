// decide(): the group policies of docs/design.md §4 — the queue deadline (deadline.ts) and the fast rollback
// when the cluster cannot grow (capacity.ts) — as tables of single decisions.
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import { ErrorCode } from "../../../src/api/errors.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { fastRollback } from "../../../src/controllers/resize/decide/capacity.js";
import { queueDeadline } from "../../../src/controllers/resize/deadline.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import type { GroupSnapshot, GroupView } from "../../../src/controllers/resize/snapshot.js";
import {
  latestVerdict,
  podsShortfall,
  type AutoscalerEvent,
  type UnschedulablePod,
} from "../../../src/targets/pods.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import {
  APPLIED,
  CFG,
  MIN,
  SEC,
  T0,
  accepted,
  appliedAttempt,
  appliedRequest,
  changeOf,
  cond,
  group,
  iso,
  provisioningStatus,
  reasons,
  req,
  snap,
  statusAfter,
  statusOf,
  type RequestOptions,
  type SnapshotOptions,
} from "./builders.js";

/** A request with its own spec.maxQueueDuration (kubectl only). */
function withDeadline(name: string, maxQueueDuration: string, o: RequestOptions = {}): RequestView {
  const r = req(name, o);
  return { ...r, spec: { ...r.spec, maxQueueDuration } };
}

const at = (offsetSec: number): number => T0 + offsetSec * SEC;

describe("queueDeadline(): the request's own maxQueueDuration, else the group's", () => {
  const created = T0 - 10 * MIN;
  test.each([
    { label: "own only", own: "5m", groupMs: undefined, want: { atMs: created + 5 * MIN, setBy: "request" } },
    { label: "own wins", own: "5m", groupMs: 60 * MIN, want: { atMs: created + 5 * MIN, setBy: "request" } },
    {
      label: "group default",
      own: undefined,
      groupMs: 2 * MIN,
      want: { atMs: created + 2 * MIN, setBy: "group" },
    },
    { label: "neither: no deadline", own: undefined, groupMs: undefined, want: undefined },
  ])("$label", ({ own, groupMs, want }) => {
    const r = own === undefined ? req("a", { created }) : withDeadline("a", own, { created });
    const deadline = queueDeadline(r, group({ maxQueueDurationMs: groupMs }));
    if (want === undefined) expect(deadline).toBeUndefined();
    else expect(deadline).toMatchObject(want);
  });

  test("no group (CREATING): only the request's own deadline", () => {
    expect(queueDeadline(withDeadline("a", "30s", { created }), undefined)?.atMs).toBe(created + 30 * SEC);
    expect(queueDeadline(req("a", { created }), undefined)).toBeUndefined();
  });
});

interface ExpiryCase {
  readonly label: string;
  readonly snapshot: SnapshotOptions;
  /** The request expected to fail. */
  readonly name: string;
  readonly message: string;
  readonly location?: string;
}

describe("a waiting request whose queue deadline passed goes FAILED (QueueDeadlineExceeded)", () => {
  const cases: ExpiryCase[] = [
    {
      label: "the head waiting for room under maxSize (the group's default deadline)",
      snapshot: {
        group: group({ maxSize: 4, maxQueueDurationMs: 10 * MIN }),
        replicas: 2,
        requests: [req("a", { resizeBy: 3, status: accepted("a") })],
      },
      name: "a",
      message:
        "waited 10m in the queue of group pool for room: needs 3, room 2 under maxSize 4; the group's maxQueueDuration of 10m elapsed",
    },
    {
      label: "its own deadline wins over the group's",
      snapshot: {
        group: group({ maxSize: 4, maxQueueDurationMs: 60 * MIN }),
        replicas: 4,
        requests: [withDeadline("a", "5m", { resizeBy: 1, status: accepted("a") })],
      },
      name: "a",
      message:
        "waited 10m in the queue of group pool for room: needs 1, room 0 under maxSize 4; the request's maxQueueDuration of 5m elapsed",
      location: "spec.maxQueueDuration",
    },
    {
      label: "behind other requests",
      snapshot: {
        group: group({ maxSize: 4 }),
        replicas: 2,
        requests: [
          req("h", { resizeBy: 3, created: T0 - 20 * MIN, status: accepted("h") }),
          req("i", { resizeBy: 1, created: T0 - 15 * MIN, status: accepted("i") }),
          withDeadline("a", "9m", { resizeBy: 1, status: accepted("a") }),
        ],
      },
      name: "a",
      message:
        "waited 10m in the queue of group pool behind 2 requests; the request's maxQueueDuration of 9m elapsed",
      location: "spec.maxQueueDuration",
    },
    {
      label: "in backoff after failed attempts",
      snapshot: {
        group: group({ maxQueueDurationMs: 10 * MIN }),
        requests: [
          req("a", {
            status: accepted("a", {
              reason: "Backoff",
              attempts: 2,
              nextAttemptTime: iso(at(30)),
              lastAttempt: { error: { errors: [{ code: ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED }] } },
            }),
          }),
        ],
      },
      name: "a",
      message:
        "waited 10m in the queue of group pool in backoff after 2 failed attempts (last: ZONE_RESOURCE_POOL_EXHAUSTED); the group's maxQueueDuration of 10m elapsed",
    },
    {
      label: "CREATING: its group does not exist (yet), within the admission grace",
      snapshot: {
        group: null,
        requests: [withDeadline("a", "5s", { created: at(-6) })],
      },
      name: "a",
      message:
        "waited 6s in the queue of group pool for the group to exist; the request's maxQueueDuration of 5s elapsed",
      location: "spec.maxQueueDuration",
    },
    {
      label: "the deadline passed as room appeared: it fails rather than starting late",
      snapshot: {
        group: group({ maxSize: 10, maxQueueDurationMs: 10 * MIN }),
        replicas: 2,
        requests: [req("a", { resizeBy: 3, status: accepted("a", { reason: "WaitingForCapacity" }) })],
      },
      name: "a",
      message:
        "waited 10m in the queue of group pool for room under maxSize 10, which came only at the deadline; the group's maxQueueDuration of 10m elapsed",
    },
    {
      label: "the head held back by another request's release",
      snapshot: {
        group: group({ maxQueueDurationMs: 10 * MIN }),
        requests: [
          req("r", {
            created: T0 - 20 * MIN,
            status: {
              ...accepted("r"),
              state: "SUCCEEDED",
              reason: "Provisioned",
              release: { phase: "Applying", baseReplicas: 4, targetReplicas: 2, startedTime: iso(at(-1)) },
            },
          }),
          req("a", { status: accepted("a") }),
        ],
        replicas: 4,
      },
      name: "a",
      message:
        "waited 10m in the queue of group pool behind the release of request r's instances; the group's maxQueueDuration of 10m elapsed",
    },
  ];

  describe.each(cases)("$label", ({ snapshot, name, message, location }) => {
    const plan = decide(snap(snapshot));
    const status = statusOf(plan, name);

    test("FAILED with DEADLINE_EXCEEDED saying how long it waited and for what", () => {
      expect(status).toMatchObject({ state: "FAILED", reason: "QueueDeadlineExceeded" });
      expect(status.error?.errors).toEqual([
        {
          code: ErrorCode.DEADLINE_EXCEEDED,
          ...(location !== undefined && { location }),
          message,
          errorDetails: [
            {
              errorInfo: {
                reason: "QUEUE_DEADLINE_EXCEEDED",
                domain: "compute.resize-operator.dev",
                metadatas: {
                  maxQueueDuration: expect.any(String) as string,
                  setBy: location === undefined ? "group" : "request",
                },
              },
            },
          ],
        },
      ]);
      expect(status.lastAttempt).toBeUndefined();
      expect(status.nextAttemptTime).toBeUndefined();
    });

    test("condition Failed and a Warning event QueueDeadlineExceeded; nothing is scaled for it", () => {
      expect(cond(status, RC.Failed)).toMatchObject({ status: "True", reason: "QueueDeadlineExceeded" });
      const event = plan.events.find((e) => e.request === name && e.event.reason === "QueueDeadlineExceeded");
      expect(event?.event.type).toBe("Warning");
      expect(event?.note).toBe(`DEADLINE_EXCEEDED: ${message}`);
      expect(plan.scale?.request).not.toBe(name);
    });
  });
});

describe("a deadline that has not passed, or does not apply", () => {
  test("not yet: the request keeps waiting and the group is reconciled at its deadline", () => {
    // CREATING within the admission grace (29 s left): the 9 s to the deadline come first.
    const plan = decide(snap({ group: null, requests: [withDeadline("a", "10s", { created: at(-1) })] }));
    expect(statusOf(plan, "a").state).toBe("CREATING");
    expect(plan.requeueAfterMs).toBe(9 * SEC);
  });

  test("behind a head in backoff: woken at its deadline, before the backoff ends", () => {
    const plan = decide(
      snap({
        requests: [
          req("h", {
            created: T0 - 20 * MIN,
            status: accepted("h", { reason: "Backoff", attempts: 1, nextAttemptTime: iso(at(60)) }),
          }),
          withDeadline("a", "10m20s", { status: accepted("a") }),
        ],
      }),
    );
    expect(statusOf(plan, "a")).toMatchObject({ state: "ACCEPTED", reason: "Queued" });
    expect(plan.requeueAfterMs).toBe(20 * SEC);
  });

  test("not during a provisioning attempt: an Applied attempt past the queue deadline goes on", () => {
    const a = appliedRequest("a");
    const plan = decide(
      snap({ group: group({ maxQueueDurationMs: MIN }), replicas: 5, ready: 3, requests: [a] }),
    );
    expect(statusAfter(plan, a)).toMatchObject({ state: "ACCEPTED", provisioning: { phase: "Applied" } });
    expect(reasons(plan)).toEqual([]);
  });

  test("an attempt rolled back in this pass is waiting again: its passed deadline fails it", () => {
    const a = req("a", {
      resizeBy: 3,
      hasFinalizer: true,
      status: provisioningStatus("a", { phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 }),
    });
    const plan = decide(snap({ group: group({ maxQueueDurationMs: MIN }), replicas: 2, requests: [a] }));
    expect(statusOf(plan, "a")).toMatchObject({ state: "FAILED", reason: "QueueDeadlineExceeded" });
    expect(statusOf(plan, "a").error?.errors[0]?.message).toContain("in backoff after 1 failed attempt;");
    expect(reasons(plan, "a")).toEqual(["RolledBack", "QueueDeadlineExceeded"]);
    expect(plan.scale).toBeUndefined();
    expect(changeOf(plan, "a")?.finalizer).toBe("remove");
  });

  test("an admission failure is reported as such, not as a deadline", () => {
    const plan = decide(
      snap({
        group: group({ maxSize: 2, maxQueueDurationMs: MIN }),
        requests: [req("a", { resizeBy: 3, status: accepted("a") })],
      }),
    );
    expect(statusOf(plan, "a")).toMatchObject({ state: "FAILED", reason: "QuotaExceeded" });
    expect(reasons(plan, "a")).toEqual(["AdmissionFailed"]);
  });
});

// ---- Fast rollback ---------------------------------------------------------------------------------

const attempt = appliedAttempt;
const not = (
  atMs: number,
  message = "pod didn't trigger scale-up: 1 max node group size reached",
): AutoscalerEvent => ({
  reason: "NotTriggerScaleUp",
  atMs,
  message,
});
const triggered = (atMs: number): AutoscalerEvent => ({
  reason: "TriggeredScaleUp",
  atMs,
  message: "pod triggered scale-up: [{pool 1->2 (max: 4)}]",
});
const pod = (name: string, sinceMs: number, events: readonly AutoscalerEvent[] = []): UnschedulablePod => ({
  name,
  sinceMs,
  autoscalerEvents: events,
});

describe("latestVerdict(): the autoscaler's newest word on a pod", () => {
  test.each([
    { label: "none", events: [], want: undefined },
    { label: "a decline", events: [not(at(-5))], want: "NotTriggerScaleUp" },
    {
      label: "a scale-up after a decline",
      events: [not(at(-5)), triggered(at(-2))],
      want: "TriggeredScaleUp",
    },
    {
      label: "a decline after a scale-up",
      events: [triggered(at(-5)), not(at(-2))],
      want: "NotTriggerScaleUp",
    },
    {
      label: "same second: the scale-up wins",
      events: [not(at(-2)), triggered(at(-2))],
      want: "TriggeredScaleUp",
    },
    { label: "same second, other order", events: [triggered(at(-2)), not(at(-2))], want: "TriggeredScaleUp" },
  ])("$label", ({ events, want }) => {
    expect(latestVerdict(events)?.reason).toBe(want);
  });
});

/** What the target's Unschedulable `pods` say for group `g` (targets/pods.ts, read by the observer). */
const said = (g: GroupView, pods: readonly UnschedulablePod[]) =>
  podsShortfall(g.clusterAutoscaler, { summary: `${pods.length} pod(s) Unschedulable`, pods });

describe("fastRollback(): when nothing will add capacity, the grace's end", () => {
  const GRACE = 60 * SEC;
  const none = group({ clusterAutoscaler: "None", unschedulableGracePeriodMs: GRACE });
  const detect = group({ clusterAutoscaler: "Detect", unschedulableGracePeriodMs: GRACE });
  test.each([
    {
      label: "None: from the attempt's appliedTime when the pods were stuck before",
      g: none,
      pods: [pod("w-3", at(-100))],
      want: APPLIED + GRACE,
    },
    {
      label: "None: from when the pods became Unschedulable, if later",
      g: none,
      pods: [pod("w-3", at(-10))],
      want: at(-10) + GRACE,
    },
    {
      label: "None: the earliest of several pods",
      g: none,
      pods: [pod("w-3", at(-5)), pod("w-4", at(-10))],
      want: at(-10) + GRACE,
    },
    { label: "None: no Unschedulable pod, nothing early", g: none, pods: [], want: undefined },
    {
      label: "Detect: no autoscaler event, wait for the timeout",
      g: detect,
      pods: [pod("w-3", at(-10))],
      want: undefined,
    },
    {
      label: "Detect: NotTriggerScaleUp",
      g: detect,
      pods: [pod("w-3", at(-10), [not(at(-8))])],
      want: at(-10) + GRACE,
    },
    {
      label: "Detect: TriggeredScaleUp newer than NotTriggerScaleUp keeps waiting",
      g: detect,
      pods: [pod("w-3", at(-10), [not(at(-8)), triggered(at(-4))])],
      want: undefined,
    },
    {
      label: "Detect: NotTriggerScaleUp newer than TriggeredScaleUp",
      g: detect,
      pods: [pod("w-3", at(-10), [triggered(at(-8)), not(at(-4))])],
      want: at(-10) + GRACE,
    },
    {
      label: "Detect: one pod declined is enough (all or nothing), from its own time",
      g: detect,
      pods: [pod("w-3", at(-20), [triggered(at(-8))]), pod("w-4", at(-10), [not(at(-8))])],
      want: at(-10) + GRACE,
    },
  ])("$label", ({ g, pods, want }) => {
    expect(fastRollback(g, attempt(), said(g, pods))?.atMs).toBe(want);
  });

  test("only an Applied attempt, and only when the pods were read", () => {
    const pods = [pod("w-3", at(-10))];
    expect(fastRollback(none, attempt({ phase: "Applying" }), said(none, pods))).toBeUndefined();
    expect(fastRollback(none, attempt({ phase: "RollingBack" }), said(none, pods))).toBeUndefined();
    expect(fastRollback(none, attempt(), undefined)).toBeUndefined();
    expect(fastRollback(undefined, attempt(), said(none, pods))).toBeUndefined();
  });
});

describe("decide(): an Applied attempt whose new pods are Unschedulable", () => {
  const SCHEDULER = "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.";
  const applied = (extra: ResizeRequestStatus = {}): RequestView =>
    appliedRequest("a", { deadline: iso(APPLIED + 10 * MIN) }, extra);
  function stuck(g: GroupView, pods: readonly UnschedulablePod[], now = T0): GroupSnapshot {
    return {
      ...snap({
        now,
        group: g,
        replicas: 5,
        ready: 2,
        requests: [applied()],
      }),
      shortfall: podsShortfall(g.clusterAutoscaler, {
        summary: `3 pod(s) Unschedulable: ${SCHEDULER}`,
        pods,
      }),
    };
  }
  const grace2s = (autoscaler: "None" | "Detect"): GroupView =>
    group({ clusterAutoscaler: autoscaler, unschedulableGracePeriodMs: 2 * SEC });

  test.each([
    {
      label: "clusterAutoscaler None",
      g: grace2s("None"),
      pods: [pod("w-2", at(-29))],
      why: "nothing will add capacity (the group's clusterAutoscaler is None)",
    },
    {
      label: "Detect, the autoscaler declined",
      g: grace2s("Detect"),
      pods: [
        pod("w-2", at(-29), [not(at(-20), "pod didn't trigger scale-up: 1 Insufficient nvidia.com/gpu")]),
      ],
      why: "the cluster autoscaler will not add capacity (NotTriggerScaleUp on pod w-2: pod didn't trigger scale-up: 1 Insufficient nvidia.com/gpu)",
    },
  ])("$label: rolled back after the grace with ZONE_RESOURCE_POOL_EXHAUSTED", ({ g, pods, why }) => {
    const plan = decide(stuck(g, pods));
    const status = statusOf(plan, "a");
    expect(status.provisioning).toMatchObject({ phase: "RollingBack", baseReplicas: 5, targetReplicas: 2 });
    expect(plan.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    expect(status.lastAttempt?.error?.errors).toEqual([
      {
        code: ErrorCode.ZONE_RESOURCE_POOL_EXHAUSTED,
        message: `only 2 of 5 instances were ready after 30s: new instances could not be scheduled and ${why}: 3 pod(s) Unschedulable: ${SCHEDULER}`,
        errorDetails: [
          {
            errorInfo: {
              reason: "ZONE_RESOURCE_POOL_EXHAUSTED",
              domain: "compute.resize-operator.dev",
              metadatas: { ready: "2", wanted: "5", rolledBackEarly: "true" },
            },
          },
        ],
      },
    ]);
    expect(reasons(plan, "a")).toEqual(["AttemptFailed"]);
    expect(status.state).toBe("ACCEPTED");
  });

  test("within the grace: it waits, and the group is reconciled when the grace ends", () => {
    const g = group({ clusterAutoscaler: "None", unschedulableGracePeriodMs: 60 * SEC });
    const plan = decide({ ...stuck(g, [pod("w-2", at(-10))]), config: { ...CFG, pollIntervalMs: 5 * MIN } });
    expect(plan.scale).toBeUndefined();
    expect(statusOf(plan, "a")).toMatchObject({
      reason: "WaitingForInstances",
      provisioning: { phase: "Applied" },
    });
    expect(plan.requeueAfterMs).toBe(50 * SEC);
  });

  test("Detect with a scale-up on its way: it waits up to provisioningTimeout", () => {
    const pods = [pod("w-2", at(-29), [not(at(-20)), triggered(at(-15))])];
    expect(decide(stuck(grace2s("Detect"), pods)).scale).toBeUndefined();
    const late = decide(stuck(grace2s("Detect"), pods, APPLIED + 10 * MIN));
    expect(late.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    const error = statusOf(late, "a").lastAttempt?.error?.errors[0];
    expect(error?.message).toBe(
      `only 2 of 5 instances were ready after 10m: new instances could not be scheduled: 3 pod(s) Unschedulable: ${SCHEDULER}`,
    );
    expect(error?.errorDetails?.[0]?.errorInfo?.metadatas).toEqual({ ready: "2", wanted: "5" });
  });
});
