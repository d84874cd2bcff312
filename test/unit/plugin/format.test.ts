// What `kubectl resize` prints: ages as kubectl shows them, the queue table, explain, and -o documents.
import { parse } from "yaml";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import {
  etaCell,
  explainText,
  printable,
  table,
  humanDuration,
  queueDocument,
  queueTable,
  serialize,
} from "../../../src/plugin/format.js";
import { errorLine } from "../../../src/plugin/main.js";
import type { QueueInsight } from "../../../src/queue/insight.js";
import { ApiError } from "../../../src/runtime/api-errors.js";

const NOW = Date.parse("2025-01-01T00:10:00.000Z");
const SEC = 1000;

const insight: QueueInsight = {
  queueLength: 2,
  history: { samples: 2, attemptDurationMs: 1500, successRate: 1 },
  head: undefined,
  releases: [],
  requests: [
    {
      name: "q1",
      position: 1,
      size: 2,
      waitingSince: NOW - 75 * SEC,
      state: "ACCEPTED",
      waitingFor: { kind: "Capacity", needs: 2, room: 0, replicas: 4, maxSize: 4 },
      eta: { basis: "exact", start: NOW + 20 * SEC, time: NOW + 21_500 },
      queueDeadline: undefined,
      missesDeadline: false,
    },
    {
      name: "q2-long-name",
      position: 2,
      size: 10,
      waitingSince: NOW - 5 * SEC,
      state: "CREATING",
      waitingFor: { kind: "BehindHead", head: "q1", ahead: 1 },
      eta: { basis: "unknown", reason: "no release frees room" },
      queueDeadline: undefined,
      missesDeadline: false,
    },
  ],
};

test.each([
  [0, "0s"],
  [119 * SEC, "119s"],
  [150 * SEC, "2m30s"],
  [600 * SEC, "10m"],
  [4 * 3600 * SEC + 60 * SEC, "4h1m"],
  [20 * 3600 * SEC, "20h"],
  [72 * 3600 * SEC, "3d"],
  [-5, "0s"],
])("humanDuration(%d) = %s", (ms, text) => {
  expect(humanDuration(ms)).toBe(text);
});

test("the queue table, and its wide form", () => {
  expect(queueTable(insight, NOW, false)).toBe(
    [
      "POSITION   REQUEST        SIZE   WAITING SINCE   ETA",
      "1          q1             2      75s             2025-01-01T00:10:21Z (exact)",
      "2          q2-long-name   10     5s              unknown",
      "",
    ].join("\n"),
  );
  const wide = queueTable(insight, NOW, true).split("\n");
  expect(wide[0]).toMatch(/ETA +STATE +START +WAITING FOR +REASON$/);
  expect(wide[1]).toMatch(/ACCEPTED +2025-01-01T00:10:20Z +Capacity \(needs 2, room 0\)$/);
  expect(wide[2]).toMatch(/CREATING +<none> +BehindHead \(q1\) +no release frees room$/);
});

test("-o json and -o yaml carry times to the millisecond", () => {
  const doc = queueDocument("team-a", "pool", insight, NOW);
  const json = JSON.parse(serialize(doc, "json")) as Record<string, unknown>;
  expect(json).toMatchObject({
    group: "pool",
    namespace: "team-a",
    queueLength: 2,
    recentAttempts: { samples: 2, attemptDurationSeconds: 1.5, successRate: 1 },
    requests: [
      {
        name: "q1",
        waitingSince: "2025-01-01T00:08:45.000Z",
        eta: { basis: "exact", start: "2025-01-01T00:10:20.000Z", time: "2025-01-01T00:10:21.500Z" },
      },
      { name: "q2-long-name", eta: { basis: "unknown", reason: "no release frees room" } },
    ],
  });
  expect(parse(serialize(doc, "yaml"))).toEqual(json);
});

test("explain: state, position, what it waits for, ETA, last attempt error, events", () => {
  const request: ResizeRequest = {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name: "q1", namespace: "team-a" },
    spec: { instanceGroupManager: "pool", resizeBy: 2, cancel: false },
    status: {
      state: "ACCEPTED",
      reason: "WaitingForCapacity",
      lastAttempt: { error: { errors: [{ code: "PROVISIONING_TIMEOUT", message: "only 1 of 2 ready" }] } },
    },
  };
  const text = explainText(
    {
      request,
      insight: insight.requests[0],
      queueLength: 2,
      events: [
        {
          namespace: "team-a",
          name: "e1",
          time: new Date(NOW - 60 * SEC).toISOString(),
          type: "Normal",
          reason: "Accepted",
          note: "Admitted.",
          object: "ResizeRequest/q1",
          count: 3,
        },
      ],
    },
    NOW,
  );
  expect(text).toBe(
    [
      "Name:           q1",
      "Namespace:      team-a",
      "Group:          pool",
      "Size:           2",
      "State:          ACCEPTED (WaitingForCapacity)",
      "Position:       1 of 2",
      "Waiting since:  2025-01-01T00:08:45Z (75s)",
      "Waiting for:    Room under maxSize: it needs 2 instances, 0 free (4 of 4 in use).",
      "ETA:            2025-01-01T00:10:21Z (in 21s; exact, attempt expected to start at 2025-01-01T00:10:20Z)",
      "Last attempt:",
      "  PROVISIONING_TIMEOUT: only 1 of 2 ready",
      "Events:",
      "  TYPE     REASON     AGE        MESSAGE",
      "  Normal   Accepted   60s (x3)   Admitted.",
      "",
    ].join("\n"),
  );
  expect(etaCell({ basis: "estimated", start: NOW, time: NOW })).toBe("2025-01-01T00:10:00Z (estimated)");
});

test("errors are spelled as kubectl spells them", () => {
  expect(
    errorLine(new ApiError(404, "NotFound", 'resizerequests.compute.resize-operator.dev "x" not found')),
  ).toBe('Error from server (NotFound): resizerequests.compute.resize-operator.dev "x" not found');
  expect(errorLine(new Error("connect ECONNREFUSED"))).toBe("error: connect ECONNREFUSED");
});

test("explain: a queue deadline before the expected start says the request will fail then", () => {
  const request: ResizeRequest = {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name: "q1", namespace: "team-a" },
    spec: { instanceGroupManager: "pool", resizeBy: 2, cancel: false, maxQueueDuration: "90s" },
    status: { state: "ACCEPTED", reason: "WaitingForCapacity" },
  };
  const head = insight.requests[0];
  if (!head) throw new Error("no head");
  const explain = (queueDeadline: number, missesDeadline: boolean): string =>
    explainText(
      { request, insight: { ...head, queueDeadline, missesDeadline }, queueLength: 2, events: [] },
      NOW,
    );
  expect(explain(NOW + 15 * SEC, true)).toContain(
    "Queue deadline: 2025-01-01T00:10:15Z (before the expected start: it will fail then unless the queue moves faster)",
  );
  expect(explain(NOW + 60 * SEC, false)).toContain("Queue deadline: 2025-01-01T00:11:00Z\n");
});

test("text from the cluster is printed with its control characters escaped: no escape sequence, no forged line", () => {
  expect(printable("a\u001b[2Jb\r\nc\u202ed\u0007")).toBe("a\\x1b[2Jb\\x0d\\x0ac\\u202ed\\x07");
  expect(printable("plain text: ünïcode stays")).toBe("plain text: ünïcode stays");
  const lines = table([
    ["TYPE", "MESSAGE"],
    ["Normal", "first\nWarning   Forged"],
  ]).split("\n");
  expect(lines).toEqual(["TYPE     MESSAGE", "Normal   first\\x0aWarning   Forged", ""]);
});
