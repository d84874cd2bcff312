// queueInsight(): positions, what each waiting request waits for, and ETAs with their basis, as tables.
// Times are seconds after T0 ("now"); every group's recent attempts took 30 s unless a case says so.
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { API_VERSION } from "../../../src/api/names.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { attemptHistory, queueInsight, type Eta, type QueueInput } from "../../../src/queue/insight.js";

const T0 = Date.parse("2025-01-01T00:10:00.000Z");
const SEC = 1000;
const at = (s: number): string => new Date(T0 + s * SEC).toISOString();

function group(spec: Partial<InstanceGroupManager["spec"]> = {}): InstanceGroupManager {
  return {
    apiVersion: API_VERSION,
    kind: "InstanceGroupManager",
    metadata: { name: "pool", namespace: "team-a" },
    spec: {
      zone: "us-central1-a",
      targetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "workers" },
      maxSize: 8,
      minSize: 0,
      provisioningTimeout: "10m",
      readyReplicasField: "status.readyReplicas",
      clusterAutoscaler: "Detect",
      unschedulableGracePeriod: "60s",
      ...spec,
    },
  };
}

interface RequestOptions {
  readonly size?: number;
  /** Creation, seconds after T0 (negative: before). */
  readonly created?: number;
  /** Run duration in seconds. */
  readonly run?: number;
  readonly cancel?: boolean;
  readonly status?: ResizeRequestStatus;
}

function rr(name: string, o: RequestOptions = {}): ResizeRequest {
  return {
    apiVersion: API_VERSION,
    kind: "ResizeRequest",
    metadata: { name, namespace: "team-a", creationTimestamp: at(o.created ?? -600) },
    spec: {
      instanceGroupManager: "pool",
      resizeBy: o.size ?? 4,
      cancel: o.cancel ?? false,
      ...(o.run !== undefined && { requestedRunDuration: { seconds: String(o.run) } }),
    },
    ...(o.status && { status: o.status }),
  };
}

/** A request that succeeded at `succeeded` after an attempt of `took` seconds; released at `runUntil`. */
function done(
  name: string,
  o: { size?: number; succeeded?: number; took?: number; runUntil?: number; attempts?: number } = {},
): ResizeRequest {
  const succeeded = o.succeeded ?? -300;
  return rr(name, {
    size: o.size ?? 4,
    created: succeeded - 100,
    status: {
      state: "SUCCEEDED",
      attempts: o.attempts ?? 1,
      provisioningStartedTime: at(succeeded - (o.took ?? 30)),
      succeededTime: at(succeeded),
      ...(o.runUntil !== undefined && { runUntil: at(o.runUntil) }),
    },
  });
}

const queued = (name: string, created: number, o: RequestOptions = {}): ResizeRequest =>
  rr(name, { created, ...o, status: { state: "ACCEPTED", ...o.status } });

const exact = (start: number, time: number): Eta => ({
  basis: "exact",
  start: T0 + start * SEC,
  time: T0 + time * SEC,
});
const estimated = (start: number, time: number): Eta => ({
  basis: "estimated",
  start: T0 + start * SEC,
  time: T0 + time * SEC,
});
const unknown = (reason: string | RegExp): Eta => ({
  basis: "unknown",
  reason: expect.stringMatching(reason) as unknown as string,
});

function run(input: Partial<QueueInput> & { replicas?: number }): ReturnType<typeof queueInsight> {
  return queueInsight({
    group: "group" in input ? input.group : group(),
    requests: input.requests ?? [],
    target:
      "target" in input
        ? input.target
        : { replicas: input.replicas ?? 8, readyReplicas: input.replicas ?? 8 },
    now: T0,
  });
}

/** Two succeeded requests of 4 hold the whole maxSize 8 and are released at +60 s and +120 s. */
const holding = [done("held-a", { runUntil: 60 }), done("held-b", { runUntil: 120 })];

describe("queueInsight(): exact ETAs (maxSize bound, capacity freed at known release times)", () => {
  test.each([
    {
      name: "the head waits for the first release, then takes 30 s",
      requests: [...holding, queued("q1", -50)],
      etas: { q1: exact(60, 90) },
    },
    {
      name: "exact through several releases: each waits for the next release after the previous attempt",
      // q1 starts at the first release (60) and holds 4 until 150; q2 waits for held-b (120); q3 needs
      // 6: room only once q1 (150) and q2 (150+100=250) are released.
      requests: [
        ...holding,
        queued("q1", -50, { run: 60 }),
        queued("q2", -40, { run: 100 }),
        queued("q3", -30, { size: 6 }),
      ],
      etas: { q1: exact(60, 90), q2: exact(120, 150), q3: exact(250, 280) },
    },
    {
      name: "a release due during an attempt waits for it (one change at a time), as decide does",
      // replicas 4 (held-a) + q1 4 = 8; held-a is due at 10, but q1's attempt runs 0..30.
      requests: [done("held-a", { runUntil: 10 }), queued("q1", -50), queued("q2", -40)],
      replicas: 4,
      etas: { q1: exact(0, 30), q2: exact(30, 60) },
    },
    {
      name: "a head in backoff starts when the backoff passes",
      requests: [...holding, queued("q1", -50, { size: 2, status: { nextAttemptTime: at(45) } })],
      replicas: 6,
      etas: { q1: exact(45, 75) },
    },
    {
      name: "an attempt in progress ends at its start plus the usual duration; the queue follows it",
      requests: [
        done("held-a", { runUntil: 500 }),
        queued("q0", -60, {
          status: {
            provisioning: {
              attempt: 1,
              phase: "Applied",
              baseReplicas: 4,
              targetReplicas: 8,
              startedTime: at(-10),
            },
          },
        }),
        queued("q1", -50, { size: 4 }),
      ],
      replicas: 8,
      // q1 waits for room: held-a is released at 500.
      etas: { q0: exact(-10, 20), q1: exact(500, 530) },
    },
    {
      name: "an attempt still Applying counts its increase already (the target will have it)",
      requests: [
        done("held-a", { runUntil: 100 }),
        queued("q0", -60, {
          status: {
            provisioning: {
              attempt: 1,
              phase: "Applying",
              baseReplicas: 4,
              targetReplicas: 8,
              startedTime: at(0),
            },
          },
        }),
        queued("q1", -50, { size: 2 }),
      ],
      replicas: 4,
      etas: { q0: exact(0, 30), q1: exact(100, 130) },
    },
    {
      name: "the attempt in progress frees its own instances at its expected end plus its run duration",
      // q0 (4, run 100 s) ends at 20 and goes at 120; held-a goes at 500. q1 needs 8 - 4 = 4 of room:
      // q0's release (120) gives it, not held-a's (500).
      requests: [
        done("held-a", { runUntil: 500 }),
        queued("q0", -60, {
          run: 100,
          status: {
            provisioning: {
              attempt: 1,
              phase: "Applied",
              baseReplicas: 4,
              targetReplicas: 8,
              startedTime: at(-10),
            },
          },
        }),
        queued("q1", -50, { size: 4 }),
      ],
      replicas: 8,
      etas: { q0: exact(-10, 20), q1: exact(120, 150) },
    },
    {
      name: "a release already under way counts as done",
      requests: [
        rr("leaving", {
          status: {
            state: "SUCCEEDED",
            succeededTime: at(-400),
            provisioningStartedTime: at(-430),
            runUntil: at(-5),
            release: { phase: "Applying", baseReplicas: 8, targetReplicas: 4, startedTime: at(-5) },
          },
        }),
        queued("q1", -50),
      ],
      etas: { q1: exact(0, 30) },
    },
  ])("$name", ({ requests, replicas, etas }) => {
    const q = run({ requests, replicas });
    expect(Object.fromEntries(q.requests.map((r) => [r.name, r.eta]))).toEqual(etas);
  });
});

describe("queueInsight(): when capacity frees", () => {
  test("scheduled releases of succeeded requests, then the expected ones, in time order", () => {
    const q = run({
      requests: [...holding, queued("q1", -50, { run: 60 }), queued("q2", -40, { run: 100 })],
    });
    expect(q.releases).toEqual([
      { request: "held-a", size: 4, time: T0 + 60 * SEC, basis: "scheduled" },
      { request: "held-b", size: 4, time: T0 + 120 * SEC, basis: "scheduled" },
      { request: "q1", size: 4, time: T0 + 150 * SEC, basis: "exact" },
      { request: "q2", size: 4, time: T0 + 250 * SEC, basis: "exact" },
    ]);
  });
});

describe("queueInsight(): minSize", () => {
  test("plays no part in the head's room: replicas + size <= maxSize is all that counts", () => {
    const requests = [done("h", { runUntil: 900 }), queued("q1", -50)];
    const withFloor = run({ group: group({ minSize: 4, maxSize: 10 }), requests, replicas: 6 });
    const withoutFloor = run({ group: group({ minSize: 0, maxSize: 10 }), requests, replicas: 6 });
    expect(withFloor.requests).toEqual(withoutFloor.requests);
    expect(withFloor.head?.waitingFor).toEqual({ kind: "Starting" });
    expect(withFloor.head?.eta).toEqual(exact(0, 30));
  });

  test("bounds what a release frees: never below minSize", () => {
    // Releasing held-a (4) from 8 with minSize 6 leaves 6: q1 (4) still does not fit under 8, and no
    // other release is known.
    const q = run({
      group: group({ minSize: 6 }),
      requests: [done("held-a", { runUntil: 60 }), queued("q1", -50)],
    });
    expect(q.head?.eta).toEqual(
      unknown(/capacity is held by replicas no scheduled release frees \(6 of maxSize 8/),
    );
  });
});

describe("queueInsight(): estimated ETAs", () => {
  test.each([
    {
      name: "no maxSize bound: the cluster's room decides, so the replay is an estimate",
      group: group({ maxSize: undefined }),
      requests: [done("d"), queued("q1", -50), queued("q2", -40)],
      etas: { q1: estimated(0, 30), q2: estimated(30, 60) },
    },
    {
      name: "failed attempts lately: each success is expected to take 1 / success rate attempts",
      group: group({ maxSize: 20 }),
      // 2 successes out of 4 attempts: 50 %, so 60 s per request.
      requests: [
        done("d1", { attempts: 3 }),
        done("d2", { succeeded: -200 }),
        queued("q1", -50),
        queued("q2", -40),
      ],
      etas: { q1: estimated(0, 60), q2: estimated(60, 120) },
    },
    {
      name: "an attempt running longer than usual may end at any moment",
      group: group({ maxSize: 20 }),
      requests: [
        done("d"),
        queued("q0", -100, {
          status: {
            provisioning: {
              attempt: 1,
              phase: "Applied",
              baseReplicas: 8,
              targetReplicas: 12,
              startedTime: at(-45),
            },
          },
        }),
        queued("q1", -50),
      ],
      etas: { q0: estimated(-45, 0), q1: estimated(0, 30) },
    },
  ])("$name", ({ group: g, requests, etas }) => {
    const q = run({ group: g, requests });
    expect(Object.fromEntries(q.requests.map((r) => [r.name, r.eta]))).toEqual(etas);
  });
});

describe("queueInsight(): unknown ETAs, with their reason", () => {
  const unschedulable = {
    errors: [
      {
        code: "ZONE_RESOURCE_POOL_EXHAUSTED",
        message:
          "only 8 of 12 instances were ready after 10m: new instances could not be scheduled: 0/4 nodes are available: 4 Insufficient cpu",
      },
    ],
  };
  test.each([
    {
      name: "no attempt has succeeded yet: the attempt duration is unknown",
      requests: [queued("q1", -50)],
      replicas: 0,
      reason: /no attempt of this group has succeeded yet/,
    },
    {
      name: "capacity held by a request without a run duration",
      requests: [done("forever"), done("held-a", { runUntil: 60 }), queued("q1", -50, { size: 6 })],
      reason: /no scheduled release frees \(4 of maxSize 8, q1 needs 6\)/,
    },
    {
      name: "the last attempt's pods were Unschedulable",
      requests: [done("d"), queued("q1", -50, { status: { lastAttempt: { error: unschedulable } } })],
      replicas: 0,
      reason: /Unschedulable: .*0\/4 nodes are available: 4 Insufficient cpu/,
    },
    {
      name: "an attempt being rolled back (its backoff is not known yet)",
      requests: [
        done("d"),
        queued("q0", -60, {
          status: {
            provisioning: {
              attempt: 1,
              phase: "RollingBack",
              baseReplicas: 4,
              targetReplicas: 0,
              startedTime: at(-5),
            },
          },
        }),
        queued("q1", -50, { size: 1 }),
      ],
      replicas: 4,
      reason: /the attempt of q0 is being rolled back/,
    },
  ])("$name", ({ requests, replicas, reason }) => {
    const q = run({ requests, replicas });
    const last = q.requests.at(-1);
    expect(last?.eta).toEqual(unknown(reason));
  });

  test("a group that does not exist, or whose target is missing", () => {
    const requests = [done("d"), queued("q1", -50), queued("q2", -40)];
    const noGroup = run({ group: undefined, requests });
    expect(noGroup.requests.map((r) => [r.position, r.waitingFor, r.eta])).toEqual([
      [1, { kind: "GroupMissing", group: "pool" }, unknown(/the group does not exist/)],
      [2, { kind: "GroupMissing", group: "pool" }, unknown(/the group does not exist/)],
    ]);
    const noTarget = run({ target: undefined, requests });
    expect(noTarget.head?.waitingFor).toEqual({ kind: "TargetMissing", target: "Deployment/workers" });
    expect(noTarget.head?.eta).toEqual(unknown(/target is missing/));
  });

  test("everything behind an unknown ETA is unknown too", () => {
    const q = run({
      requests: [done("forever", { size: 8 }), queued("q1", -50), queued("q2", -40, { size: 1 })],
    });
    expect(q.requests.map((r) => r.eta.basis)).toEqual(["unknown", "unknown"]);
  });
});

describe("queueInsight(): positions and what each request waits for", () => {
  test("FIFO by creation time then name; final and cancelled requests are not in the queue", () => {
    const q = run({
      requests: [
        ...holding,
        queued("b", -50),
        queued("a", -50),
        queued("c", -60),
        queued("gone", -70, { cancel: true }),
        rr("failed", { created: -80, status: { state: "FAILED" } }),
        rr("new", { created: -10 }),
      ],
    });
    expect(q.requests.map((r) => [r.name, r.position, r.state])).toEqual([
      ["c", 1, "ACCEPTED"],
      ["a", 2, "ACCEPTED"],
      ["b", 3, "ACCEPTED"],
      ["new", 4, "CREATING"],
    ]);
    expect(q.queueLength).toBe(4);
    expect(q.head?.name).toBe("c");
    expect(q.requests[2]?.waitingFor).toEqual({ kind: "BehindHead", head: "c", ahead: 2 });
    expect(q.requests[2]?.waitingSince).toBe(T0 - 50 * SEC);
  });

  test("a request that could never fit under maxSize is left out (admission fails it)", () => {
    const q = run({
      requests: [done("d"), queued("huge", -60, { size: 9 }), queued("q1", -50, { size: 1 })],
      replicas: 4,
    });
    expect(q.requests.map((r) => r.name)).toEqual(["q1"]);
  });

  test.each([
    {
      name: "room under maxSize",
      head: queued("q1", -50, { size: 6 }),
      replicas: 5,
      waitingFor: { kind: "Capacity", needs: 6, room: 3, replicas: 5, maxSize: 8 },
    },
    {
      name: "a backoff",
      head: queued("q1", -50, { status: { nextAttemptTime: at(40) } }),
      replicas: 0,
      waitingFor: { kind: "Backoff", until: T0 + 40 * SEC },
    },
    {
      name: "a backoff that has passed: the next pass starts it",
      head: queued("q1", -50, { status: { nextAttemptTime: at(-1) } }),
      replicas: 0,
      waitingFor: { kind: "Starting" },
    },
    {
      name: "the scheduler, after an attempt failed on Unschedulable pods",
      head: queued("q1", -50, {
        status: {
          nextAttemptTime: at(20),
          lastAttempt: {
            error: { errors: [{ code: "ZONE_RESOURCE_POOL_EXHAUSTED", message: "0/4 nodes are available" }] },
          },
        },
      }),
      replicas: 0,
      waitingFor: { kind: "Unschedulable", message: "0/4 nodes are available", until: T0 + 20 * SEC },
    },
    {
      name: "its own attempt, with its phase",
      head: queued("q1", -50, {
        status: {
          provisioning: {
            attempt: 2,
            phase: "Applied",
            baseReplicas: 0,
            targetReplicas: 4,
            startedTime: at(-3),
          },
        },
      }),
      replicas: 4,
      waitingFor: { kind: "Attempt", attempt: 2, phase: "Applied", startedTime: T0 - 3 * SEC },
    },
  ])("the head waits for $name", ({ head, replicas, waitingFor }) => {
    expect(run({ requests: [done("d"), head], replicas }).head?.waitingFor).toEqual(waitingFor);
  });
});

describe("attemptHistory()", () => {
  test("median duration and success rate of the most recent successes only", () => {
    const old = Array.from({ length: 25 }, (_, i) => done(`old-${i}`, { succeeded: -10_000 - i, took: 500 }));
    const recent = [10, 20, 30, 40].map((took, i) =>
      done(`r-${i}`, { succeeded: -100 - i, took, attempts: i === 0 ? 2 : 1 }),
    );
    const history = attemptHistory([...old, ...recent]);
    // 20 samples: the 4 recent ones (10..40 s) and 16 old ones (500 s): the median is 500 s.
    expect(history).toEqual({ samples: 20, attemptDurationMs: 500_000, successRate: 20 / 21 });
    expect(attemptHistory(recent)).toEqual({ samples: 4, attemptDurationMs: 25_000, successRate: 4 / 5 });
    expect(attemptHistory([queued("q", 0)])).toBeUndefined();
  });
});

describe("queueInsight(): queue deadlines", () => {
  // Behind the two holders: q1 starts when held-a is released (+60 s), q2 when held-b is (+120 s).
  const requests = (q1Deadline?: string, groupDeadline?: string) => {
    const q1 = queued("q1", -30);
    return {
      group: group(groupDeadline === undefined ? {} : { maxQueueDuration: groupDeadline }),
      requests: [
        ...holding,
        q1Deadline === undefined ? q1 : { ...q1, spec: { ...q1.spec, maxQueueDuration: q1Deadline } },
        queued("q2", -20),
      ],
    };
  };

  test("no deadline: none reported, nothing missed", () => {
    const [q1, q2] = run(requests()).requests;
    expect([q1?.queueDeadline, q1?.missesDeadline, q2?.queueDeadline]).toEqual([undefined, false, undefined]);
  });

  test("the request's own deadline wins over the group's; one before the expected start is missed", () => {
    const [q1, q2] = run(requests("60s", "10m")).requests;
    // q1: created −30 s, 60 s → +30 s, before its start at +60 s.
    expect(q1).toMatchObject({ queueDeadline: T0 + 30 * SEC, missesDeadline: true });
    // q2 takes the group's 10 m: created −20 s → +580 s, after its start.
    expect(q2).toMatchObject({ queueDeadline: T0 + 580 * SEC, missesDeadline: false });
  });

  test("an unknown ETA never counts as missing the deadline", () => {
    // Capacity held by requests without a run duration never frees: the ETA is unknown.
    const { group: g, requests: all } = requests("1s");
    const [q1] = run({ group: g, requests: [done("forever"), done("forever-b"), ...all.slice(2)] }).requests;
    expect(q1?.eta.basis).toBe("unknown");
    expect(q1?.missesDeadline).toBe(false);
  });
});
