// stuckPods(): what a pod-placed kind (targets/pods.ts) makes of the target's pods and the cluster
// autoscaler's events on them for the fast rollback (decide/capacity.ts). The lists themselves are read from the real API server in
// test/integration/controller/policies.test.ts.
import { stuckPods } from "../../../src/targets/pods.js";
import type { CoreEvent, Pod } from "../../../src/runtime/builtin-kinds.js";

const SCHEDULER = "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.";

function pod(
  name: string,
  o: { phase?: string; reason?: string; since?: string; status?: string } = {},
): Pod {
  return {
    metadata: { name, uid: `uid-${name}` },
    status: {
      phase: o.phase ?? "Pending",
      conditions: [
        {
          type: "PodScheduled",
          status: o.status ?? "False",
          reason: o.reason ?? "Unschedulable",
          message: SCHEDULER,
          lastTransitionTime: o.since ?? "2025-01-01T00:09:50Z",
        },
      ],
    },
  };
}

/** A core/v1 Event on a pod, as client-go's recorder writes it (lastTimestamp) unless times are given. */
function event(podName: string, reason: string, times: Partial<CoreEvent> = {}): CoreEvent {
  return {
    involvedObject: { uid: `uid-${podName}`, name: podName },
    reason,
    message: `${reason} message`,
    ...(Object.keys(times).length > 0 ? times : { lastTimestamp: "2025-01-01T00:09:55Z" }),
  };
}

test("only Pending pods that the scheduler reported Unschedulable, with when they became so", () => {
  const stuck = stuckPods(
    [
      pod("w-0", { phase: "Running", status: "True", reason: "Scheduled" }),
      pod("w-1", { reason: "SchedulingGated" }),
      pod("w-2", { since: "2025-01-01T00:09:40Z" }),
      pod("w-3"),
    ],
    [],
  );
  expect(stuck.summary).toBe(`2 pod(s) Unschedulable: ${SCHEDULER}`);
  expect(stuck.pods).toEqual([
    { name: "w-2", sinceMs: Date.parse("2025-01-01T00:09:40Z"), autoscalerEvents: [] },
    { name: "w-3", sinceMs: Date.parse("2025-01-01T00:09:50Z"), autoscalerEvents: [] },
  ]);
});

test("no stuck pod: no summary", () => {
  expect(stuckPods([pod("w-0", { phase: "Running", status: "True", reason: "Scheduled" })], [])).toEqual({
    summary: undefined,
    pods: [],
  });
});

test("the autoscaler's scale-up verdicts are matched to pods by uid; other reasons are ignored", () => {
  const stuck = stuckPods(
    [pod("w-2")],
    [
      event("w-2", "NotTriggerScaleUp"),
      event("w-2", "FailedScheduling"),
      event("w-9", "TriggeredScaleUp"),
      { ...event("w-2", "TriggeredScaleUp"), involvedObject: { uid: "uid-of-an-older-w-2", name: "w-2" } },
    ],
  );
  expect(stuck.pods[0]?.autoscalerEvents).toEqual([
    {
      reason: "NotTriggerScaleUp",
      atMs: Date.parse("2025-01-01T00:09:55Z"),
      message: "NotTriggerScaleUp message",
    },
  ]);
});

test.each([
  {
    label: "legacy recorder: lastTimestamp",
    times: { firstTimestamp: "2025-01-01T00:09:00Z", lastTimestamp: "2025-01-01T00:09:30Z" },
    want: "2025-01-01T00:09:30Z",
  },
  {
    label: "events.k8s.io: eventTime",
    times: { eventTime: "2025-01-01T00:09:31.250000Z", lastTimestamp: null },
    want: "2025-01-01T00:09:31.250Z",
  },
  {
    label: "events.k8s.io series: lastObservedTime",
    times: {
      eventTime: "2025-01-01T00:09:00.000000Z",
      series: { lastObservedTime: "2025-01-01T00:09:45.000000Z" },
    },
    want: "2025-01-01T00:09:45Z",
  },
])("when a verdict was last posted — $label", ({ times, want }) => {
  const stuck = stuckPods([pod("w-2")], [event("w-2", "TriggeredScaleUp", times)]);
  expect(stuck.pods[0]?.autoscalerEvents[0]?.atMs).toBe(Date.parse(want));
});
