// The short wording of what a request waits for (a table cell of `kubectl resize queue`), beside the
// sentence the dashboard and `explain` show: one vocabulary in src/queue/text.ts.
import type { WaitingFor } from "../../../src/queue/insight.js";
import { waitingForShort } from "../../../src/queue/text.js";

const iso = (ms: number): string => new Date(ms).toISOString();

test.each<[WaitingFor, string]>([
  [{ kind: "Capacity", needs: 3, room: 2, replicas: 2, maxSize: 4 }, "Capacity (needs 3, room 2)"],
  [{ kind: "Backoff", until: 0 }, "Backoff (until 1970-01-01T00:00:00.000Z)"],
  [{ kind: "Attempt", attempt: 2, phase: "Applied", startedTime: 0 }, "Attempt 2 (Applied)"],
  [{ kind: "BehindHead", ahead: 1, head: "first" }, "BehindHead (first)"],
  [{ kind: "GroupMissing", group: "pool" }, "GroupMissing"],
  [{ kind: "Unschedulable", message: "0/4 nodes", until: undefined }, "Unschedulable"],
])("%j → %s", (w, text) => {
  expect(waitingForShort(w, iso)).toBe(text);
});
