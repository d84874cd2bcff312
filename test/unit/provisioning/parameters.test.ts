// The parameters of a ProvisioningRequest of our class: each known one parsed, every mistake named.
import { GROUP } from "../../../src/api/names.js";
import {
  PROVISIONING_REQUEST_ANNOTATION,
  WORKLOAD_ANNOTATION,
  servedBy,
} from "../../../src/api/served-by.js";
import { parseParameters } from "../../../src/provisioning/parameters.js";

test.each<[Record<string, string> | undefined, object]>([
  [undefined, {}],
  [{ instanceGroupManager: "gpu" }, { group: { namespace: undefined, name: "gpu" } }],
  [{ instanceGroupManager: "shared/gpu" }, { group: { namespace: "shared", name: "gpu" } }],
  [{ maxRunDurationSeconds: "3600" }, { maxRunDurationSeconds: 3600 }],
  [{ maxQueueDuration: "30m" }, { maxQueueDuration: "30m" }],
  [{ bookingWindow: "2m" }, { bookingWindowMs: 120_000 }],
])("%j parses", (raw, value) => {
  expect(parseParameters(raw)).toEqual({ ok: true, value });
});

test.each<[Record<string, string>, string]>([
  [{ instanceGroupManager: "Bad_Name" }, 'instanceGroupManager "Bad_Name" must be NAME or NAMESPACE/NAME'],
  [{ instanceGroupManager: "a/b/c" }, "must be NAME or NAMESPACE/NAME"],
  [{ maxRunDurationSeconds: "0" }, 'maxRunDurationSeconds "0" must be a whole number of seconds'],
  [{ maxRunDurationSeconds: "1h" }, "must be a whole number of seconds"],
  [{ maxQueueDuration: "forever" }, 'maxQueueDuration "forever" must be a duration from 1s to 87600h'],
  [{ bookingWindow: "200h" }, 'bookingWindow "200h" must be a duration from 1s to 168h'],
  [
    { maxRunDuration: "60" },
    'unknown parameter "maxRunDuration" (known: instanceGroupManager, maxRunDurationSeconds, maxQueueDuration, bookingWindow)',
  ],
])("%j is refused: %s", (raw, message) => {
  const parsed = parseParameters(raw);
  expect(parsed.ok).toBe(false);
  if (!parsed.ok) expect(parsed.message).toContain(message);
});

test("every problem is named at once", () => {
  const parsed = parseParameters({ maxRunDurationSeconds: "x", colour: "blue" });
  expect(parsed).toEqual({
    ok: false,
    message: expect.stringMatching(
      /^Invalid parameters: maxRunDurationSeconds .*; unknown parameter "colour" .*\.$/,
    ) as string,
  });
});

test("the annotations naming what a ResizeRequest serves are in the API group", () => {
  for (const key of [PROVISIONING_REQUEST_ANNOTATION, WORKLOAD_ANNOTATION])
    expect(key.startsWith(`${GROUP}/`)).toBe(true);
  expect(servedBy({ [PROVISIONING_REQUEST_ANNOTATION]: "a/b" })).toEqual({ provisioningRequest: "a/b" });
  expect(servedBy(undefined)).toEqual({});
});
