// decide(): admission of new requests (docs/design.md §4 "Admission") and the first attempt that starts in
// the same decision when the new request is the head and the group has room.
import { ResizeRequestCondition as RC } from "../../../src/api/conditions.js";
import { ErrorCode } from "../../../src/api/errors.js";
import { GROUP } from "../../../src/api/names.js";
import { decide } from "../../../src/controllers/resize/decide/index.js";
import {
  CFG,
  GROUP_NAME,
  MIN,
  SEC,
  T0,
  ZONE,
  changeOf,
  cond,
  group,
  identityOf,
  iso,
  notFoundTarget,
  notScalableTarget,
  queuedMessage,
  reasons,
  req,
  snap,
  statusOf,
  type SnapshotOptions,
} from "./builders.js";

const createdAt = T0 - 10 * SEC; // within the 30s admission grace at T0
const createdLongAgo = T0 - 31 * SEC; // past the grace at T0

describe("admission of a new request (no status)", () => {
  interface WaitCase {
    readonly name: string;
    readonly snapshot: Omit<SnapshotOptions, "requests">;
    readonly reason: string;
  }
  const waits: WaitCase[] = [
    { name: "group missing", snapshot: { group: null }, reason: "GroupNotFound" },
    { name: "target NotFound", snapshot: { target: notFoundTarget }, reason: "TargetNotFound" },
  ];

  describe.each(waits)("$name within the admission grace", ({ snapshot, reason }) => {
    const plan = decide(snap({ ...snapshot, requests: [req("a", { created: createdAt })] }));
    const status = statusOf(plan, "a");

    test("stays CREATING with the reason and Accepted=Unknown", () => {
      expect(status.state).toBe("CREATING");
      expect(status.reason).toBe(reason);
      expect(cond(status, RC.Accepted)).toMatchObject({ status: "Unknown", reason });
      expect(status.error).toBeUndefined();
    });
    test("emits WaitingForGroup once and requeues at the end of the grace", () => {
      expect(reasons(plan, "a")).toEqual(["WaitingForGroup"]);
      expect(plan.requeueAfterMs).toBe(CFG.admissionGraceMs - 10 * SEC);
      expect(plan.scale).toBeUndefined();
      expect(changeOf(plan, "a")?.finalizer).toBeUndefined();
    });
    test("a second decision on its own output emits nothing and writes nothing", () => {
      const again = decide(
        snap({ ...snapshot, now: T0 + SEC, requests: [req("a", { created: createdAt, status })] }),
      );
      expect(again.events).toEqual([]);
      expect(again.requests).toEqual([]);
      expect(again.requeueAfterMs).toBe(CFG.admissionGraceMs - 11 * SEC);
    });
  });

  describe.each(waits)("$name after the admission grace", ({ snapshot, reason }) => {
    test.each([
      ["a new request", {}],
      ["a request that waited in CREATING", { state: "CREATING" as const, reason }],
    ])("%s fails with RESOURCE_NOT_FOUND", (_label, initial) => {
      const plan = decide(
        snap({ ...snapshot, requests: [req("a", { created: createdLongAgo, status: initial })] }),
      );
      const status = statusOf(plan, "a");
      expect(status.state).toBe("FAILED");
      expect(status.reason).toBe(reason);
      expect(status.error?.errors[0]?.code).toBe(ErrorCode.RESOURCE_NOT_FOUND);
      expect(status.error?.errors[0]?.errorDetails?.[0]?.errorInfo?.reason).toBe("RESOURCE_NOT_FOUND");
      expect(cond(status, RC.Failed)).toMatchObject({ status: "True", reason });
      expect(reasons(plan, "a")).toEqual(["AdmissionFailed"]);
      expect(plan.scale).toBeUndefined();
    });
  });

  test("exactly at the end of the grace the request fails (grace is a half-open interval)", () => {
    const plan = decide(snap({ group: null, requests: [req("a", { created: T0 - CFG.admissionGraceMs })] }));
    expect(statusOf(plan, "a").state).toBe("FAILED");
  });

  test("the group-missing message names the group and the namespace", () => {
    const plan = decide(snap({ group: null, requests: [req("a", { created: createdLongAgo })] }));
    expect(statusOf(plan, "a").error?.errors[0]?.message).toContain(GROUP_NAME);
    expect(statusOf(plan, "a").error?.errors[0]?.message).toContain("team-a");
  });

  test.each([
    ["within the grace", createdAt],
    ["after the grace", createdLongAgo],
  ])("target NotScalable %s → FAILED UNSUPPORTED_OPERATION at once", (_label, created) => {
    const plan = decide(snap({ target: notScalableTarget, requests: [req("a", { created })] }));
    const status = statusOf(plan, "a");
    expect(status.state).toBe("FAILED");
    expect(status.reason).toBe("TargetNotScalable");
    expect(status.error?.errors[0]).toMatchObject({
      code: ErrorCode.UNSUPPORTED_OPERATION,
      message: notScalableTarget.found ? "" : notScalableTarget.message,
    });
    expect(reasons(plan, "a")).toEqual(["AdmissionFailed"]);
    expect(plan.scale).toBeUndefined();
  });

  describe("resizeBy larger than maxSize → FAILED QUOTA_EXCEEDED", () => {
    const cases = [
      { label: "resizeBy 11 > maxSize 10", opts: { resizeBy: 11 }, maxSize: 10, k: 11 },
      { label: "resizeBy 1 > maxSize 0", opts: { resizeBy: 1 }, maxSize: 0, k: 1 },
      {
        label: "3 named instances > maxSize 2",
        opts: { instances: ["workers-1", "workers-2", "workers-3"] },
        maxSize: 2,
        k: 3,
      },
    ];
    test.each(cases)("$label", ({ opts, maxSize, k }) => {
      const plan = decide(
        snap({
          group: group({ maxSize, targetKind: "StatefulSet" }),
          replicas: 0,
          requests: [req("a", opts)],
        }),
      );
      const status = statusOf(plan, "a");
      expect(status.state).toBe("FAILED");
      expect(status.reason).toBe("QuotaExceeded");
      const error = status.error?.errors[0];
      expect(error?.code).toBe(ErrorCode.QUOTA_EXCEEDED);
      expect(error?.message).toContain(`${k} instances`);
      expect(error?.errorDetails).toEqual([
        {
          quotaInfo: {
            metricName: `${GROUP}/instances`,
            limitName: "maxSize",
            dimensions: { zone: ZONE, instanceGroupManager: GROUP_NAME },
            limit: maxSize,
          },
        },
      ]);
      expect(status.lastAttempt).toBeUndefined();
      expect(reasons(plan, "a")).toEqual(["AdmissionFailed"]);
      expect(plan.scale).toBeUndefined();
    });

    test.each([
      ["resizeBy == maxSize", { resizeBy: 10 }],
      ["no maxSize at all", { resizeBy: 1000 }],
    ])("%s is admitted", (label, opts) => {
      const g = label === "no maxSize at all" ? group({ maxSize: undefined }) : group();
      const plan = decide(snap({ group: g, replicas: 0, requests: [req("a", opts)] }));
      expect(statusOf(plan, "a").state).toBe("ACCEPTED");
    });

    test("a queued request that no longer fits a lowered maxSize fails on re-validation", () => {
      const plan = decide(
        snap({
          group: group({ maxSize: 3 }),
          replicas: 3,
          requests: [req("a", { resizeBy: 4, status: { ...identityOf("a"), state: "ACCEPTED" } })],
        }),
      );
      const status = statusOf(plan, "a");
      expect(status.state).toBe("FAILED");
      expect(status.error?.errors[0]?.code).toBe(ErrorCode.QUOTA_EXCEEDED);
      expect(cond(status, RC.Queued)).toBeUndefined();
      expect(plan.groupStatus).toMatchObject({ queuedRequests: 0, activeRequests: 0 });
    });
  });

  describe("admitted, head of the queue, room available: the first attempt starts in the same decision", () => {
    const cases = [
      { label: "resizeBy 3 from 2", opts: { resizeBy: 3 }, base: 2, k: 3 },
      {
        label: "instances [workers-0, workers-1] from 0",
        opts: { instances: ["workers-0", "workers-1"] },
        base: 0,
        k: 2,
      },
      { label: "resizeBy 8 from 2 (exactly maxSize)", opts: { resizeBy: 8 }, base: 2, k: 8 },
    ];
    test.each(cases)("$label", ({ opts, base, k }) => {
      // A StatefulSet (named instances are its next ordinals, api/instance-names.ts).
      const plan = decide(
        snap({ group: group({ targetKind: "StatefulSet" }), replicas: base, requests: [req("a", opts)] }),
      );
      const change = changeOf(plan, "a");
      const status = statusOf(plan, "a");
      expect(status.state).toBe("ACCEPTED");
      expect(status.reason).toBe("Provisioning");
      expect(status.attempts).toBe(1);
      expect(status.provisioning).toEqual({
        attempt: 1,
        phase: "Applying",
        baseReplicas: base,
        targetReplicas: base + k,
        startedTime: iso(T0),
        deadline: iso(T0 + 10 * MIN),
      });
      expect(change?.finalizer).toBe("add");
      expect(plan.scale).toEqual({ request: "a", from: base, replicas: base + k });
      // Admitted and started in one pass: one Event whose note tells both steps.
      expect(reasons(plan, "a")).toEqual(["ProvisioningStarted"]);
      expect(plan.events.find((e) => e.request === "a")?.note).toMatch(
        /^Admitted to the queue of group .+ for \d+ instances\. Attempt 1: raising /,
      );
      expect(cond(status, RC.Accepted)).toMatchObject({ status: "True" });
      expect(cond(status, RC.Provisioning)).toMatchObject({ status: "True", reason: "Provisioning" });
      expect(cond(status, RC.Queued)).toMatchObject({ status: "False" });
      expect(plan.requeueAfterMs).toBe(CFG.pollIntervalMs);
    });

    test("the deadline follows the group's provisioningTimeout", () => {
      const plan = decide(snap({ group: group({ provisioningTimeoutMs: 90 * SEC }), requests: [req("a")] }));
      expect(statusOf(plan, "a").provisioning?.deadline).toBe(iso(T0 + 90 * SEC));
    });

    test("the new status carries kind, id, creation time, zone and self links", () => {
      const plan = decide(snap({ requests: [req("a")] }));
      expect(statusOf(plan, "a")).toMatchObject(identityOf("a"));
    });

    test("a request that is not the head is admitted and queued, with no scale of its own", () => {
      const plan = decide(
        snap({
          requests: [req("b", { created: T0 - 5 * SEC }), req("a", { created: T0 - 9 * SEC })],
        }),
      );
      expect(plan.scale?.request).toBe("a");
      const b = statusOf(plan, "b");
      expect(b.state).toBe("ACCEPTED");
      expect(b.reason).toBe("Queued");
      expect(b.provisioning).toBeUndefined();
      expect(cond(b, RC.Queued)).toMatchObject({
        status: "True",
        reason: "Queued",
        message: queuedMessage(),
      });
      expect(plan.groupStatus).toMatchObject({
        queuedRequests: 1,
        activeRequests: 2,
        provisioningRequest: "a",
      });
      expect(reasons(plan, "b")).toEqual(["Accepted"]);
      expect(changeOf(plan, "b")?.finalizer).toBeUndefined();
    });

    test("admitted but no room: ACCEPTED, WaitingForCapacity, no scale", () => {
      const plan = decide(snap({ replicas: 9, requests: [req("a", { resizeBy: 2 })] }));
      const status = statusOf(plan, "a");
      expect(status.state).toBe("ACCEPTED");
      expect(status.reason).toBe("WaitingForCapacity");
      expect(cond(status, RC.Queued)).toMatchObject({
        status: "True",
        reason: "WaitingForCapacity",
        message: "Waiting for room: the target has 9 replicas, 2 more would exceed maxSize 10.",
      });
      expect(plan.groupStatus).toMatchObject({ queuedRequests: 1, activeRequests: 1 });
      expect(plan.scale).toBeUndefined();
      expect(reasons(plan, "a")).toEqual(["Accepted"]);
    });
  });
});
