// The one time format, RFC 3339 in UTC: to the millisecond in fields and documents, to the second in text.
import { rfc3339, rfc3339Seconds } from "../../../src/api/time.js";

test.each([
  [Date.UTC(2026, 10, 23, 20, 43, 21), "2026-11-23T20:43:21.000Z", "2026-11-23T20:43:21Z"],
  // In text the milliseconds are dropped, never rounded up to a moment not yet reached.
  [Date.UTC(2026, 10, 23, 20, 43, 21, 999), "2026-11-23T20:43:21.999Z", "2026-11-23T20:43:21Z"],
  [0, "1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00Z"],
])("%d is written %s, in text %s", (ms, field, text) => {
  expect(rfc3339(ms)).toBe(field);
  expect(Date.parse(field)).toBe(ms);
  expect(rfc3339Seconds(ms)).toBe(text);
  expect(Date.parse(text)).toBe(Math.floor(ms / 1000) * 1000);
});
