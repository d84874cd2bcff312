// decideProvisioning() and the parameters the ecosystem writes: an unknown key accepted with a warning
// (or refused by a strict group), and GKE's ValidUntilSeconds failing a request not provisioned in time.
import type { ProvisioningRequest } from "../../../src/api/provisioning-request.js";
import type { ResizeRequestStatus } from "../../../src/api/resize-request.js";
import {
  decideProvisioning,
  REFRESH_MS,
  type ProvisioningPlan,
} from "../../../src/controllers/provisioning/decide.js";
import { POLICY_DEFAULTS, T0, at, cond, group, pr, rr, snapshot } from "./fixtures.js";

const condition = (plan: ProvisioningPlan, type: string) =>
  plan.status?.conditions.find((c) => c.type === type);
const reasons = (plan: ProvisioningPlan) => plan.events.map((e) => e.definition.reason);
const accepted = [cond("Accepted", "True", "SuccessfullyQueued"), cond("Provisioned", "False", "Queued")];
const waiting: ResizeRequestStatus = { state: "ACCEPTED" };

/** A request created at T0 with these parameters and conditions. */
const created = (
  parameters: Record<string, string>,
  conditions?: ReturnType<typeof cond>[],
): ProvisioningRequest => {
  const request = pr({ parameters, ...(conditions && { conditions }) });
  return { ...request, metadata: { ...request.metadata, creationTimestamp: at(0) } };
};

describe("an unknown parameter key", () => {
  test("is ignored: Accepted=True names it, and one Warning event does", () => {
    const plan = decideProvisioning(
      snapshot({ request: created({ colour: "blue", maxRunDurationSeconds: "60" }) }),
    );
    expect(plan.create?.spec.requestedRunDuration).toEqual({ seconds: "60" });
    expect(condition(plan, "Accepted")).toMatchObject({
      status: "True",
      message: expect.stringMatching(
        /asks InstanceGroupManager .* Ignored unknown parameter "colour" \(known: /,
      ) as string,
    });
    expect(reasons(plan)).toEqual(["Accepted", "UnknownParameters"]);
    expect(plan.events[1]?.definition.type).toBe("Warning");
    expect(plan.events[1]?.note).toContain('"colour"');
  });

  test("is not warned about again once accepted", () => {
    const plan = decideProvisioning(
      snapshot({ request: created({ colour: "blue" }, accepted), resizeRequest: rr(waiting) }),
    );
    expect(reasons(plan)).not.toContain("UnknownParameters");
  });

  test("fails the request on a group with strictParameters, and nothing is created", () => {
    const strict = group("gpu", "team-a", {
      provisioningRequests: { namespaces: "Same", ...POLICY_DEFAULTS, strictParameters: true },
    });
    const plan = decideProvisioning(snapshot({ request: created({ colour: "blue" }), groups: [strict] }));
    expect(plan.create).toBeUndefined();
    expect(condition(plan, "Failed")).toMatchObject({
      status: "True",
      reason: "InvalidParameters",
      message: expect.stringMatching(
        /unknown parameter "colour" .*team-a\/gpu sets provisioningRequests.strictParameters/,
      ) as string,
    });
  });
});

describe("ValidUntilSeconds", () => {
  const params = { ValidUntilSeconds: "120" };

  test("a new request is accepted and looked at again at its deadline", () => {
    const plan = decideProvisioning(snapshot({ request: created(params), nowMs: T0 + 60_000 }));
    expect(plan.create).toBeDefined();
    expect(plan.requeueAfterMs).toBe(60_000);
  });

  test("a waiting request is looked at again at the earlier of its refresh and its deadline", () => {
    const near = decideProvisioning(
      snapshot({ request: created(params, accepted), resizeRequest: rr(waiting), nowMs: T0 + 115_000 }),
    );
    expect(near.requeueAfterMs).toBe(5000);
    const far = decideProvisioning(
      snapshot({ request: created(params, accepted), resizeRequest: rr(waiting), nowMs: T0 + 10_000 }),
    );
    expect(far.requeueAfterMs).toBe(REFRESH_MS);
  });

  test.each<[string, ResizeRequestStatus]>([
    ["queued", { state: "ACCEPTED" }],
    ["being created", { state: "CREATING" }],
    ["without a status yet", {}],
  ])("elapsed while %s: Failed=True (WaitTimeExceeded), its ResizeRequest cancelled", (_, status) => {
    const held = rr(status);
    const plan = decideProvisioning(
      snapshot({ request: created(params, accepted), resizeRequest: held, nowMs: T0 + 120_000 }),
    );
    expect(condition(plan, "Failed")).toMatchObject({
      status: "True",
      reason: "WaitTimeExceeded",
      message: expect.stringContaining(`Not provisioned by ${at(120)}`) as string,
    });
    expect(plan.cancel).toBe(held);
    expect(reasons(plan)).toEqual(["Failed", "ResizeRequestCancelled"]);
    expect(plan.requeueAfterMs).toBeUndefined();
  });

  test("elapsed before it was accepted: Failed=True, nothing created, a namesake cancelled", () => {
    const namesake = rr(waiting);
    const plan = decideProvisioning(
      snapshot({ request: created(params), namesakes: [namesake], nowMs: T0 + 121_000 }),
    );
    expect(plan.create).toBeUndefined();
    expect(condition(plan, "Failed")?.reason).toBe("WaitTimeExceeded");
    expect(plan.cancel).toBe(namesake);
  });

  test("never after Provisioned=True", () => {
    const done = [
      cond("Accepted", "True", "SuccessfullyQueued"),
      cond("Provisioned", "True", "Provisioned", 60),
    ];
    const plan = decideProvisioning(
      snapshot({
        request: created(params, done),
        resizeRequest: rr({ state: "SUCCEEDED" }),
        nowMs: T0 + 600_000,
        consumed: true,
      }),
    );
    expect(condition(plan, "Failed")).toBeUndefined();
    expect(plan.cancel).toBeUndefined();
  });

  test("a ResizeRequest that succeeded at the deadline is reported Provisioned, not failed", () => {
    const plan = decideProvisioning(
      snapshot({
        request: created(params, accepted),
        resizeRequest: rr({ state: "SUCCEEDED" }),
        nowMs: T0 + 130_000,
      }),
    );
    expect(condition(plan, "Provisioned")?.status).toBe("True");
    expect(condition(plan, "Failed")).toBeUndefined();
  });
});
