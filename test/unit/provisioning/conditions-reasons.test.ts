// Every condition reason of a ProvisioningRequest of our class: GKE's word where the situation is the
// same as in GKE's queued provisioning, ours where GKE has none. The literals here are GKE's
// (GoogleCloudPlatform/cluster-autoscaler, pkg/provisioningrequests), so a rename fails this table.
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { decideProvisioning } from "../../../src/controllers/provisioning/decide.js";
import { failedReason, Reason, waitingReason } from "../../../src/controllers/provisioning/conditions.js";
import { cond, pr, rr, snapshot } from "./fixtures.js";

const error = (code: string) => ({ errors: [{ code, message: "m" }] });

test.each<[string, ResizeRequestStatus, string]>([
  [
    "maxSize can never be met (QUOTA_EXCEEDED)",
    { state: "FAILED", error: error("QUOTA_EXCEEDED") },
    "NodepoolSizeReached",
  ],
  [
    "its queue deadline passed (DEADLINE_EXCEEDED)",
    { state: "FAILED", error: error("DEADLINE_EXCEEDED") },
    "WaitTimeExceeded",
  ],
  [
    "the target cannot be scaled",
    { state: "FAILED", error: error("UNSUPPORTED_OPERATION") },
    "UnsupportedOperation",
  ],
  ["cancelled by someone", { state: "CANCELLED" }, "InternalErrorResizeRequestGotCancelled"],
  [
    "the group is gone (ours)",
    { state: "FAILED", error: error("RESOURCE_NOT_FOUND") },
    "InstanceGroupManagerNotFound",
  ],
  ["any other error (ours)", { state: "FAILED", error: error("TARGET_MODIFIED") }, "ResizeRequestFailed"],
  ["no error recorded (ours)", { state: "FAILED" }, "ResizeRequestFailed"],
])("Failed from the ResizeRequest: %s → %s", (_, status, reason) => {
  expect(failedReason(rr(status))).toBe(reason);
  // And through the decision, on all three conditions.
  const plan = decideProvisioning(
    snapshot({
      request: pr({ conditions: [cond("Accepted", "True", Reason.Accepted)] }),
      resizeRequest: rr(status),
    }),
  );
  expect(plan.status?.conditions.find((c) => c.type === "Failed")).toMatchObject({ status: "True", reason });
});

const lastAttempt = (code: string): ResizeRequestStatus => ({
  state: "ACCEPTED",
  lastAttempt: { error: error(code) },
});
test.each<[string, ResizeRequestStatus, boolean, string]>([
  ["in the queue (ours)", { state: "ACCEPTED" }, false, "Queued"],
  ["its attempt in progress (ours)", { state: "ACCEPTED" }, true, "Provisioning"],
  [
    "after an attempt whose pods could not be scheduled",
    lastAttempt("ZONE_RESOURCE_POOL_EXHAUSTED"),
    false,
    "ResourcePoolExhausted",
  ],
  [
    "retrying after such an attempt (ours)",
    lastAttempt("ZONE_RESOURCE_POOL_EXHAUSTED"),
    true,
    "Provisioning",
  ],
  ["after an attempt that timed out otherwise (ours)", lastAttempt("PROVISIONING_TIMEOUT"), false, "Queued"],
])("Provisioned=False: %s → %s", (_, status, attempting, reason) => {
  expect(waitingReason(rr(status), attempting)).toBe(reason);
});

// GKE's reason for each situation it shares with us: SuccessfullyQueued, Provisioned, BookingExpired,
// CapacityRevoked, WaitTimeExceeded, ResourcePoolExhausted, NodepoolSizeReached, MissingPodTemplates,
// MissingResizeRequest, NoQueuedNodepoolAvailable, ProvisioningRequestNotSchedulableInNodepool.
const GKE =
  "SuccessfullyQueued Provisioned BookingExpired CapacityRevoked WaitTimeExceeded ResourcePoolExhausted NodepoolSizeReached MissingPodTemplates MissingResizeRequest NoQueuedNodepoolAvailable ProvisioningRequestNotSchedulableInNodepool";
test.each(GKE.split(" "))("GKE's %s is one of our reasons", (word) => {
  expect(Object.values(Reason)).toContain(word);
});

test("reasons are condition reasons, one per situation", () => {
  // Reasons are CamelCase words (metav1.Condition's reason pattern), each used for one situation.
  const values = Object.values(Reason);
  for (const r of values) expect(r).toMatch(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/);
  expect(new Set(values).size).toBe(values.length);
});
