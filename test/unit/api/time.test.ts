// The one time format: RFC 3339 in UTC to the second, as the Kubernetes API writes metav1.Time.
import { rfc3339 } from "../../../src/api/time.js";

test.each([
  [Date.UTC(2026, 10, 23, 20, 43, 21), "2026-11-23T20:43:21Z"],
  // Milliseconds are dropped, never rounded up to a moment not yet reached.
  [Date.UTC(2026, 10, 23, 20, 43, 21, 999), "2026-11-23T20:43:21Z"],
  [0, "1970-01-01T00:00:00Z"],
])("%d is written %s", (ms, text) => {
  expect(rfc3339(ms)).toBe(text);
  expect(Date.parse(text)).toBe(Math.floor(ms / 1000) * 1000);
});
