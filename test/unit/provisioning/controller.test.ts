// The provisioner's pass deletes the ResizeRequests of finished or deleted ProvisioningRequests once
// its retention elapsed (conditionally on what it decided on, with a RetentionExpired Event), and
// otherwise looks again when the next one is due; a deleted request's ResizeRequests still queued are
// cancelled first.
import type { InstanceGroupManager } from "../../../src/api/instance-group-manager.js";
import { PROVISIONING_REQUESTS, RESIZE_REQUESTS } from "../../../src/api/kinds.js";
import type { PrCondition, ProvisioningRequest } from "../../../src/api/provisioning-request.js";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { REQUEST_INDEXERS } from "../../../src/cache/indexes.js";
import { consumptionCache } from "../../../src/controllers/provisioning/observe.js";
import { provisioningReconciler } from "../../../src/controllers/provisioning/controller.js";
import { Store } from "../../../src/runtime/store.js";
import { captureLog } from "../../support/log-capture.js";
import { FakeKube } from "../../support/fake-kube.js";
import { RecordingRecorder } from "../controller/cluster.js";
import { T0, at, cancelledAt, cond, group, pr, rr } from "./fixtures.js";

const cancelled = cancelledAt(120);
const failed: PrCondition[] = [
  cond("Accepted", "False", "WaitTimeExceeded", 100),
  cond("Provisioned", "False", "WaitTimeExceeded", 100),
  cond("Failed", "True", "WaitTimeExceeded", 100),
];
const recorded = { ResizeRequestName: "pr-job-a-prov-1-0f1e2d3c4b", InstanceGroupManager: "team-a/gpu" };

function world(
  request: ProvisioningRequest | undefined,
  served: ResizeRequest | readonly ResizeRequest[],
  nowMs: number,
) {
  const requests = new Store<ProvisioningRequest>();
  const client = new FakeKube();
  if (request) {
    requests.set(request);
    client.seed(PROVISIONING_REQUESTS, request);
  }
  const resizeRequests = new Store<ResizeRequest>(REQUEST_INDEXERS);
  for (const x of "metadata" in served ? [served] : served)
    resizeRequests.set(client.seed(RESIZE_REQUESTS, x) as unknown as ResizeRequest);
  const groups = new Store<InstanceGroupManager>();
  groups.set(group());
  const recorder = new RecordingRecorder();
  const reconcile = provisioningReconciler({
    provisioningRequests: requests,
    resizeRequests,
    groups,
    client,
    recorder,
    now: () => nowMs,
    consumption: consumptionCache(),
    retentionMs: 3_600_000,
  });
  const { log: logger } = captureLog();
  const run = () =>
    reconcile(
      { namespace: "team-a", name: "job-a-prov-1" },
      { signal: new AbortController().signal, log: logger, retries: 0 },
    );
  return { client, recorder, run };
}

test("a Failed request's cancelled ResizeRequest: looked at again when the hour is up, then deleted", async () => {
  const request = pr({ conditions: failed, details: recorded });
  const early = world(request, rr(cancelled), T0 + 1_920_000);
  expect(await early.run()).toEqual({ requeueAfterMs: 1_800_000 });
  expect(early.client.writes()).toEqual([]);

  const due = world(request, rr(cancelled), T0 + 3_720_000);
  expect(await due.run()).toBeUndefined();
  expect(
    due.client.peek(RESIZE_REQUESTS, { namespace: "team-a", name: "pr-job-a-prov-1-0f1e2d3c4b" }),
  ).toBeUndefined();
  expect(due.recorder.emitted.map((e) => [e.reason, e.note])).toEqual([
    [
      "RetentionExpired",
      `Deleted: CANCELLED since ${at(120)} and its ProvisioningRequest is Failed, past the provisioner's --provisioning-resize-request-retention of 1h.`,
    ],
  ]);
});

test("a deleted request's cancelled ResizeRequest is deleted too; one still held is not", async () => {
  const gone = world(undefined, rr(cancelled), T0 + 3_720_000);
  expect(await gone.run()).toBeUndefined();
  expect(gone.recorder.emitted.map((e) => e.note)).toEqual([
    expect.stringContaining("its ProvisioningRequest is gone"),
  ]);

  const held = world(
    undefined,
    rr({ state: "SUCCEEDED", succeededTime: at(60), runUntil: at(7200) }),
    T0 + 3_720_000,
  );
  expect(await held.run()).toBeUndefined();
  expect(held.client.writes()).toEqual([]);
});

test("a deleted request's ResizeRequests in one pass: the queued one cancelled, then the one past retention deleted", async () => {
  const queued = rr({ state: "ACCEPTED" }, { name: "queued" });
  const gone = world(undefined, [queued, rr(cancelled)], T0 + 3_720_000);
  expect(await gone.run()).toBeUndefined();
  expect(gone.client.writes()).toEqual([
    { verb: "mergePatch", resource: "resizerequests", namespace: "team-a", name: "queued" },
    { verb: "delete", resource: "resizerequests", namespace: "team-a", name: "pr-job-a-prov-1-0f1e2d3c4b" },
  ]);
  expect(gone.client.peek(RESIZE_REQUESTS, { namespace: "team-a", name: "queued" })).toMatchObject({
    spec: { cancel: true },
  });
});
