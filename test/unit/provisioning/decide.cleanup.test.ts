// The plan's parts beyond the request's own writes: the ResizeRequests a deleted request left, cancelled
// while they still wait or provision; those whose retention is over, deleted (decided on the request as
// the pass leaves it); and the requeue, the soonest of every wait. A key whose request is gone is a
// snapshot too.
import { API_VERSION } from "../../../src/api/names.js";
import {
  PROVISIONING_API_VERSION,
  PROVISIONING_REQUEST_UID_LABEL,
} from "../../../src/api/provisioning-request.js";
import type { ResizeRequest, ResizeRequestStatus } from "../../../src/api/resize-request.js";
import {
  decideProvisioning,
  REFRESH_MS,
  type ProvisioningPlan,
} from "../../../src/controllers/provisioning/decide.js";
import type { GoneRequestSnapshot } from "../../../src/controllers/provisioning/snapshot.js";
import { HOUR, T0, at, cancelledAt, cond, group, pr, rr, snapshot, waitingInsight } from "./fixtures.js";

const accepted = [cond("Accepted", "True", "SuccessfullyQueued"), cond("Provisioned", "False", "Queued")];
const provisioned = [
  cond("Accepted", "True", "SuccessfullyQueued"),
  cond("Provisioned", "True", "Provisioned"),
];
const released: ResizeRequestStatus = {
  state: "SUCCEEDED",
  succeededTime: at(60),
  runUntil: at(3600),
  release: {
    phase: "Applied",
    baseReplicas: 4,
    targetReplicas: 0,
    startedTime: at(3600),
    appliedTime: at(3600),
  },
};

/** A ResizeRequest the provisioner made for an earlier request of the same name (uid `old`). */
function leftBy(status: ResizeRequestStatus | undefined, name: string, cancel = false): ResizeRequest {
  const x = rr(status, { name });
  return {
    ...x,
    metadata: {
      ...x.metadata,
      labels: { [PROVISIONING_REQUEST_UID_LABEL]: "old" },
      ownerReferences: [
        {
          apiVersion: PROVISIONING_API_VERSION,
          kind: "ProvisioningRequest",
          name: "job-a-prov-1",
          uid: "old",
        },
        { apiVersion: API_VERSION, kind: "InstanceGroupManager", name: "gpu", uid: "uid-team-a-gpu" },
      ],
    },
    spec: { ...x.spec, cancel },
  };
}

function gone(orphans: readonly ResizeRequest[], seconds: number): GoneRequestSnapshot {
  return { request: undefined, nowMs: T0 + seconds * 1000, retentionMs: HOUR, groups: [group()], orphans };
}

const queued = leftBy({ state: "ACCEPTED" }, "queued");
const creating = leftBy({ state: "CREATING" }, "creating");
const cancelling = leftBy({ state: "ACCEPTED" }, "cancelling", true);
const cancelled = leftBy(cancelledAt(120), "cancelled");
const held = leftBy({ state: "SUCCEEDED", succeededTime: at(60), runUntil: at(7200) }, "held");
const names = (xs: readonly ResizeRequest[] | undefined) => xs?.map((x) => x.metadata.name);
const deleted = (plan: ProvisioningPlan) => plan.delete?.map((d) => [d.resizeRequest.metadata.name, d.note]);

describe("a key whose request is gone", () => {
  test.each<[string, readonly ResizeRequest[], number, ProvisioningPlan]>([
    ["nothing left behind", [], 0, { events: [] }],
    [
      "queued and just created ones are cancelled",
      [queued, creating],
      200,
      {
        events: [],
        cancelOrphans: [queued, creating],
      },
    ],
    [
      "one already cancelling, and one whose release is still due, are left alone",
      [cancelling, held],
      200,
      {
        events: [],
      },
    ],
    [
      "a cancelled one waits for the retention, counted from its cancel",
      [cancelled],
      1920,
      {
        events: [],
        requeueAfterMs: 1_800_000,
      },
    ],
    [
      "past the retention it is deleted, beside the cancel of a queued one",
      [queued, cancelled],
      3720,
      {
        events: [],
        cancelOrphans: [queued],
        delete: [
          {
            resizeRequest: cancelled,
            note: `Deleted: CANCELLED since ${at(120)} and its ProvisioningRequest is gone, past the provisioner's --provisioning-resize-request-retention of 1h.`,
          },
        ],
      },
    ],
  ])("%s", (_, orphans, seconds, expected) => {
    expect(decideProvisioning(gone(orphans, seconds))).toEqual(expected);
  });
});

describe("a request of our class", () => {
  /** An accepted request whose ResizeRequest waits third in its queue, with what else the test sets. */
  const waiting = (rest: Partial<Parameters<typeof snapshot>[0]>) =>
    snapshot({
      request: pr({ conditions: accepted }),
      resizeRequest: rr({ state: "ACCEPTED" }),
      insight: waitingInsight(),
      queueLength: 3,
      ...rest,
    });

  test("the ResizeRequests an earlier request of its name left: cancelled beside its own decision", () => {
    const plan = decideProvisioning(waiting({ orphans: [queued, cancelling] }));
    expect(names(plan.cancelOrphans)).toEqual(["queued"]);
    expect(plan.cancel).toBeUndefined();
    expect(plan.requeueAfterMs).toBe(REFRESH_MS);
  });

  test.each<[string, number, number]>([
    // The orphan's retention (cancelled at 120 s) ends 1 s from now: sooner than the ETA refresh.
    ["an orphan's retention sooner than the refresh", 120 + 3599, 1000],
    ["the refresh sooner than an orphan's retention", 120 + 1800, REFRESH_MS],
  ])("the requeue is the soonest wait: %s", (_, seconds, expected) => {
    const plan = decideProvisioning(waiting({ orphans: [cancelled], nowMs: T0 + seconds * 1000 }));
    expect(plan.requeueAfterMs).toBe(expected);
    expect(plan.delete).toBeUndefined();
  });

  test("decided on the request as the pass leaves it: the pass that revokes its capacity deletes it", () => {
    // Released at 3600 s, an hour before now: CapacityRevoked is written by this very pass.
    const plan = decideProvisioning(
      snapshot({
        request: pr({ conditions: provisioned }),
        resizeRequest: rr(released),
        nowMs: T0 + 7_201_000,
      }),
    );
    expect(plan.status?.conditions.find((c) => c.type === "CapacityRevoked")?.status).toBe("True");
    expect(deleted(plan)).toEqual([
      [
        "pr-job-a-prov-1-0f1e2d3c4b",
        `Deleted: SUCCEEDED since ${at(3600)} and its ProvisioningRequest is CapacityRevoked, past the provisioner's --provisioning-resize-request-retention of 1h.`,
      ],
    ]);
    expect(plan.requeueAfterMs).toBeUndefined();
  });

  test("finished by an earlier pass: its released ResizeRequest waits out the rest of the retention", () => {
    const revoked = [...provisioned, cond("CapacityRevoked", "True", "CapacityRevoked", 3600)];
    const kept = decideProvisioning(
      snapshot({ request: pr({ conditions: revoked }), resizeRequest: rr(released), nowMs: T0 + 5_400_000 }),
    );
    // Released at 3600 s, now 5400 s: half an hour to go, nothing else to do.
    expect(kept).toEqual({ events: [], requeueAfterMs: 1_800_000 });
  });
});
