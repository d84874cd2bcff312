// The words of the conditions (what Kueue copies onto the Workload) and the ResizeRequest a
// ProvisioningRequest gets, for the cases the decision tables do not reach.
import { PROVISIONING_CLASS } from "../../../src/api/provisioning-request.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import { etaPhrase, failureOf, waitingMessage } from "../../../src/controllers/provisioning/conditions.js";
import { resizeRequestFor, resizeRequestName } from "../../../src/controllers/provisioning/resize-request.js";
import { T0, group, pr, rr } from "./fixtures.js";

test.each([
  [{ basis: "exact", start: T0, time: T0 + 90_500 } as const, "ETA 2026-01-01T00:01:30Z (exact)"],
  [{ basis: "estimated", start: T0, time: T0 + 60_000 } as const, "ETA about 2026-01-01T00:01Z (estimated)"],
  [{ basis: "unknown", reason: "no maxSize" } as const, "ETA unknown: no maxSize"],
])("etaPhrase %#", (eta, text) => {
  expect(etaPhrase(eta)).toBe(text);
});

test("waiting without the queue model's view (its group just went): Queued, no position", () => {
  expect(waitingMessage(rr({ state: "ACCEPTED" }), undefined, 0)).toEqual({
    reason: "Queued",
    message: "Queued for 4 instances of InstanceGroupManager team-a/gpu.",
  });
});

test("a head that will miss its queue deadline says so", () => {
  const { message } = waitingMessage(
    rr({ state: "ACCEPTED" }),
    {
      name: "x",
      position: 1,
      size: 4,
      waitingSince: T0,
      state: "ACCEPTED",
      waitingFor: { kind: "Starting" },
      eta: { basis: "unknown", reason: "no history" },
      queueDeadline: T0 + 1000,
      missesDeadline: true,
    },
    1,
  );
  expect(message).toContain("The queue deadline comes before the expected start");
});

test.each<[ResizeRequestStatus, string]>([
  [
    { state: "FAILED", error: { errors: [{ code: "ZONE_RESOURCE_POOL_EXHAUSTED", message: "m" }] } },
    "ResizeRequestFailed",
  ],
  [{ state: "FAILED" }, "ResizeRequestFailed"],
])("failureOf %#", (status, reason) => {
  expect(failureOf(rr(status)).reason).toBe(reason);
});

test("a request without a Workload owner, in another namespace than its group, with a name that is no label", () => {
  const bare = pr({ name: "--Ünïcode--", namespace: "team-b" });
  const request = { ...bare, metadata: { ...bare.metadata, ownerReferences: undefined } };
  const made = resizeRequestFor(request, group("gpu", "team-a"), 2, {});
  expect(made.metadata.ownerReferences).toEqual([
    expect.objectContaining({ kind: "InstanceGroupManager" }) as object,
  ]);
  expect(made.metadata.annotations).toEqual({
    "compute.resize-operator.dev/provisioning-request": "team-b/--Ünïcode--",
  });
  expect(made.spec.description).toBe(
    `Capacity for ProvisioningRequest team-b/--Ünïcode-- (class ${PROVISIONING_CLASS}).`,
  );
  expect(made.spec.requestedRunDuration).toEqual({ seconds: "604800" });
  expect(resizeRequestName(request)).toMatch(/^pr-n-c-de-[0-9a-f]{10}$|^pr-[a-z0-9-]*[0-9a-f]{10}$/);
  const nameless = { ...request, metadata: { ...request.metadata, name: "" } };
  expect(resizeRequestName(nameless)).toBe("pr-0f1e2d3c4b");
});
