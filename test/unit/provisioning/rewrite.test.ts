// When a waiting request's Provisioned=False condition is written again: on a transition, a change of
// where it is served, the queue's view appearing or going, the deadline warning, or a material ETA move.
import type { PrCondition } from "../../../src/api/provisioning-request.js";
import { rfc3339Seconds } from "../../../src/api/time.js";
import { LATE_WARNING } from "../../../src/controllers/provisioning/conditions.js";
import {
  MATERIAL_ETA_MS,
  etaMovedMaterially,
  waitingRewriteDue,
  type WaitingStatus,
} from "../../../src/controllers/provisioning/rewrite.js";
import { T0, cond } from "./fixtures.js";

const MIN = 60_000;
const HOUR = 60 * MIN;

test.each<[string, number | undefined, number | undefined, boolean]>([
  ["the same ETA", T0 + HOUR, T0 + HOUR, false],
  ["a minute later", T0 + 10 * MIN, T0 + 11 * MIN, false],
  ["five minutes later, with ten to wait", T0 + 10 * MIN, T0 + 15 * MIN, true],
  [
    "ten minutes earlier, with a day to wait (under a quarter of it)",
    T0 + 24 * HOUR,
    T0 + 24 * HOUR - 10 * MIN,
    false,
  ],
  ["ten hours later, with a day to wait", T0 + 24 * HOUR, T0 + 34 * HOUR, true],
  ["known no more", T0 + HOUR, undefined, true],
  ["still unknown", undefined, undefined, false],
  ["known now, an hour away", undefined, T0 + HOUR, true],
  ["known now, a minute away (the next transition comes first)", undefined, T0 + MIN, false],
])("the ETA moves materially: %s", (_, before, now, expected) => {
  expect(etaMovedMaterially(before, now, T0)).toBe(expected);
});

test("the threshold is MATERIAL_ETA_MS for a near ETA", () => {
  expect(etaMovedMaterially(T0 + MIN, T0 + MIN + MATERIAL_ETA_MS - 1000, T0)).toBe(false);
  expect(etaMovedMaterially(T0 + MIN, T0 + MIN + MATERIAL_ETA_MS, T0)).toBe(true);
});

describe("waitingRewriteDue", () => {
  const served = { ResizeRequestName: "pr-x", InstanceGroupManager: "team-a/gpu", SelectedZone: "local-a" };
  const queuedDetails = (position: number, etaMs?: number) => ({
    ...served,
    QueuePosition: String(position),
    ...(etaMs !== undefined && {
      EstimatedProvisioningTime: rfc3339Seconds(etaMs),
      EstimateKind: "exact",
    }),
  });
  const said = (reason: string, message: string): PrCondition => ({
    ...cond("Provisioned", "False", reason),
    message,
  });
  const previous = {
    condition: said("Queued", "Queued at position 3 of 3 …"),
    details: queuedDetails(3, T0 + HOUR),
  };
  const next = (o: Partial<WaitingStatus> = {}): WaitingStatus => ({
    reason: "Queued",
    message: "Queued at position 2 of 3 …",
    details: queuedDetails(2, T0 + HOUR),
    ...o,
  });

  test.each<[string, Parameters<typeof waitingRewriteDue>[0], WaitingStatus, boolean]>([
    ["a new position alone", previous, next(), false],
    ["no condition yet", { condition: undefined, details: undefined }, next(), true],
    ["a transition (its attempt started)", previous, next({ reason: "Provisioning" }), true],
    [
      "Provisioned=True before (never reverted here, but a different status is a transition)",
      { ...previous, condition: { ...cond("Provisioned", "True", "Queued"), message: "" } },
      next(),
      true,
    ],
    [
      "another zone",
      previous,
      next({ details: { ...queuedDetails(2, T0 + HOUR), SelectedZone: "local-b" } }),
      true,
    ],
    ["the queue's view gone", previous, next({ details: served }), true],
    [
      "the deadline warning appears",
      previous,
      next({ message: `Queued at position 2 of 3 … ${LATE_WARNING}` }),
      true,
    ],
    ["the ETA moves by half an hour", previous, next({ details: queuedDetails(2, T0 + 90 * MIN) }), true],
  ])("%s", (_, before, after, expected) => {
    expect(waitingRewriteDue(before, after, T0)).toBe(expected);
  });
});
