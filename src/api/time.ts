// The one place a moment is written as text, RFC 3339 in UTC, at the precision its reader needs:
// - in a status field or a document (`-o json|yaml`), to the millisecond: the value read back is the one
//   decided on, and two requests that finished within the same second still order;
// - in text for people (condition messages, `kubectl resize` tables and sentences), to the second, as
//   kubectl prints times — a message that names an ETA then changes only when the second does.

/** `2026-11-23T20:43:21.123Z`: a moment (ms since the epoch) for a status field or a document. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

/** `2026-11-23T20:43:21Z`: a moment for text, to the second (the milliseconds are dropped, not rounded). */
export function rfc3339Seconds(ms: number): string {
  return rfc3339(ms).replace(/\.\d{3}Z$/, "Z");
}
