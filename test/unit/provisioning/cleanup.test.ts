// Which ResizeRequests of ProvisioningRequests are deleted, and when: the request finished (Failed,
// CapacityRevoked, BookingExpired) or gone, nothing held, the provisioner's retention elapsed since the
// ResizeRequest finished; never one the provisioner did not make.
import type { PrCondition } from "../../../src/api/provisioning-request.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { cleanupDecision, cleanupNote, finishedBy } from "../../../src/controllers/provisioning/cleanup.js";
import { HOUR, T0, at, cancelledAt, cond, group, pr, rr } from "./fixtures.js";

const accepted = [cond("Accepted", "True", "Accepted")];
const provisioned = [...accepted, cond("Provisioned", "True", "Provisioned", 60)];
const failed = (s = 100): PrCondition[] => [
  cond("Accepted", "False", "WaitTimeExceeded", s),
  cond("Failed", "True", "WaitTimeExceeded", s),
];

const cancelled = cancelledAt(120);
const heldWithRelease: ResizeRequestStatus = {
  state: "SUCCEEDED",
  succeededTime: at(60),
  runUntil: at(7200),
};
const released: ResizeRequestStatus = {
  ...heldWithRelease,
  release: {
    phase: "Applied",
    baseReplicas: 4,
    targetReplicas: 0,
    startedTime: at(7200),
    appliedTime: at(7200),
  },
};
const noRunDuration: ResizeRequestStatus = { state: "SUCCEEDED", succeededTime: at(60) };

const decide = (x: ResizeRequest, conditions: PrCondition[] | undefined, nowMs: number) =>
  cleanupDecision(x, conditions && pr({ conditions }), [group()], HOUR, nowMs);

test.each<[string, ResizeRequestStatus, PrCondition[] | undefined, number, string]>([
  [
    "request Failed, ResizeRequest still queued (its cancel pending)",
    { state: "ACCEPTED" },
    failed(),
    200,
    "keep",
  ],
  ["request Failed, ResizeRequest cancelled, within the hour", cancelled, failed(), 120 + 1800, "wait"],
  ["request Failed, ResizeRequest cancelled an hour ago", cancelled, failed(), 120 + 3600, "delete"],
  ["request gone, ResizeRequest cancelled an hour ago", cancelled, undefined, 120 + 3600, "delete"],
  ["request gone, capacity still held (release due)", heldWithRelease, undefined, 10 * 3600, "keep"],
  ["request Provisioned (not finished), ResizeRequest released", released, provisioned, 7200 + 3600, "keep"],
  [
    "CapacityRevoked, released an hour ago",
    released,
    [...provisioned, cond("CapacityRevoked", "True", "RunDurationElapsed", 7200)],
    7200 + 3600,
    "delete",
  ],
  [
    "CapacityRevoked, released half an hour ago",
    released,
    [...provisioned, cond("CapacityRevoked", "True", "RunDurationElapsed", 7200)],
    7200 + 1800,
    "wait",
  ],
  [
    "BookingExpired, but the release is still due",
    heldWithRelease,
    [...provisioned, cond("BookingExpired", "True", "BookingExpired", 660)],
    3600,
    "keep",
  ],
  [
    "BookingExpired, no run duration: nothing held once succeeded",
    noRunDuration,
    [...provisioned, cond("BookingExpired", "True", "BookingExpired", 660)],
    60 + 3600,
    "delete",
  ],
  ["Provisioned and consumed, no run duration: not finished", noRunDuration, provisioned, 10 * 3600, "keep"],
])("%s", (_, status, conditions, seconds, action) => {
  expect(decide(rr(status), conditions, T0 + seconds * 1000).action).toBe(action);
});

test("the wait is until the retention elapses since the ResizeRequest finished", () => {
  expect(decide(rr(cancelled), failed(), T0 + 1_920_000)).toEqual({ action: "wait", afterMs: 1_800_000 });
});

test("a ResizeRequest of a request replaced by a new one of the same name (another uid) counts as gone", () => {
  const replaced = { ...pr({ conditions: accepted }), metadata: { ...pr().metadata, uid: "another" } };
  expect(cleanupDecision(rr(cancelled), replaced, [group()], HOUR, T0 + 3_720_000).action).toBe("delete");
  // The same request, still accepted: kept.
  expect(
    cleanupDecision(rr(cancelled), pr({ conditions: accepted }), [group()], HOUR, T0 + 3_720_000).action,
  ).toBe("keep");
});

test.each<[string, (x: ResizeRequest) => ResizeRequest]>([
  ["without the request's uid label", (x) => ({ ...x, metadata: { ...x.metadata, labels: {} } })],
  [
    "without the annotation naming the request",
    (x) => ({ ...x, metadata: { ...x.metadata, annotations: {} } }),
  ],
  [
    "with an annotation that is no namespace/name",
    (x) => ({
      ...x,
      metadata: {
        ...x.metadata,
        annotations: { "compute.resize-operator.dev/provisioning-request": "job-a-prov-1" },
      },
    }),
  ],
  [
    "not owned by the request and the group",
    (x) => ({ ...x, metadata: { ...x.metadata, ownerReferences: [] } }),
  ],
])("never one the provisioner did not make: %s", (_, forge) => {
  expect(cleanupDecision(forge(rr(cancelled)), undefined, [group()], HOUR, T0 + 10 * HOUR)).toEqual({
    action: "keep",
    why: "not made by the provisioner",
  });
});

test("a deleted request's: the garbage collector removed the owner reference to it, the group's is enough", () => {
  const base = rr(cancelled);
  const groupRef = (base.metadata.ownerReferences as object[]).slice(1);
  const groupOnly = {
    ...base,
    metadata: { ...base.metadata, ownerReferences: groupRef },
  };
  expect(cleanupDecision(groupOnly, undefined, [group()], HOUR, T0 + 10 * HOUR).action).toBe("delete");
  const another = {
    ...base,
    metadata: {
      ...base.metadata,
      ownerReferences: [
        { apiVersion: "autoscaling.x-k8s.io/v1", kind: "ProvisioningRequest", name: "x", uid: "another" },
        ...groupRef,
      ],
    },
  };
  expect(cleanupDecision(another, undefined, [group()], HOUR, T0 + 10 * HOUR).action).toBe("keep");
  const otherGroup = group("gpu", "team-a", {});
  const regrouped = [{ ...otherGroup, metadata: { ...otherGroup.metadata, uid: "a-new-group" } }];
  expect(cleanupDecision(groupOnly, undefined, regrouped, HOUR, T0 + 10 * HOUR).action).toBe("keep");
});

test("which condition finished a request", () => {
  expect(finishedBy(pr({ conditions: failed() }))).toBe("Failed");
  expect(finishedBy(pr({ conditions: provisioned }))).toBeUndefined();
  expect(
    finishedBy(pr({ conditions: [...provisioned, cond("BookingExpired", "True", "BookingExpired")] })),
  ).toBe("BookingExpired");
});

test("the note says why and after how long", () => {
  expect(cleanupNote(rr(cancelled), pr({ conditions: failed() }), at(120), HOUR)).toBe(
    `Deleted: CANCELLED since ${at(120)} and its ProvisioningRequest is Failed, past the provisioner's --provisioning-resize-request-retention of 1h.`,
  );
  expect(cleanupNote(rr(cancelled), undefined, at(120), 30_000)).toContain(
    "its ProvisioningRequest is gone, past the provisioner's --provisioning-resize-request-retention of 30s.",
  );
});
