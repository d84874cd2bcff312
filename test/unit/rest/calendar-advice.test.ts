// advice.calendarMode's request as this API reads it: the one spec's count, durations and start range,
// its group and denied locations; every field it cannot honour refused with 400 naming the field.
import type { CalendarModeAdviceRequest } from "../../../src/api/calendar-advice.js";
import { InvalidError } from "../../../src/rest/errors.js";
import { adviceOf, regionOfZone } from "../../../src/rest/calendar-advice.js";

const NOW = Date.parse("2026-03-01T00:00:00Z");
const DAY = 24 * 3600_000;
type Spec = NonNullable<CalendarModeAdviceRequest["futureResourcesSpecs"]>[string];
const ask = (spec: Spec): CalendarModeAdviceRequest => ({ futureResourcesSpecs: { a: spec } });
const base: Spec = {
  targetResources: { specificSkuResources: { instanceCount: "8" } },
  timeRangeSpec: { minDuration: "259200s" },
};

test("the defaults: maxDuration the minDuration, from now for 90 days, every group", () => {
  expect(adviceOf(ask(base), NOW)).toEqual({
    key: "a",
    query: {
      count: 8,
      minDurationMs: 3 * DAY,
      maxDurationMs: 3 * DAY,
      notEarlierThan: NOW,
      notLaterThan: NOW + 90 * DAY,
    },
    denied: new Set(),
  });
});

test("every field it honours", () => {
  const parsed = adviceOf(
    ask({
      targetResources: { specificSkuResources: { instanceCount: "2", machineType: "gpu-pool" } },
      timeRangeSpec: {
        minDuration: "1.5s",
        maxDuration: "3600s",
        startTimeNotEarlierThan: "2026-03-02T09:00:00Z",
        startTimeNotLaterThan: "2026-03-03T09:00:00Z",
      },
      locationPolicy: {
        locations: { "zones/local-b": { preference: "DENY" }, "zones/local-a": { preference: "ALLOW" } },
      },
      deploymentType: "DEPLOYMENT_TYPE_UNSPECIFIED",
    }),
    NOW,
  );
  expect(parsed).toEqual({
    key: "a",
    query: {
      count: 2,
      minDurationMs: 1500,
      maxDurationMs: 3600_000,
      notEarlierThan: Date.parse("2026-03-02T09:00:00Z"),
      notLaterThan: Date.parse("2026-03-03T09:00:00Z"),
    },
    group: "gpu-pool",
    denied: new Set(["zones/local-b"]),
  });
});

test.each<[string, CalendarModeAdviceRequest, string, string]>([
  ["no spec", {}, "futureResourcesSpecs", "exactly one spec"],
  ["two specs", { futureResourcesSpecs: { a: base, b: base } }, "futureResourcesSpecs", "exactly one spec"],
  [
    "no count",
    ask({ timeRangeSpec: { minDuration: "60s" } }),
    "futureResourcesSpecs.a.targetResources.specificSkuResources.instanceCount",
    "is required",
  ],
  [
    "count 0",
    ask({ ...base, targetResources: { specificSkuResources: { instanceCount: "0" } } }),
    "futureResourcesSpecs.a.targetResources.specificSkuResources.instanceCount",
    "1 or more",
  ],
  [
    "no minDuration",
    ask({ targetResources: base.targetResources }),
    "futureResourcesSpecs.a.timeRangeSpec.minDuration",
    "is required",
  ],
  [
    "a duration in minutes",
    ask({ ...base, timeRangeSpec: { minDuration: "5m" } }),
    "futureResourcesSpecs.a.timeRangeSpec.minDuration",
    "in seconds",
  ],
  [
    "max shorter than min",
    ask({ ...base, timeRangeSpec: { minDuration: "60s", maxDuration: "30s" } }),
    "futureResourcesSpecs.a.timeRangeSpec.maxDuration",
    "not be shorter",
  ],
  [
    "a start not RFC 3339",
    ask({ ...base, timeRangeSpec: { minDuration: "60s", startTimeNotEarlierThan: "tomorrow" } }),
    "futureResourcesSpecs.a.timeRangeSpec.startTimeNotEarlierThan",
    "RFC 3339",
  ],
  [
    "a start range ending before it starts",
    ask({ ...base, timeRangeSpec: { minDuration: "60s", startTimeNotLaterThan: "2020-01-01T00:00:00Z" } }),
    "futureResourcesSpecs.a.timeRangeSpec.startTimeNotLaterThan",
    "not be earlier",
  ],
  [
    "aggregate resources",
    ask({ ...base, targetResources: { aggregateResources: { acceleratorCount: "8" } } }),
    "futureResourcesSpecs.a.targetResources.aggregateResources",
    "not supported",
  ],
  [
    "local SSDs",
    ask({
      ...base,
      targetResources: {
        specificSkuResources: { instanceCount: "1", localSsdPartitions: [{ diskSizeGb: "375" }] },
      },
    }),
    "futureResourcesSpecs.a.targetResources.specificSkuResources.localSsdPartitions",
    "not supported",
  ],
  [
    "a dense deployment",
    ask({ ...base, deploymentType: "DENSE" }),
    "futureResourcesSpecs.a.deploymentType",
    "not supported",
  ],
])("%s is refused at its field", (_name, body, field, words) => {
  let thrown: unknown;
  try {
    adviceOf(body, NOW);
  } catch (err) {
    thrown = err;
  }
  if (!(thrown instanceof InvalidError)) throw new Error(`not refused with InvalidError: ${String(thrown)}`);
  expect(thrown.status).toBe(400);
  expect(thrown.message).toContain(words);
  expect(thrown.details[0]).toMatchObject({ location: field, locationType: "body" });
});

test.each([
  ["us-central1-a", "us-central1"],
  ["local-a", "local"],
  ["nodash", ""],
])("the region of zone %s is %s", (zone, region) => {
  expect(regionOfZone(zone)).toBe(region);
});
