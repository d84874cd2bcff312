// decide(): the FIFO queue of a group (DESIGN §4 "Queueing"): positions, the single head, capacity,
// backoff, and "one attempt per group at a time".
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import { backoffMs, decide, fifo } from "../../../src/controller/decide.js";
import type { RequestView } from "../../../src/controller/snapshot.js";
import {
  CFG,
  MIN,
  SEC,
  T0,
  accepted,
  changeOf,
  cond,
  group,
  identityOf,
  iso,
  provisioningStatus,
  reasons,
  req,
  snap,
  statusAfter,
  statusOf,
} from "./builders.js";

const at = (offsetSec: number): number => T0 - 10 * MIN + offsetSec * SEC;

/** Three queued requests of 2 instances: c created first, then a and b at the same second. */
function threeQueued(extraA: Partial<Parameters<typeof accepted>[1]> = {}): RequestView[] {
  return [
    req("b", { created: at(5), status: accepted("b", { queuePosition: 3 }) }),
    req("a", { created: at(5), status: accepted("a", { queuePosition: 2, ...extraA }) }),
    req("c", { created: at(1), status: accepted("c", { queuePosition: 1 }) }),
  ];
}

describe("fifo()", () => {
  test("orders by creationTimestamp, then by name", () => {
    const views = [req("b", { created: at(5) }), req("z", { created: at(1) }), req("a", { created: at(5) })];
    expect([...views].sort(fifo).map((r) => r.name)).toEqual(["z", "a", "b"]);
  });
});

describe("queue positions", () => {
  test("three new requests get positions in creation order; only the head starts", () => {
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
      CFG,
    );
    expect(plan.scale).toEqual({ request: "r1", from: 0, replicas: 2 });
    expect(statusOf(plan, "r1").provisioning?.phase).toBe("Applying");
    expect(statusOf(plan, "r1").queuePosition).toBeUndefined();
    expect(["r2", "r3", "r4"].map((n) => statusOf(plan, n).queuePosition)).toEqual([1, 2, 3]);
    for (const n of ["r2", "r3", "r4"]) {
      expect(statusOf(plan, n).provisioning).toBeUndefined();
      expect(statusOf(plan, n).reason).toBe("Queued");
      expect(reasons(plan, n)).toEqual(["Accepted"]);
    }
  });

  test("while the head waits for capacity, the queue is 1, 2, 3 by creation time then name", () => {
    const plan = decide(snap({ replicas: 9, requests: threeQueued() }), CFG);
    const positions = ["c", "a", "b"].map((n) => statusAfter(plan, req(n, { status: {} })).queuePosition);
    expect(positions).toEqual([1, 2, 3]);
    expect(plan.scale).toBeUndefined();
    expect(statusOf(plan, "c").reason).toBe("WaitingForCapacity");
    expect(cond(statusOf(plan, "c"), RC.Queued)).toMatchObject({
      status: "True",
      reason: "WaitingForCapacity",
    });
    expect(statusOf(plan, "a").reason).toBe("Queued");
    expect(statusOf(plan, "b").reason).toBe("Queued");
    expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs * 5);
  });

  test("the head waits for capacity even though a smaller request behind it would fit", () => {
    const plan = decide(
      snap({
        replicas: 7,
        requests: [
          req("big", { resizeBy: 5, created: at(1), status: accepted("big", { queuePosition: 1 }) }),
          req("small", { resizeBy: 1, created: at(2), status: accepted("small", { queuePosition: 2 }) }),
        ],
      }),
      CFG,
    );
    expect(plan.scale).toBeUndefined();
    expect(statusAfter(plan, req("small")).provisioning).toBeUndefined();
    expect(statusOf(plan, "big").reason).toBe("WaitingForCapacity");
  });

  test("CREATING requests waiting for their target do not take a queue position", () => {
    // The target is missing: an admitted request waits in the queue, a new one stays CREATING.
    const plan = decide(
      snap({
        target: { found: false, reason: "NotFound", message: "gone" },
        requests: [
          req("old", { created: at(1), status: accepted("old", { queuePosition: 1 }) }),
          req("new", { created: T0 - 5 * SEC }),
        ],
      }),
      CFG,
    );
    expect(statusOf(plan, "new").state).toBe("CREATING");
    expect(statusOf(plan, "new").queuePosition).toBeUndefined();
    expect(statusAfter(plan, req("old")).state).toBe("ACCEPTED");
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
    "while the head is $phase (target at $replicas), the others only get queue positions",
    ({ phase, base, target, replicas }) => {
      const requests = [
        req("head", {
          created: at(0),
          hasFinalizer: true,
          status: provisioningStatus("head", { phase, baseReplicas: base, targetReplicas: target }),
        }),
        req("second", { created: at(1), status: accepted("second", { queuePosition: 1 }) }),
        req("third", { created: at(2) }),
      ];
      const plan = decide(snap({ replicas, ready: 2, requests }), CFG);
      expect(plan.scale?.request ?? "head").toBe("head");
      expect(statusAfter(plan, requests[1] as RequestView).provisioning).toBeUndefined();
      expect(statusOf(plan, "third").provisioning).toBeUndefined();
      expect(statusAfter(plan, requests[1] as RequestView).queuePosition).toBe(1);
      expect(statusOf(plan, "third").queuePosition).toBe(2);
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
      req("next", { created: at(1), status: accepted("next", { queuePosition: 1 }) }),
    ];
    const plan = decide(snap({ replicas: 4, requests }), CFG);
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
                status: accepted("c", { queuePosition: 1, attempts: 1, nextAttemptTime: iso(next) }),
              })
            : r,
        ),
      }),
      CFG,
    );
    expect(plan.scale).toBeUndefined();
    expect(plan.requeueAfterMs).toBe(7 * SEC);
    const c = statusOf(plan, "c");
    expect(c.reason).toBe("Backoff");
    expect(c.queuePosition).toBe(1);
    expect(c.nextAttemptTime).toBe(iso(next));
    expect(cond(c, RC.Queued)).toMatchObject({ status: "True", reason: "Backoff" });
    // Nobody behind the head jumps ahead while it waits.
    expect(statusAfter(plan, req("a")).provisioning).toBeUndefined();
    expect(statusAfter(plan, req("b")).provisioning).toBeUndefined();
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
              queuePosition: 1,
              attempts: 2,
              nextAttemptTime: iso(nextAttempt),
              lastAttempt: { error: { errors: [{ code: "PROVISIONING_TIMEOUT" }] } },
            }),
          }),
        ],
      }),
      CFG,
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
    expect(c.queuePosition).toBeUndefined();
    expect(changeOf(plan, "c")?.finalizer).toBe("add");
    expect(reasons(plan, "c")).toEqual(["ProvisioningStarted"]);
  });

  test("the head waits for capacity before looking at its backoff", () => {
    const plan = decide(
      snap({
        replicas: 9,
        requests: [req("c", { status: accepted("c", { queuePosition: 1, nextAttemptTime: iso(T0 + MIN) }) })],
      }),
      CFG,
    );
    expect(statusOf(plan, "c").reason).toBe("WaitingForCapacity");
  });
});

describe("a steady queue is not rewritten", () => {
  test("deciding again on the output of a waiting queue writes nothing and emits nothing", () => {
    const first = decide(snap({ replicas: 9, requests: threeQueued() }), CFG);
    const again = decide(
      snap({
        now: T0 + 5 * SEC,
        replicas: 9,
        requests: threeQueued().map((r) => ({ ...r, status: statusAfter(first, r) })),
      }),
      CFG,
    );
    expect(again.requests).toEqual([]);
    expect(again.events).toEqual([]);
    expect(again.scale).toBeUndefined();
  });
});

describe("the queue after a group change", () => {
  test("maxSize raised: the waiting head starts at once", () => {
    const plan = decide(snap({ group: group({ maxSize: 20 }), replicas: 9, requests: threeQueued() }), CFG);
    expect(plan.scale).toEqual({ request: "c", from: 9, replicas: 11 });
  });
  test("maxSize removed: no capacity limit", () => {
    const plan = decide(
      snap({ group: group({ maxSize: undefined }), replicas: 100, requests: threeQueued() }),
      CFG,
    );
    expect(plan.scale).toEqual({ request: "c", from: 100, replicas: 102 });
  });
  test("an admitted request whose target disappears keeps its place and waits", () => {
    const plan = decide(
      snap({
        target: { found: false, reason: "NotFound", message: "gone" },
        requests: [req("c", { status: accepted("c", { queuePosition: 1 }) })],
      }),
      CFG,
    );
    const c = statusOf(plan, "c");
    expect(c.state).toBe("ACCEPTED");
    expect(c.reason).toBe("TargetNotFound");
    expect(c.error).toBeUndefined();
    expect(plan.scale).toBeUndefined();
  });
});
