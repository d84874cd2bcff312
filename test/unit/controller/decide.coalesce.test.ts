// decide(): the group's status is written at most once per groupStatusIntervalMs (decide/coalesce.ts). The
// snapshot carries when the controller last wrote it; within the interval the write, and the group's
// Events with it, is withheld and the group asks for a pass when the interval is over.
import { decide } from "../../../src/controllers/resize/decide/index.js";
import { groupStatusWaitMs } from "../../../src/controllers/resize/decide/coalesce.js";
import type { GroupSnapshot } from "../../../src/controllers/resize/snapshot.js";
import type { TargetView } from "../../../src/targets/view.js";
import { CFG, SEC, T0, found, provisioningStatus, req, snap } from "./builders.js";

/** A refused target: the group's status changes (Ready False) and an Event goes with it. */
const forbidden: TargetView = {
  found: false,
  reason: "TargetForbidden",
  message: 'the operator may not get deployments.apps "workers"',
};

const at = (s: GroupSnapshot, writtenMs: number | undefined, intervalMs = 1000): GroupSnapshot => ({
  ...s,
  config: { ...CFG, groupStatusIntervalMs: intervalMs },
  groupStatusWrittenMs: writtenMs,
});

describe("groupStatusWaitMs: how long the group's status write waits", () => {
  test.each([
    ["never written: now", undefined, 1000, 0],
    ["written at this moment: the whole interval", T0, 1000, 1000],
    ["written 400 ms ago: the rest of the interval", T0 - 400, 1000, 600],
    ["written an interval ago: now", T0 - 1000, 1000, 0],
    ["written long ago: now", T0 - 60 * SEC, 1000, 0],
    ["the interval is the setting's", T0 - 100, 250, 150],
    ["an interval of 0: always now", T0, 0, 0],
  ])("%s", (_name, writtenMs, intervalMs, waitMs) => {
    expect(groupStatusWaitMs(at(snap(), writtenMs, intervalMs))).toBe(waitMs);
  });
});

describe("decide() withholds the group's status within its interval", () => {
  test("a changed status written 400 ms ago waits 600 ms, its Event with it", () => {
    const plan = decide(at(snap({ target: forbidden }), T0 - 400));
    expect(plan.groupStatus).toBeUndefined();
    expect(plan.groupEvents).toEqual([]);
    expect(plan.requeueAfterMs).toBe(600);
  });

  test("once the interval is over, the status of that moment is written with its Event", () => {
    const plan = decide(at(snap({ target: forbidden }), T0 - 1000));
    expect(plan.groupStatus?.conditions).toContainEqual(
      expect.objectContaining({ type: "Ready", status: "False", reason: "TargetForbidden" }),
    );
    expect(plan.groupEvents.map((e) => e.event.reason)).toEqual(["TargetForbidden"]);
    expect(plan.requeueAfterMs).toBeUndefined();
  });

  test("never written since the group appeared: written at once", () => {
    const plan = decide(at(snap({ target: forbidden }), undefined));
    expect(plan.groupStatus).toBeDefined();
    expect(plan.groupEvents).toHaveLength(1);
  });

  test("an unchanged status asks for no pass, however recent the last write", () => {
    const first = decide(snap({ target: forbidden }));
    const again = decide({ ...at(snap({ target: forbidden }), T0), groupStatus: first.groupStatus });
    expect(again.groupStatus).toBeUndefined();
    expect(again.requeueAfterMs).toBeUndefined();
  });

  test("the group's sooner wake-up stays (an attempt polled each second, a 5 s interval)", () => {
    const applying = req("a", {
      status: provisioningStatus("a", { phase: "Applying", baseReplicas: 2, targetReplicas: 4 }),
    });
    const written = decide(snap({ replicas: 2, requests: [applying] }));
    expect(written.groupStatus).toBeDefined();
    expect(written.requeueAfterMs).toBe(CFG.pollIntervalMs);
    const withheld = decide(at(snap({ replicas: 2, requests: [applying] }), T0 - SEC, 5 * SEC));
    expect(withheld.groupStatus).toBeUndefined();
    expect(withheld.requeueAfterMs).toBe(CFG.pollIntervalMs);
    // Request statuses and the scale are not withheld: only the group's summary is.
    expect(withheld.requests).toEqual(written.requests);
    expect(withheld.scale).toEqual(written.scale);
  });

  test("a later wake-up gives way to the end of the interval (a target still moving)", () => {
    const moving = snap({ target: found(4, 2) });
    expect(decide(moving).requeueAfterMs).toBe(CFG.pollIntervalMs * 10);
    const withheld = decide(at(moving, T0 - 300));
    expect(withheld.groupStatus).toBeUndefined();
    expect(withheld.requeueAfterMs).toBe(700);
  });
});
