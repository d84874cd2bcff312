// status.provisioningClassDetails: written at acceptance, written again with the Provisioned=False
// message while the ResizeRequest waits (queue position, ETA, its kind: on a transition or a material
// ETA move, rewrite.ts), trimmed once it no longer waits.
import type { RequestInsight } from "../../../src/queue/insight.js";
import { decideProvisioning } from "../../../src/controllers/provisioning/decide.js";
import { classDetails, sameDetails, withoutQueue } from "../../../src/controllers/provisioning/details.js";
import { Reason } from "../../../src/controllers/provisioning/conditions.js";
import { T0, at, cond, group, pr, rr, snapshot, waitingInsight } from "./fixtures.js";

const RR = "pr-job-a-prov-1-0f1e2d3c4b";
const base = {
  ResizeRequestName: RR,
  InstanceGroupManager: "team-a/gpu",
  SelectedZone: "local-a",
  PodTemplateName: "ppt-job-a-prov-1-main",
};
const accepted = [cond("Accepted", "True", Reason.Accepted), cond("Provisioned", "False", Reason.Queued)];
const insight = (o: Partial<RequestInsight> = {}): RequestInsight =>
  waitingInsight({ position: 3, eta: { basis: "exact", start: T0 + 300_000, time: T0 + 330_500 }, ...o });
const input = (o: Partial<Parameters<typeof classDetails>[0]> = {}) => ({
  request: pr(),
  resizeRequestName: RR,
  groupKey: "team-a/gpu",
  group: group(),
  insight: undefined,
  ...o,
});

test.each<[string, Partial<Parameters<typeof classDetails>[0]>, Record<string, string>]>([
  ["at acceptance: where it is served, no queue yet", {}, base],
  [
    "queued, exact ETA to the second",
    { insight: insight() },
    { ...base, QueuePosition: "3", EstimatedProvisioningTime: "2026-01-01T00:05:30Z", EstimateKind: "exact" },
  ],
  [
    "estimated ETA rounded up to the minute, as the message",
    { insight: insight({ eta: { basis: "estimated", start: T0, time: T0 + 301_000 } }) },
    {
      ...base,
      QueuePosition: "3",
      EstimatedProvisioningTime: "2026-01-01T00:06:00Z",
      EstimateKind: "estimated",
    },
  ],
  [
    "unknown ETA: the position only",
    { insight: insight({ position: 1, eta: { basis: "unknown", reason: "no history" } }) },
    { ...base, QueuePosition: "1" },
  ],
  [
    "a regional group",
    { group: group("gpu", "team-a", { zone: undefined, region: "local" }) },
    {
      ResizeRequestName: RR,
      InstanceGroupManager: "team-a/gpu",
      Region: "local",
      PodTemplateName: base.PodTemplateName,
    },
  ],
  [
    "its group gone: the recorded zone stays",
    { group: undefined, request: pr({ details: { ...base, SelectedZone: "zone-b" } }) },
    { ...base, SelectedZone: "zone-b" },
  ],
  [
    "several pod sets: every template, once, as GKE joins them",
    {
      request: pr({
        podSets: [
          { name: "a", count: 1 },
          { name: "b", count: 2 },
          { name: "a", count: 1 },
        ],
      }),
    },
    { ...base, PodTemplateName: "a, b" },
  ],
])("classDetails: %s", (_, o, want) => {
  expect(classDetails(input(o))).toEqual(want);
});

test("withoutQueue and sameDetails", () => {
  const queued = classDetails(input({ insight: insight() }));
  expect(withoutQueue(queued)).toEqual(base);
  expect(withoutQueue(base)).toBe(base);
  expect(sameDetails({ a: "1", b: "2" }, { b: "2", a: "1" })).toBe(true);
  expect(sameDetails({ a: "1" }, { a: "1", b: "2" })).toBe(false);
  expect(sameDetails(undefined, {})).toBe(true);
});

describe("through the decision", () => {
  const waiting = (i: RequestInsight | undefined, details?: Record<string, string>) =>
    decideProvisioning(
      snapshot({
        request: pr({ conditions: accepted, ...(details && { details }) }),
        resizeRequest: rr({ state: "ACCEPTED" }),
        insight: i,
        queueLength: 3,
      }),
    );

  test("written at acceptance, with the ResizeRequest's creation", () => {
    const plan = decideProvisioning(snapshot());
    expect(plan.create?.metadata.name).toBe(RR);
    expect(plan.status?.provisioningClassDetails).toEqual(base);
  });

  test("written with the message: the same again, or a new position alone, is no write; a material ETA move is", () => {
    const first = waiting(insight(), base);
    expect(first.status?.provisioningClassDetails).toMatchObject({
      QueuePosition: "3",
      EstimateKind: "exact",
    });
    const conditions = first.status?.conditions;
    const again = decideProvisioning(
      snapshot({
        request: pr({ conditions, details: first.status?.provisioningClassDetails }),
        resizeRequest: rr({ state: "ACCEPTED" }),
        insight: insight(),
        queueLength: 3,
      }),
    );
    expect(again.status).toBeUndefined();
    const moved = decideProvisioning(
      snapshot({
        request: pr({ conditions, details: first.status?.provisioningClassDetails }),
        resizeRequest: rr({ state: "ACCEPTED" }),
        insight: insight({ position: 2 }),
        queueLength: 3,
      }),
    );
    expect(moved.status).toBeUndefined();
    const later = decideProvisioning(
      snapshot({
        request: pr({ conditions, details: first.status?.provisioningClassDetails }),
        resizeRequest: rr({ state: "ACCEPTED" }),
        insight: insight({ position: 2, eta: { basis: "exact", start: T0, time: T0 + 3_600_000 } }),
        queueLength: 3,
      }),
    );
    expect(later.status?.provisioningClassDetails).toMatchObject({
      QueuePosition: "2",
      EstimatedProvisioningTime: "2026-01-01T01:00:00Z",
    });
  });

  test("details a request of an older release recorded without the new keys are completed once", () => {
    const old = { ResizeRequestName: RR, InstanceGroupManager: "team-a/gpu" };
    expect(waiting(undefined, old).status?.provisioningClassDetails).toEqual(base);
  });

  test("at Provisioned=True and at Failed the queue's keys go", () => {
    const queued = classDetails(input({ insight: insight() }));
    const provisioned = decideProvisioning(
      snapshot({
        request: pr({ conditions: accepted, details: queued }),
        resizeRequest: rr({ state: "SUCCEEDED", succeededTime: at(60) }),
      }),
    );
    expect(provisioned.status?.provisioningClassDetails).toEqual(base);
    const failed = decideProvisioning(
      snapshot({
        request: pr({ conditions: accepted, details: queued }),
        resizeRequest: rr({
          state: "FAILED",
          error: { errors: [{ code: "DEADLINE_EXCEEDED", message: "m" }] },
        }),
      }),
    );
    expect(failed.status?.provisioningClassDetails).toEqual(base);
  });
});
