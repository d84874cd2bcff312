// The one way a moment is written, in status fields and in text: RFC 3339 in UTC to the second, as the
// Kubernetes API writes its own times (metav1.Time: creationTimestamp, Events, conditions) and kubectl
// prints them. Status times, condition messages and `kubectl resize` therefore read alike.

/** `2026-11-23T20:43:21Z` for a moment in ms since the epoch (the milliseconds are dropped, not rounded). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
