// decide(): the FIFO queue of a group (docs/design.md §4 "Queueing"): FIFO order, the single head, capacity,
// backoff, "one attempt per group at a time", and a queue that moves up without rewriting the requests
// waiting in it (no position is stored).
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import { fifo } from "../../../src/api/lifecycle.js";
import { backoffMs, decide } from "../../../src/controllers/resize/decide/index.js";
import type { RequestView } from "../../../src/cache/request-view.js";
import {
  CFG,
  MIN,
  SEC,
  T0,
  accepted,
  changeOf,
  cond,
  drive,
  group,
  identityOf,
  iso,
  provisioningStatus,
  queuedMessage,
  reasons,
  req,
  snap,
  statusAfter,
  statusOf,
  statusWrites,
} from "./builders.js";

const at = (offsetSec: number): number => T0 - 10 * MIN + offsetSec * SEC;

/** Three queued requests of 2 instances: c created first, then a and b at the same second. */
function threeQueued(extraA: Partial<Parameters<typeof accepted>[1]> = {}): RequestView[] {
  return [
    req("b", { created: at(5), status: accepted("b") }),
    req("a", { created: at(5), status: accepted("a", extraA) }),
    req("c", { created: at(1), status: accepted("c") }),
  ];
}

describe("fifo()", () => {
  test("orders by creationTimestamp, then by name", () => {
    const views = [req("b", { created: at(5) }), req("z", { created: at(1) }), req("a", { created: at(5) })];
    expect([...views].sort(fifo).map((r) => r.name)).toEqual(["z", "a", "b"]);
  });
});

/** Expects Queued=True with reason Queued and the stable message: waiting behind the head. */
function expectWaiting(status: Parameters<typeof cond>[0]): void {
  expect(status).toMatchObject({ state: "ACCEPTED", reason: "Queued" });
  expect(cond(status, RC.Queued)).toMatchObject({
    status: "True",
    reason: "Queued",
    message: queuedMessage(),
  });
  expect(cond(status, RC.Provisioning)).toMatchObject({ status: "False", reason: "Queued" });
}

describe("FIFO order", () => {
  test("three new requests: the oldest starts, the others are queued with no position anywhere", () => {
    const plan = decide(
      snap({
        replicas: 0,
        requests: [
          req("r3", { created: at(3) }),
          req("r1", { created: at(1) }),
          req("r2", { created: at(2) }),
          req("r4", { created: at(4) }),
        ],
      }),
    );
    expect(plan.scale).toEqual({ request: "r1", from: 0, replicas: 2 });
    expect(statusOf(plan, "r1").provisioning?.phase).toBe("Applying");
    expect(cond(statusOf(plan, "r1"), RC.Queued)).toMatchObject({ status: "False", reason: "Provisioning" });
    for (const n of ["r2", "r3", "r4"]) {
      expect(statusOf(plan, n).provisioning).toBeUndefined();
      expectWaiting(statusOf(plan, n));
      expect(reasons(plan, n)).toEqual(["Accepted"]);
    }
    // The three waiting requests carry the very same status apart from their identity.
    const waiting = ["r2", "r3", "r4"].map((n) => ({ ...statusOf(plan, n), ...identityOf("x") }));
    expect(waiting[1]).toEqual(waiting[0]);
    expect(waiting[2]).toEqual(waiting[0]);
    expect(plan.groupStatus).toMatchObject({
      queuedRequests: 3,
      activeRequests: 4,
      provisioningRequest: "r1",
    });
  });

  test("the head is the oldest request (creation time, then name): c, then a, then b", () => {
    // c was created first; a and b at the same second, a before b by name. Taking the head away each
    // time shows who is next: it starts when there is room, it alone waits for capacity when there is not.
    const heads: string[] = [];
    const waitingForCapacity: string[] = [];
    let requests = threeQueued();
    while (requests.length > 0) {
      const room = decide(snap({ replicas: 2, requests }));
      expect(room.scale).toBeDefined();
      const head = room.scale?.request ?? "";
      heads.push(head);
      const full = decide(snap({ replicas: 9, requests }));
      expect(full.scale).toBeUndefined();
      const waiting = requests.filter((r) => statusAfter(full, r).reason === "WaitingForCapacity");
      waitingForCapacity.push(...waiting.map((r) => r.name));
      for (const r of requests.filter((x) => x.name !== head)) expectWaiting(statusAfter(full, r));
      requests = requests.filter((r) => r.name !== head);
    }
    expect(heads).toEqual(["c", "a", "b"]);
    expect(waitingForCapacity).toEqual(["c", "a", "b"]);
  });

  test("while the head waits for capacity, only the head says so; the others are just queued", () => {
    const plan = decide(snap({ replicas: 9, requests: threeQueued() }));
    expect(plan.scale).toBeUndefined();
    expect(statusOf(plan, "c").reason).toBe("WaitingForCapacity");
    expect(cond(statusOf(plan, "c"), RC.Queued)).toMatchObject({
      status: "True",
      reason: "WaitingForCapacity",
    });
    expectWaiting(statusOf(plan, "a"));
    expectWaiting(statusOf(plan, "b"));
    expect(plan.groupStatus).toMatchObject({ queuedRequests: 3, activeRequests: 3 });
    expect(plan.groupStatus?.provisioningRequest).toBeUndefined();
    expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs * 5);
  });

  test("the head waits for capacity even though a smaller request behind it would fit", () => {
    const plan = decide(
      snap({
        replicas: 7,
        requests: [
          req("big", { resizeBy: 5, created: at(1), status: accepted("big") }),
          req("small", { resizeBy: 1, created: at(2), status: accepted("small") }),
        ],
      }),
    );
    expect(plan.scale).toBeUndefined();
    expect(statusAfter(plan, req("small")).provisioning).toBeUndefined();
    expect(statusOf(plan, "big").reason).toBe("WaitingForCapacity");
  });

  test("CREATING requests waiting for their target are not queued and not counted as queued", () => {
    // The target is missing: an admitted request waits in the queue, a new one stays CREATING.
    const plan = decide(
      snap({
        target: { found: false, reason: "NotFound", message: "gone" },
        requests: [
          req("old", { created: at(1), status: accepted("old") }),
          req("new", { created: T0 - 5 * SEC }),
        ],
      }),
    );
    expect(statusOf(plan, "new").state).toBe("CREATING");
    expect(cond(statusOf(plan, "new"), RC.Queued)).toBeUndefined();
    expect(statusAfter(plan, req("old")).state).toBe("ACCEPTED");
    expect(cond(statusAfter(plan, req("old")), RC.Queued)).toMatchObject({
      status: "True",
      reason: "TargetNotFound",
    });
    expect(plan.groupStatus).toMatchObject({ queuedRequests: 1, activeRequests: 2 });
    expect(plan.scale).toBeUndefined();
  });
});

describe("one attempt at a time", () => {
  const phases = [
    { phase: "Applying" as const, base: 2, target: 4, replicas: 2 },
    { phase: "Applying" as const, base: 2, target: 4, replicas: 4 },
    { phase: "Applied" as const, base: 2, target: 4, replicas: 4 },
    { phase: "RollingBack" as const, base: 4, target: 2, replicas: 4 },
  ];
  test.each(phases)(
    "while the head is $phase (target at $replicas), the others stay queued",
    ({ phase, base, target, replicas }) => {
      const requests = [
        req("head", {
          created: at(0),
          hasFinalizer: true,
          status: provisioningStatus("head", { phase, baseReplicas: base, targetReplicas: target }),
        }),
        req("second", { created: at(1), status: accepted("second") }),
        req("third", { created: at(2) }),
      ];
      const plan = decide(snap({ replicas, ready: 2, requests }));
      expect(plan.scale?.request ?? "head").toBe("head");
      expect(statusAfter(plan, requests[1] as RequestView).provisioning).toBeUndefined();
      expect(statusOf(plan, "third").provisioning).toBeUndefined();
      expectWaiting(statusAfter(plan, requests[1] as RequestView));
      expectWaiting(statusOf(plan, "third"));
      expect(plan.groupStatus).toMatchObject({
        queuedRequests: 2,
        activeRequests: 3,
        provisioningRequest: "head",
      });
      expect(reasons(plan, "second")).toEqual([]);
      expect(reasons(plan, "third")).toEqual(["Accepted"]);
      expect(changeOf(plan, "second")?.finalizer).toBeUndefined();
    },
  );

  test("a request behind the head never starts while the head's release is being applied", () => {
    const requests = [
      req("done", {
        created: at(0),
        status: {
          ...identityOf("done", at(0)),
          state: "SUCCEEDED",
          release: { phase: "Applying", baseReplicas: 4, targetReplicas: 2, startedTime: iso(T0 - SEC) },
        },
      }),
      req("next", { created: at(1), status: accepted("next") }),
    ];
    const plan = decide(snap({ replicas: 4, requests }));
    expect(plan.scale).toEqual({ request: "done", from: 4, replicas: 2 });
    expect(statusAfter(plan, requests[1] as RequestView).provisioning).toBeUndefined();
  });
});

describe("backoff", () => {
  test.each([
    { attempt: 1, expected: 10 * SEC },
    { attempt: 2, expected: 20 * SEC },
    { attempt: 3, expected: 40 * SEC },
    { attempt: 5, expected: 160 * SEC },
    { attempt: 6, expected: 5 * MIN },
    { attempt: 50, expected: 5 * MIN },
    { attempt: 5000, expected: 5 * MIN },
  ])("backoffMs(attempt $attempt) = $expected ms", ({ attempt, expected }) => {
    expect(backoffMs(attempt, CFG)).toBe(expected);
  });

  test("the head in backoff waits, with requeueAfterMs the time left", () => {
    const next = T0 + 7 * SEC;
    const plan = decide(
      snap({
        requests: threeQueued().map((r) =>
          r.name === "c"
            ? req("c", {
                created: at(1),
                status: accepted("c", { attempts: 1, nextAttemptTime: iso(next) }),
              })
            : r,
        ),
      }),
    );
    expect(plan.scale).toBeUndefined();
    expect(plan.requeueAfterMs).toBe(7 * SEC);
    const c = statusOf(plan, "c");
    expect(c.reason).toBe("Backoff");
    expect(c.nextAttemptTime).toBe(iso(next));
    expect(cond(c, RC.Queued)).toMatchObject({
      status: "True",
      reason: "Backoff",
      message: `The next attempt starts at ${iso(next)}.`,
    });
    // Nobody behind the head jumps ahead while it waits: they stay queued behind it.
    expect(statusAfter(plan, req("a")).provisioning).toBeUndefined();
    expect(statusAfter(plan, req("b")).provisioning).toBeUndefined();
    expectWaiting(statusOf(plan, "a"));
    expectWaiting(statusOf(plan, "b"));
  });

  test.each([
    ["passed", T0 - SEC],
    ["exactly now", T0],
  ])("the head whose backoff %s starts attempt n+1 and drops nextAttemptTime", (_label, nextAttempt) => {
    const plan = decide(
      snap({
        replicas: 2,
        requests: [
          req("c", {
            status: accepted("c", {
              attempts: 2,
              nextAttemptTime: iso(nextAttempt),
              lastAttempt: { error: { errors: [{ code: "PROVISIONING_TIMEOUT" }] } },
            }),
          }),
        ],
      }),
    );
    const c = statusOf(plan, "c");
    expect(plan.scale).toEqual({ request: "c", from: 2, replicas: 4 });
    expect(c.attempts).toBe(3);
    expect(c.provisioning).toMatchObject({
      attempt: 3,
      phase: "Applying",
      baseReplicas: 2,
      targetReplicas: 4,
    });
    expect(c.nextAttemptTime).toBeUndefined();
    expect(cond(c, RC.Queued)).toMatchObject({ status: "False", reason: "Provisioning" });
    expect(changeOf(plan, "c")?.finalizer).toBe("add");
    expect(reasons(plan, "c")).toEqual(["ProvisioningStarted"]);
  });

  test("the head waits for capacity before looking at its backoff", () => {
    const plan = decide(
      snap({
        replicas: 9,
        requests: [req("c", { status: accepted("c", { nextAttemptTime: iso(T0 + MIN) }) })],
      }),
    );
    expect(statusOf(plan, "c").reason).toBe("WaitingForCapacity");
  });
});

describe("a steady queue is not rewritten", () => {
  test("deciding again on the output of a waiting queue writes nothing and emits nothing", () => {
    const first = decide(snap({ replicas: 9, requests: threeQueued() }));
    const again = decide(
      snap({
        now: T0 + 5 * SEC,
        replicas: 9,
        requests: threeQueued().map((r) => ({ ...r, status: statusAfter(first, r) })),
      }),
    );
    expect(again.requests).toEqual([]);
    expect(again.events).toEqual([]);
    expect(again.scale).toBeUndefined();
  });
});

describe("a queue moving up rewrites none of the requests waiting in it", () => {
  // Nothing position-dependent is stored: a waiting request is written when it is admitted, and next
  // when it starts (or its head reason changes), never because a request ahead of it finished. Writing
  // positions cost n(n-1)/2 status writes for n queued requests.
  test("five requests drained one by one: each is written once while waiting, at its admission", async () => {
    const names = ["r1", "r2", "r3", "r4", "r5"];
    const requests = names.map((n, i) => req(n, { resizeBy: 2, created: at(i + 1) }));
    const r = await drive(snap({ replicas: 0, requests }));
    expect(r.violations).toEqual([]);
    expect(r.quiet).toBe(true);
    const startedAt = (n: string): number =>
      r.steps.findIndex((st) =>
        st.plan.events.some((e) => e.request === n && e.event.reason === "ProvisioningStarted"),
      );
    expect(names.map(startedAt)).toEqual([...names.map(startedAt)].sort((x, y) => x - y));
    const writesWhileWaiting = names.map(
      (n) => r.steps.slice(0, startedAt(n)).filter((st) => statusWrites(st.plan).includes(n)).length,
    );
    // r1 is admitted and started in the same decision; the others only get their admission write.
    expect(writesWhileWaiting).toEqual([0, 1, 1, 1, 1]);
    // No decision rewrites a request that waits before and after it for the same reason.
    const rewrites = r.steps.flatMap((st) =>
      st.before.requests
        .filter((w) => cond(w.status, RC.Queued)?.status === "True" && statusWrites(st.plan).includes(w.name))
        .filter((w) => {
          const after = statusAfter(st.plan, w);
          return cond(after, RC.Queued)?.status === "True" && after.reason === w.status.reason;
        })
        .map((w) => `step ${st.index}: ${w.name}`),
    );
    expect(rewrites).toEqual([]);
    expect(names.map((n) => r.final.requests.find((x) => x.name === n)?.status.state)).toEqual(
      names.map(() => "SUCCEEDED"),
    );
  });
});

describe("the queue after a group change", () => {
  test("maxSize raised: the waiting head starts at once", () => {
    const plan = decide(snap({ group: group({ maxSize: 20 }), replicas: 9, requests: threeQueued() }));
    expect(plan.scale).toEqual({ request: "c", from: 9, replicas: 11 });
  });
  test("maxSize removed: no capacity limit", () => {
    const plan = decide(
      snap({ group: group({ maxSize: undefined }), replicas: 100, requests: threeQueued() }),
    );
    expect(plan.scale).toEqual({ request: "c", from: 100, replicas: 102 });
  });
  test("an admitted request whose target disappears keeps its place and waits", () => {
    const plan = decide(
      snap({
        target: { found: false, reason: "NotFound", message: "gone" },
        requests: [req("c", { status: accepted("c") })],
      }),
    );
    const c = statusOf(plan, "c");
    expect(c.state).toBe("ACCEPTED");
    expect(c.reason).toBe("TargetNotFound");
    expect(c.error).toBeUndefined();
    expect(plan.scale).toBeUndefined();
  });
});
