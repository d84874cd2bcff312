// The retention decision (src/controllers/retention-rule.ts): which finished requests expire, and when.
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import {
  MAX_RETENTION_WAIT_MS,
  finishedTime,
  retentionDecision,
} from "../../../src/controllers/retention-rule.js";
import { dueIn } from "../../../src/controllers/retention/controller.js";
import { Store } from "../../../src/runtime/store.js";

const NOW = Date.parse("2026-01-10T00:00:00Z");
const HOUR = 3_600_000;
const at = (hoursAgo: number): string => new Date(NOW - hoursAgo * HOUR).toISOString();
const cond = (type: string, hoursAgo: number) => ({
  type,
  status: "True" as const,
  reason: type,
  message: "",
  lastTransitionTime: at(hoursAgo),
});

function rr(status: ResizeRequestStatus | undefined, deleting = false): ResizeRequest {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: {
      name: "r",
      namespace: "ns",
      uid: "u",
      creationTimestamp: at(100),
      ...(deleting && { deletionTimestamp: at(0) }),
    },
    spec: { instanceGroupManager: "g", resizeBy: 1, cancel: false },
    ...(status && { status }),
  };
}

const released = (hoursAgo: number): NonNullable<ResizeRequestStatus["release"]> => ({
  phase: "Applied",
  baseReplicas: 3,
  targetReplicas: 2,
  startedTime: at(hoursAgo),
  appliedTime: at(hoursAgo),
});

const RETENTION = 24 * HOUR;

describe("retentionDecision", () => {
  test.each<[string, ResizeRequest, ReturnType<typeof retentionDecision>]>([
    ["no status yet", rr(undefined), { action: "keep", why: "active" }],
    ["queued", rr({ state: "ACCEPTED" }), { action: "keep", why: "active" }],
    [
      "SUCCEEDED with a release still ahead",
      rr({ state: "SUCCEEDED", succeededTime: at(48), runUntil: at(-1) }),
      { action: "keep", why: "its release is still due" },
    ],
    [
      "SUCCEEDED, run over long ago, release not applied (a due release is never lost)",
      rr({ state: "SUCCEEDED", succeededTime: at(90), runUntil: at(80) }),
      { action: "keep", why: "its release is still due" },
    ],
    [
      "SUCCEEDED, release under way",
      rr({ state: "SUCCEEDED", runUntil: at(80), release: { ...released(80), phase: "Applying" } }),
      { action: "keep", why: "its release is still due" },
    ],
    [
      "SUCCEEDED, released 30h ago",
      rr({ state: "SUCCEEDED", succeededTime: at(90), runUntil: at(31), release: released(30) }),
      { action: "delete", finishedTime: at(30) },
    ],
    [
      "SUCCEEDED, released 2h ago: counted from the release, not the success",
      rr({ state: "SUCCEEDED", succeededTime: at(90), runUntil: at(3), release: released(2) }),
      { action: "wait", afterMs: 22 * HOUR },
    ],
    [
      "SUCCEEDED without a run duration, 25h ago",
      rr({ state: "SUCCEEDED", succeededTime: at(25) }),
      { action: "delete", finishedTime: at(25) },
    ],
    [
      "FAILED 1h ago",
      rr({ state: "FAILED", conditions: [cond("Failed", 1)] }),
      { action: "wait", afterMs: 23 * HOUR },
    ],
    [
      "CANCELLED 24h ago exactly",
      rr({ state: "CANCELLED", conditions: [cond("Cancelled", 24)] }),
      { action: "delete", finishedTime: at(24) },
    ],
    [
      "FAILED without its condition: from creation",
      rr({ state: "FAILED" }),
      { action: "delete", finishedTime: at(100) },
    ],
    [
      "already being deleted",
      rr({ state: "FAILED", conditions: [cond("Failed", 50)] }, true),
      { action: "keep", why: "being deleted" },
    ],
  ])("%s", (_, request, expected) => {
    expect(retentionDecision(request, RETENTION, NOW)).toEqual(expected);
  });

  test("0s retention deletes at the moment of finishing", () => {
    const r = rr({ state: "CANCELLED", conditions: [cond("Cancelled", 0)] });
    expect(retentionDecision(r, 0, NOW)).toEqual({ action: "delete", finishedTime: at(0) });
  });

  test("a long retention is checked again daily, never scheduled past a timer's range", () => {
    const r = rr({ state: "FAILED", conditions: [cond("Failed", 1)] });
    expect(retentionDecision(r, 10 * 365 * 24 * HOUR, NOW)).toEqual({
      action: "wait",
      afterMs: MAX_RETENTION_WAIT_MS,
    });
  });

  test("finishedTime prefers succeededTime, then the Succeeded condition", () => {
    expect(finishedTime(rr({ state: "SUCCEEDED", conditions: [cond("Succeeded", 5)] }))).toBe(at(5));
    expect(finishedTime(rr({ state: "ACCEPTED" }))).toBeUndefined();
  });
});

describe("dueIn: when the retention controller queues a request", () => {
  const groups = new Store<InstanceGroupManager>();
  const deps = { groups, defaultRetentionMs: RETENTION, now: () => NOW };
  test.each([
    ["finished 1 h ago: in 23 h", { state: "SUCCEEDED", conditions: [cond("Succeeded", 1)] }, 23 * HOUR],
    ["finished 30 h ago: at once", { state: "FAILED", conditions: [cond("Failed", 30)] }, 0],
    ["its release still due: never", { state: "SUCCEEDED", runUntil: at(-1) }, undefined],
    ["active: never", { state: "ACCEPTED" }, undefined],
  ] as const)("%s", (_, status, due) => {
    expect(dueIn(rr(status as ResizeRequestStatus), deps)).toBe(due);
  });
});
