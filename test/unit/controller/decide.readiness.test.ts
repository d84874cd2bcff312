// decide() for a group whose ready count comes from Nodes: while the operator may not read them
// (readinessUnavailable), the group says so in its Ready condition and one Warning event, its queue is
// held, and no attempt succeeds; with the count, an attempt succeeds exactly when all its instances
// are ready.
import {
  InstanceGroupManagerCondition as GC,
  ResizeRequestCondition as RC,
} from "../../../src/api/conditions.js";
import { INSTANCE_GROUP_MANAGERS } from "../../../src/api/kinds.js";
import { decide, type Plan } from "../../../src/controllers/resize/decide/index.js";
import { NODES_FORBIDDEN_MESSAGE } from "../../../src/targets/node-informers.js";
import { NODE_READINESS_FORBIDDEN, type HeldBack } from "../../../src/targets/node-readiness.js";
import type { TargetView } from "../../../src/targets/view.js";
import { conflictError } from "../../support/fake-kube.js";
import {
  accepted,
  appliedRequest,
  CFG,
  cond,
  iso,
  MIN,
  reasons,
  req,
  SEC,
  snap,
  statusOf,
  T0,
} from "./builders.js";
import { execute } from "./cluster.js";

const unavailable = (replicas: number, readyReplicas = 0): TargetView => ({
  found: true,
  replicas,
  readyReplicas,
  readinessUnavailable: { reason: NODE_READINESS_FORBIDDEN, message: NODES_FORBIDDEN_MESSAGE },
});

const applied = (appliedMs: number, deadlineMs: number) =>
  appliedRequest("a", { appliedTime: iso(appliedMs), deadline: iso(deadlineMs) });

describe("the operator may not read the Nodes a group counts", () => {
  test("the head of the queue is held, saying why; nothing is scaled", () => {
    const plan = decide(snap({ target: unavailable(2), requests: [req("a", { status: accepted("a") })] }));
    const status = statusOf(plan, "a");
    expect(status).toMatchObject({ state: "ACCEPTED", reason: NODE_READINESS_FORBIDDEN });
    expect(cond(status, RC.Queued)).toMatchObject({
      status: "True",
      reason: NODE_READINESS_FORBIDDEN,
      message: `The queue is held: ${NODES_FORBIDDEN_MESSAGE}.`,
    });
    expect(plan.scale).toBeUndefined();
    expect(plan.requeueAfterMs).toBe(5 * CFG.pollIntervalMs);
  });

  test("a new request is admitted and waits (the request is valid; the group cannot serve it yet)", () => {
    const late = T0 + 10 * MIN;
    const plan = decide(
      snap({
        now: late,
        target: unavailable(2),
        requests: [req("a", { created: T0 }), req("b", { created: T0 + SEC })],
      }),
    );
    expect(statusOf(plan, "a")).toMatchObject({ state: "ACCEPTED", reason: NODE_READINESS_FORBIDDEN });
    expect(statusOf(plan, "b")).toMatchObject({ state: "ACCEPTED", reason: "Queued" });
    expect(reasons(plan)).toEqual(["Accepted", "Accepted"]);
  });

  test("an attempt already Applied never succeeds, whatever the count, and rolls back at its deadline", () => {
    const waiting = decide(snap({ target: unavailable(5, 5), requests: [applied(T0 - MIN, T0 + MIN)] }));
    expect(statusOf(waiting, "a")).toMatchObject({ state: "ACCEPTED", reason: "WaitingForInstances" });
    expect(waiting.scale).toBeUndefined();
    const timedOut = decide(snap({ target: unavailable(5), requests: [applied(T0 - 10 * MIN, T0)] }));
    expect(timedOut.scale).toEqual({ request: "a", from: 5, replicas: 2 });
    expect(reasons(timedOut, "a")).toEqual(["AttemptFailed"]);
  });

  test("the group's Ready condition is False with the reason, and a Warning event regarding the group", async () => {
    const s = snap({ target: unavailable(2) });
    const plan = decide(s);
    expect(plan.groupStatus?.conditions?.find((c) => c.type === GC.Ready)).toMatchObject({
      status: "False",
      reason: NODE_READINESS_FORBIDDEN,
      message: NODES_FORBIDDEN_MESSAGE,
    });
    const done = await execute(s, plan);
    expect(done.outcome).toBe("done");
    expect(done.groupStatus?.conditions?.find((c) => c.type === GC.Ready)?.reason).toBe(
      NODE_READINESS_FORBIDDEN,
    );
    expect(done.emitted).toEqual([
      expect.objectContaining({
        type: "Warning",
        reason: NODE_READINESS_FORBIDDEN,
        note: NODES_FORBIDDEN_MESSAGE,
        regarding: expect.objectContaining({ kind: "InstanceGroupManager", name: "pool" }) as unknown,
      }),
    ]);

    // Once: the next pass finds the condition already so.
    const again = decide({ ...s, groupStatus: done.groupStatus });
    expect(again.groupEvents).toEqual([]);
    // And again when it turns so after having been fine.
    const fine = decide({ ...snap(), groupStatus: done.groupStatus });
    expect(fine.groupStatus?.conditions?.find((c) => c.type === GC.Ready)?.status).toBe("True");
    expect(decide({ ...s, groupStatus: fine.groupStatus }).groupEvents.map((e) => e.event.reason)).toEqual([
      NODE_READINESS_FORBIDDEN,
    ]);
  });

  test("the event goes with the status it explains: not emitted when the group's status write fails", async () => {
    const s = snap({ target: unavailable(2) });
    const plan = decide(s);
    const cut = await execute(s, plan, {
      inject: {
        match: (c) => c.verb === "updateStatus" && c.resource === INSTANCE_GROUP_MANAGERS.resource,
        when: "before",
        error: conflictError,
      },
    });
    expect(cut.outcome).toBe("conflict");
    expect(cut.emitted).toEqual([]);
  });
});

describe("counted from Nodes", () => {
  test.each([
    { ready: 4, state: "ACCEPTED" },
    { ready: 5, state: "SUCCEEDED" },
    { ready: 6, state: "SUCCEEDED" },
  ])("an Applied attempt to 5 with $ready ready Nodes: $state", ({ ready, state }) => {
    const plan = decide(snap({ replicas: 5, ready, requests: [applied(T0 - MIN, T0 + MIN)] }));
    expect(statusOf(plan, "a").state).toBe(state);
  });
});

describe("Ready Nodes that do not count", () => {
  const TAINT = "example.com/t=x:NoSchedule";
  const heldBack: HeldBack = {
    total: 2,
    nodes: [
      { node: "node-x", reason: "UndeclaredTaint", taint: TAINT },
      { node: "node-y", reason: "UndeclaredTaint", taint: TAINT },
    ],
  };
  const SENTENCE = `2 selected Nodes do not count: node-x, node-y carry the taint ${TAINT} that spec.instanceShape.taints does not declare.`;
  const counted = (replicas: number, ready: number, h: HeldBack = heldBack): TargetView => ({
    found: true,
    replicas,
    readyReplicas: ready,
    heldBack: h,
  });
  const heldBackOf = (plan: Plan) =>
    plan.groupStatus?.conditions?.find((c) => c.type === GC.InstancesHeldBack);

  test("the waiting request names the Nodes and why", () => {
    const plan = decide(snap({ target: counted(5, 2), requests: [applied(T0 - MIN, T0 + MIN)] }));
    expect(cond(statusOf(plan, "a"), RC.Provisioning)).toMatchObject({
      reason: "WaitingForInstances",
      message: `Waiting for 5 instances to be ready (2 are). ${SENTENCE}`,
    });
  });

  test("none held back: the message is as before", () => {
    const none = counted(5, 2, { total: 0, nodes: [] });
    const plan = decide(snap({ target: none, requests: [applied(T0 - MIN, T0 + MIN)] }));
    expect(cond(statusOf(plan, "a"), RC.Provisioning)?.message).toBe(
      "Waiting for 5 instances to be ready (2 are).",
    );
  });

  test("the group's condition says so, and one Warning event regarding the group, on the transition only", async () => {
    const s = snap({ target: counted(2, 0) });
    const plan = decide(s);
    expect(heldBackOf(plan)).toMatchObject({ status: "True", reason: "UndeclaredTaint", message: SENTENCE });
    const done = await execute(s, plan);
    expect(done.outcome).toBe("done");
    expect(done.emitted).toEqual([
      expect.objectContaining({
        type: "Warning",
        reason: "InstancesHeldBack",
        note: SENTENCE,
        regarding: expect.objectContaining({ kind: "InstanceGroupManager", name: "pool" }) as unknown,
      }),
    ]);
    // Not on every pass, nor when only the Nodes change.
    expect(decide({ ...s, groupStatus: done.groupStatus }).groupEvents).toEqual([]);
    const more = snap({ target: counted(2, 0, { ...heldBack, total: 3 }) });
    const moved = decide({ ...more, groupStatus: done.groupStatus });
    expect(heldBackOf(moved)?.message).toContain("and 1 more");
    expect(moved.groupEvents).toEqual([]);
    // Lifted: False, no event; held back again: one more.
    const fine = decide({
      ...snap({ target: counted(2, 2, { total: 0, nodes: [] }) }),
      groupStatus: done.groupStatus,
    });
    expect(heldBackOf(fine)).toMatchObject({ status: "False", reason: "NoneHeldBack" });
    expect(fine.groupEvents).toEqual([]);
    expect(decide({ ...s, groupStatus: fine.groupStatus }).groupEvents.map((e) => e.event.reason)).toEqual([
      "InstancesHeldBack",
    ]);
  });

  test.each<[string, HeldBack, string[]]>([
    [
      "cordoned: a person lifts it",
      { total: 1, nodes: [{ node: "c", reason: "Cordoned" }] },
      ["InstancesHeldBack"],
    ],
    [
      "registering: Karpenter lifts it within seconds, no event",
      {
        total: 1,
        nodes: [{ node: "r", reason: "NotRegistered", taint: "karpenter.sh/unregistered:NoExecute" }],
      },
      [],
    ],
    ["not Ready yet: not held back", { total: 1, nodes: [{ node: "n", reason: "NotReady" }] }, []],
  ])("%s", (_name, h, events) => {
    const plan = decide(snap({ target: counted(2, 1, h) }));
    expect(plan.groupEvents.map((e) => e.event.reason)).toEqual(events);
  });

  test("a group reading a field gets no InstancesHeldBack condition, and loses one it had", () => {
    expect(heldBackOf(decide(snap()))).toBeUndefined();
    const held = decide(snap({ target: counted(2, 0) })).groupStatus;
    expect(heldBackOf(decide({ ...snap(), groupStatus: held }))).toBeUndefined();
  });

  test("the count unknown now (Nodes it may not read): the condition stays as it was", () => {
    const held = decide(snap({ target: counted(2, 0) })).groupStatus;
    const refused = decide({ ...snap({ target: unavailable(2) }), groupStatus: held });
    expect(heldBackOf(refused)).toMatchObject({ status: "True", reason: "UndeclaredTaint" });
  });
});
