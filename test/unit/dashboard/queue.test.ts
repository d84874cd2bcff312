// The dashboard's queue insight: the answer of GET /groups/:ns/:name/queue built from the caches (the
// BY_GROUP index, target counts from the group's status, release times for the forecast), the sentences
// and relative times the pages show, and the chart's projected target size.
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { API_VERSION } from "../../../src/api/names.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { REQUEST_INDEXERS } from "../../../src/cache/indexes.js";
import type { QueueAnswer } from "../../../src/dashboard/answers.js";
import { durationText, etaBasisText, relativeTime, waitingForSentence } from "../../../src/queue/text.js";
import { groupQueue, statusTarget } from "../../../src/cache/group-queue.js";
import { queueAnswer } from "../../../src/dashboard/queue-answer.js";
import { projectedTarget } from "../../../src/dashboard/ui/chart.js";
import type { WaitingFor } from "../../../src/queue/insight.js";
import { Store } from "../../../src/runtime/store.js";

const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const iso = (s: number): string => new Date(NOW + s * 1000).toISOString();

const pool: InstanceGroupManager = {
  apiVersion: API_VERSION,
  kind: "InstanceGroupManager",
  metadata: { name: "pool", namespace: "ml" },
  spec: {
    zone: "local-a",
    targetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "workers" },
    maxSize: 4,
    minSize: 0,
    provisioningTimeout: "10m",
    readyReplicasField: "status.readyReplicas",
    clusterAutoscaler: "Detect",
    unschedulableGracePeriod: "60s",
  },
  status: { targetSize: 3, readyInstances: 3 },
};

const request = (
  name: string,
  created: number,
  size: number,
  extra: { run?: number; status?: ResizeRequest["status"]; group?: string } = {},
): ResizeRequest => ({
  apiVersion: API_VERSION,
  kind: "ResizeRequest",
  metadata: { name, namespace: "ml", creationTimestamp: iso(created) },
  spec: {
    instanceGroupManager: extra.group ?? "pool",
    resizeBy: size,
    cancel: false,
    ...(extra.run !== undefined && { requestedRunDuration: { seconds: String(extra.run) } }),
  },
  ...(extra.status && { status: extra.status }),
});

/** Holds 3 of maxSize 4 until +100 s; its attempt took 20 s. */
const running = request("running", -500, 3, {
  run: 3600,
  status: {
    state: "SUCCEEDED",
    attempts: 1,
    provisioningStartedTime: iso(-400),
    succeededTime: iso(-380),
    runUntil: iso(100),
  },
});

function caches(groups: InstanceGroupManager[], requests: ResizeRequest[]) {
  const g = new Store<InstanceGroupManager>();
  for (const x of groups) g.set(x);
  const r = new Store<ResizeRequest>(REQUEST_INDEXERS);
  for (const x of requests) r.set(x);
  return { groups: g, requests: r };
}

describe("the queue answer (queue model on the caches)", () => {
  test("reads the group's requests by index, the target from its status, and lists when capacity frees", () => {
    const c = caches(
      [pool],
      [
        running,
        request("wait-2", -60, 2, { run: 300, status: { state: "ACCEPTED" } }),
        request("wait-1", -90, 1, { status: { state: "ACCEPTED" } }),
        request("other-group", -95, 1, { group: "elsewhere", status: { state: "ACCEPTED" } }),
      ],
    );
    const answer = queueAnswer(groupQueue(c.groups, c.requests, "ml/pool", NOW), NOW);
    expect(answer.exists).toBe(true);
    expect(answer.queueLength).toBe(2);
    expect(answer.history).toEqual({ samples: 1, attemptDurationMs: 20_000, successRate: 1 });
    // 3 + 1 fits under 4: wait-1 starts now; wait-2 (2) needs the release of "running" at +100 s.
    expect(answer.requests.map((r) => [r.name, r.position, r.waitingFor.kind, r.eta])).toEqual([
      ["wait-1", 1, "Starting", { basis: "exact", start: NOW, time: NOW + 20_000 }],
      ["wait-2", 2, "BehindHead", { basis: "exact", start: NOW + 100_000, time: NOW + 120_000 }],
    ]);
    expect(answer.releases).toEqual([
      { request: "running", size: 3, time: NOW + 100_000, basis: "scheduled" },
      { request: "wait-2", size: 2, time: NOW + 420_000, basis: "exact" },
    ]);
    // The answer is plain JSON: what the browser receives is what the server computed.
    expect(JSON.parse(JSON.stringify(answer))).toEqual(answer);
  });

  test("a released request frees nothing more, a due one frees now; a group not written yet has no target", () => {
    const released = request("released", -900, 1, {
      run: 60,
      status: {
        ...running.status,
        state: "SUCCEEDED",
        runUntil: iso(-700),
        release: { phase: "Applied", baseReplicas: 4, targetReplicas: 3, startedTime: iso(-700) },
      },
    });
    const due = request("due", -800, 1, {
      run: 60,
      status: { ...running.status, state: "SUCCEEDED", runUntil: iso(-5) },
    });
    const fresh = { ...pool, status: {} };
    const c = caches([fresh], [released, due, request("w", -10, 1, { status: { state: "ACCEPTED" } })]);
    const q = groupQueue(c.groups, c.requests, "ml/pool", NOW);
    expect(statusTarget(fresh)).toBeUndefined();
    expect(q.insight.head?.waitingFor.kind).toBe("TargetMissing");
    const answer = queueAnswer(q, NOW);
    expect(answer.releases).toEqual([{ request: "due", size: 1, time: NOW, basis: "scheduled" }]);
  });

  test("requests of a group that does not exist are still shown, waiting for it", () => {
    const c = caches([], [request("early", -10, 1)]);
    const answer = queueAnswer(groupQueue(c.groups, c.requests, "ml/pool", NOW), NOW);
    expect(answer.exists).toBe(false);
    expect(answer.requests[0]?.waitingFor).toEqual({ kind: "GroupMissing", group: "pool" });
    expect(answer.requests[0]?.eta).toEqual({ basis: "unknown", reason: "the group does not exist" });
  });
});

describe("sentences", () => {
  const t = (ms: number): string => new Date(ms).toISOString();
  test.each<[WaitingFor, string]>([
    [{ kind: "GroupMissing", group: "pool" }, "The group pool does not exist (yet)."],
    [
      { kind: "TargetMissing", target: "Deployment/workers" },
      "The group's target Deployment/workers is missing or cannot be scaled.",
    ],
    [
      { kind: "Capacity", needs: 3, room: 1, replicas: 3, maxSize: 4 },
      "Room under maxSize: it needs 3 instances, 1 free (3 of 4 in use).",
    ],
    [
      { kind: "Capacity", needs: 1, room: 0, replicas: 4, maxSize: 4 },
      "Room under maxSize: it needs 1 instance, 0 free (4 of 4 in use).",
    ],
    [
      { kind: "Backoff", until: NOW + 30_000 },
      "The backoff after a failed attempt, until 2026-03-01T12:00:30.000Z.",
    ],
    [
      { kind: "Unschedulable", message: "0/3 nodes are available", until: undefined },
      "Capacity in the cluster: the last attempt's pods were Unschedulable (0/3 nodes are available).",
    ],
    [
      { kind: "Unschedulable", message: "0/3 nodes are available", until: NOW },
      "Capacity in the cluster: the last attempt's pods were Unschedulable (0/3 nodes are available); next attempt at 2026-03-01T12:00:00.000Z.",
    ],
    [
      { kind: "Attempt", attempt: 2, phase: "Applied", startedTime: NOW },
      "Its attempt #2 to finish (Applied, started 2026-03-01T12:00:00.000Z).",
    ],
    [{ kind: "Starting" }, "Nothing: its attempt starts at the controller's next pass."],
    [
      { kind: "BehindHead", head: "first", ahead: 1 },
      "Its turn: 1 request ahead of it, first first (first come, first served).",
    ],
    [
      { kind: "BehindHead", head: "a", ahead: 3 },
      "Its turn: 3 requests ahead of it, first a (first come, first served).",
    ],
  ])("%j", (w, sentence) => {
    expect(waitingForSentence(w, t)).toBe(sentence);
  });

  test("the ETA's basis in words; an unknown one says why", () => {
    expect(etaBasisText({ basis: "exact", start: 0, time: 1 })).toMatch(
      /^exact: capacity frees at known release times/,
    );
    expect(etaBasisText({ basis: "estimated", start: 0, time: 1 })).toMatch(
      /^estimated from the group's recent/,
    );
    expect(etaBasisText({ basis: "unknown", reason: "the group does not exist" })).toBe(
      "unknown: the group does not exist",
    );
  });

  test.each([
    [NOW, "now"],
    [NOW + 400, "now"],
    [NOW + 42_000, "in 42s"],
    [NOW + 3 * 60_000 + 59_000, "in 3m"],
    [NOW + 60 * 60_000, "in 1h"],
    [NOW + 125 * 60_000, "in 2h 5m"],
    [NOW + 28 * 3600_000, "in 1d 4h"],
    [NOW + 48 * 3600_000, "in 2d"],
    [NOW - 90_000, "1m ago"],
  ])("relativeTime(%d) = %s", (ms, text) => {
    expect(relativeTime(ms, NOW)).toBe(text);
  });

  test("durations have no sign", () => {
    expect(durationText(-20_000)).toBe("20s");
  });
});

describe("the chart's forecast", () => {
  const queue = (q: Partial<QueueAnswer>): QueueAnswer => ({
    now: NOW,
    exists: true,
    queueLength: 0,
    history: null,
    requests: [],
    releases: [],
    ...q,
  });
  const insight = (
    name: string,
    size: number,
    eta: QueueAnswer["requests"][number]["eta"],
    kind: WaitingFor = { kind: "Starting" },
  ) => ({
    name,
    position: 1,
    size,
    waitingSince: NOW,
    state: "ACCEPTED",
    waitingFor: kind,
    eta,
    queueDeadline: undefined,
    missesDeadline: false,
  });

  test("adds each queued request at its expected start and takes releases off (never below minSize)", () => {
    const f = {
      minSize: 1,
      queue: queue({
        requests: [
          insight(
            "in-attempt",
            2,
            { basis: "exact", start: NOW - 5000, time: NOW + 5000 },
            {
              kind: "Attempt",
              attempt: 1,
              phase: "Applied",
              startedTime: NOW - 5000,
            },
          ),
          insight("next", 3, { basis: "estimated", start: NOW + 100_000, time: NOW + 120_000 }),
          insight("unknowable", 9, { basis: "unknown", reason: "no history" }),
        ],
        releases: [
          { request: "held", size: 4, time: NOW + 100_000, basis: "scheduled" },
          { request: "next", size: 3, time: NOW + 500_000, basis: "estimated" },
        ],
      }),
    };
    // 4 now (the attempt's 2 included); at +100 s "held" leaves (4 → 1, floor 1) before "next" adds 3.
    expect(projectedTarget(4, f)).toEqual([
      { t: NOW, v: 4 },
      { t: NOW + 100_000, v: 1 },
      { t: NOW + 100_000, v: 4 },
      { t: NOW + 500_000, v: 1 },
    ]);
  });
});
