// The short wording of what a request waits for (a table cell of `kubectl resize queue`), beside the
// sentence the dashboard and `explain` show: one vocabulary in src/queue/text.ts.
import type { WaitingFor } from "../../../src/queue/insight.js";
import { waitingForSentence, waitingForShort } from "../../../src/queue/text.js";

const iso = (ms: number): string => new Date(ms).toISOString();

test.each<[WaitingFor, string]>([
  [{ kind: "Capacity", needs: 3, room: 2, replicas: 2, maxSize: 4 }, "Capacity (needs 3, room 2)"],
  [{ kind: "Backoff", until: 0 }, "Backoff (until 1970-01-01T00:00:00.000Z)"],
  [{ kind: "Attempt", attempt: 2, phase: "Applied", startedTime: 0 }, "Attempt 2 (Applied)"],
  [{ kind: "BehindHead", ahead: 1, head: "first" }, "BehindHead (first)"],
  [{ kind: "GroupMissing", group: "pool" }, "GroupMissing"],
  [{ kind: "Unschedulable", message: "0/4 nodes", until: undefined }, "Unschedulable"],
  [{ kind: "Booking", booking: "sale", until: 0 }, "Booking (sale, until 1970-01-01T00:00:00.000Z)"],
  [{ kind: "Booking", booking: "sale", until: undefined }, "Booking (sale)"],
])("%j → %s", (w, text) => {
  expect(waitingForShort(w, iso)).toBe(text);
});

test.each<[WaitingFor, string]>([
  [
    { kind: "Booking", booking: "sale", until: 0 },
    "Capacity booked ahead: FutureReservation sale holds the group's room until 1970-01-01T00:00:00.000Z, when it can start.",
  ],
  [
    { kind: "Booking", booking: "sale", until: undefined },
    "Capacity booked ahead: FutureReservation sale holds the group's room beyond the next 90 days.",
  ],
])("the sentence for %j", (w, text) => {
  expect(waitingForSentence(w, iso)).toBe(text);
});
