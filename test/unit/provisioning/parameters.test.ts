// The parameters of a ProvisioningRequest of our class: each known one parsed, every mistake in a known
// one named, unknown keys returned (not refused), and the run duration a group gives by default.
import { GROUP } from "../../../src/api/names.js";
import {
  PROVISIONING_REQUEST_ANNOTATION,
  WORKLOAD_ANNOTATION,
  servedBy,
} from "../../../src/api/served-by.js";
import { parseParameters } from "../../../src/controllers/provisioning/parameters.js";
import { runDurationSeconds } from "../../../src/controllers/provisioning/resize-request.js";
import { POLICY_DEFAULTS, group } from "./fixtures.js";

test.each<[Record<string, string> | undefined, object]>([
  [undefined, {}],
  [{ instanceGroupManager: "gpu" }, { group: { namespace: undefined, name: "gpu" } }],
  [{ instanceGroupManager: "shared/gpu" }, { group: { namespace: "shared", name: "gpu" } }],
  [{ maxRunDurationSeconds: "3600" }, { maxRunDurationSeconds: 3600 }],
  [{ maxQueueDuration: "30m" }, { maxQueueDuration: "30m" }],
  [{ bookingWindow: "2m" }, { bookingWindowMs: 120_000 }],
  [{ ValidUntilSeconds: "2" }, { validUntilSeconds: 2 }],
  [{ noRetry: "true" }, {}],
  [{ noRetry: "False" }, {}],
  [{ processorInstance: "ca-1" }, {}],
  [{ capacitySearchStrategy: "" }, {}],
  [{ capacitySearchStrategy: "OBTAINABILITY" }, { capacitySearchStrategy: "OBTAINABILITY" }],
  [{ futureReservation: "training-week" }, { futureReservation: "training-week" }],
  [
    { futureReservation: "night", instanceGroupManager: "gpu" },
    { futureReservation: "night", group: { namespace: undefined, name: "gpu" } },
  ],
])("%j parses", (raw, value) => {
  expect(parseParameters(raw)).toEqual({ ok: true, value, unknown: [] });
});

test.each<[Record<string, string>, string]>([
  [{ instanceGroupManager: "Bad_Name" }, 'instanceGroupManager "Bad_Name" must be NAME or NAMESPACE/NAME'],
  [{ instanceGroupManager: "a/b/c" }, "must be NAME or NAMESPACE/NAME"],
  [{ maxRunDurationSeconds: "0" }, 'maxRunDurationSeconds "0" must be a whole number of seconds'],
  [{ maxRunDurationSeconds: "1h" }, "must be a whole number of seconds"],
  [{ maxQueueDuration: "forever" }, 'maxQueueDuration "forever" must be a duration from 1s to 87600h'],
  [{ bookingWindow: "200h" }, 'bookingWindow "200h" must be a duration from 1s to 168h'],
  [{ ValidUntilSeconds: "0" }, 'ValidUntilSeconds "0" must be a whole number of seconds from 1'],
  [{ ValidUntilSeconds: "-5" }, 'ValidUntilSeconds "-5" must be a whole number of seconds'],
  [{ noRetry: "yes" }, 'noRetry "yes" must be true or false'],
  [{ capacitySearchStrategy: "CHEAPEST" }, 'capacitySearchStrategy "CHEAPEST" must be "" or "OBTAINABILITY"'],
  [
    { futureReservation: "team-b/night" },
    "futureReservation \"team-b/night\" must be the NAME of a FutureReservation in the request's own namespace: a booking of another namespace is never usable, its capacity is its owner's",
  ],
  [{ futureReservation: "Night_1" }, 'futureReservation "Night_1" must be the NAME of a FutureReservation'],
  [{ futureReservation: "" }, 'futureReservation "" must be the NAME of a FutureReservation'],
  [{ futureReservation: "a".repeat(64) }, "must be the NAME of a FutureReservation"],
])("%j is refused: %s", (raw, message) => {
  const parsed = parseParameters(raw);
  expect(parsed.ok).toBe(false);
  if (!parsed.ok) expect(parsed.message).toContain(message);
});

test("an unknown key is returned, not refused, beside the known ones", () => {
  expect(parseParameters({ maxRunDurationSeconds: "60", colour: "blue", maxRunDuration: "60" })).toEqual({
    ok: true,
    value: { maxRunDurationSeconds: 60 },
    unknown: ["colour", "maxRunDuration"],
  });
});

test("every problem with a known key is named at once", () => {
  const parsed = parseParameters({ maxRunDurationSeconds: "x", noRetry: "maybe", colour: "blue" });
  expect(parsed).toEqual({
    ok: false,
    message: expect.stringMatching(/^Invalid parameters: maxRunDurationSeconds .*; noRetry .*\.$/) as string,
  });
});

test.each<[string | undefined, Record<string, string>, number | undefined]>([
  [undefined, {}, 604_800],
  ["168h", {}, 604_800],
  ["1h30m", {}, 5400],
  ["1500ms", {}, 2],
  ["0s", {}, undefined],
  ["0s", { maxRunDurationSeconds: "60" }, 60],
  ["168h", { maxRunDurationSeconds: "60" }, 60],
])("defaultMaxRunDuration %s with %j: run for %s seconds", (fallback, raw, seconds) => {
  const policy = { namespaces: "Same" as const, ...POLICY_DEFAULTS };
  const g = group("gpu", "team-a", {
    provisioningRequests: fallback === undefined ? undefined : { ...policy, defaultMaxRunDuration: fallback },
  });
  const parsed = parseParameters(raw);
  if (!parsed.ok) throw new Error(parsed.message);
  expect(runDurationSeconds(g, parsed.value)).toBe(seconds);
});

test("the annotations naming what a ResizeRequest serves are in the API group", () => {
  for (const key of [PROVISIONING_REQUEST_ANNOTATION, WORKLOAD_ANNOTATION])
    expect(key.startsWith(`${GROUP}/`)).toBe(true);
  expect(servedBy({ [PROVISIONING_REQUEST_ANNOTATION]: "a/b" })).toEqual({ provisioningRequest: "a/b" });
  expect(servedBy(undefined)).toEqual({});
});
