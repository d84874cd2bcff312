// decideProvisioning() and whom it trusts: a group serves ProvisioningRequests only with its owner's
// consent (none by default); the place of the ResizeRequest is recorded at acceptance; a ResizeRequest
// found there, or a namesake made before a crash, is followed or adopted only when the provisioner made
// it for this request (its owner references); a PodTemplate owned by something else sizes nothing.
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import {
  decideProvisioning,
  REFRESH_MS,
  type ProvisioningPlan,
} from "../../../src/controllers/provisioning/decide.js";
import { UID, cond, gpuPod, group, pr, rr, snapshot, template, POLICY_DEFAULTS } from "./fixtures.js";

const condition = (plan: ProvisioningPlan, type: string) =>
  plan.status?.conditions.find((c) => c.type === type);
const reasons = (plan: ProvisioningPlan) => plan.events.map((e) => e.definition.reason);
const accepted = [cond("Accepted", "True", "SuccessfullyQueued"), cond("Provisioned", "False", "Queued")];
const recorded = {
  ResizeRequestName: "pr-job-a-prov-1-0f1e2d3c4b",
  InstanceGroupManager: "team-a/gpu",
  SelectedZone: "local-a",
  PodTemplateName: "ppt-job-a-prov-1-main",
};
const unowned = (o: ResizeRequest): ResizeRequest => ({
  ...o,
  metadata: { ...o.metadata, ownerReferences: undefined },
});

function expectFailed(plan: ProvisioningPlan, reason: string, message: RegExp): void {
  expect(plan.create).toBeUndefined();
  expect(condition(plan, "Failed")).toMatchObject({ status: "True", reason });
  expect(condition(plan, "Failed")?.message).toMatch(message);
  expect(condition(plan, "Accepted")).toMatchObject({ status: "False", reason });
  expect(reasons(plan)).toContain("Failed");
}

describe("the group owner's consent", () => {
  const noConsent = group("gpu", "team-a", { provisioningRequests: undefined });

  test.each<[string, Parameters<typeof snapshot>[0], string, RegExp]>([
    [
      "a group of the request's own namespace without spec.provisioningRequests (the default)",
      { groups: [noConsent] },
      "NoQueuedNodepoolAvailable",
      /serves them only once its owner allows the namespace .*; InstanceGroupManager team-a\/gpu allows no namespace \(None, the default/,
    ],
    [
      "the same group named by the request's parameter",
      { groups: [noConsent], request: pr({ parameters: { instanceGroupManager: "gpu" } }) },
      "NotAllowed",
      /InstanceGroupManager team-a\/gpu does not serve ProvisioningRequests of namespace team-a: .*allows no namespace/,
    ],
    [
      "namespaces: None said explicitly",
      {
        groups: [
          group("gpu", "team-a", { provisioningRequests: { namespaces: "None", ...POLICY_DEFAULTS } }),
        ],
      },
      "NoQueuedNodepoolAvailable",
      /team-a\/gpu allows no namespace/,
    ],
    [
      "a group of another namespace that allows only its own",
      {
        groups: [group("gpu", "infra")],
        request: pr({ parameters: { instanceGroupManager: "infra/gpu" } }),
      },
      "NotAllowed",
      /InstanceGroupManager infra\/gpu \(parameter instanceGroupManager\) does not exist or does not serve ProvisioningRequests of namespace team-a/,
    ],
  ])("is required: %s → Failed, no ResizeRequest", (_, o, reason, message) => {
    const plan = decideProvisioning(snapshot(o));
    expectFailed(plan, reason, message);
    expect(reasons(plan)).toEqual(["Failed"]);
  });

  test("given (namespaces: Same): the request is accepted and the place of its ResizeRequest recorded", () => {
    const plan = decideProvisioning(snapshot());
    expect(plan.create?.metadata).toMatchObject({ namespace: "team-a", name: recorded.ResizeRequestName });
    expect(condition(plan, "Accepted")).toMatchObject({ status: "True" });
    expect(plan.status?.provisioningClassDetails).toEqual(recorded);
  });
});

describe("a namesake ResizeRequest found before acceptance (made before a crash, or by someone else)", () => {
  test("made for it by the provisioner: adopted, nothing created, and followed at once", () => {
    const plan = decideProvisioning(snapshot({ namesakes: [rr({ state: "ACCEPTED" })] }));
    expect(plan.create).toBeUndefined();
    expect(condition(plan, "Accepted")).toMatchObject({ status: "True", reason: "SuccessfullyQueued" });
    expect(condition(plan, "Provisioned")).toMatchObject({ status: "False", reason: "Queued" });
    expect(plan.status?.provisioningClassDetails).toEqual(recorded);
    expect(plan.requeueAfterMs).toBe(REFRESH_MS);
  });

  test("in the group's namespace but not owned as the provisioner makes it: Failed, left alone", () => {
    const plan = decideProvisioning(snapshot({ namesakes: [unowned(rr({ state: "ACCEPTED" }))] }));
    expectFailed(
      plan,
      "ResizeRequestNotOwned",
      /ResizeRequest team-a\/pr-job-a-prov-1-0f1e2d3c4b is not the one/,
    );
    expect(plan.cancel).toBeUndefined();
  });

  test("in another namespace than the group's: ignored, the request gets its own", () => {
    const elsewhere = rr({ state: "ACCEPTED" });
    const forged = { ...elsewhere, metadata: { ...elsewhere.metadata, namespace: "mallory" } };
    const plan = decideProvisioning(snapshot({ namesakes: [forged] }));
    expect(plan.create?.metadata.namespace).toBe("team-a");
    expect(condition(plan, "Accepted")).toMatchObject({ status: "True" });
  });

  test("made for it, when the request now fails (its group lost its consent): cancelled", () => {
    const plan = decideProvisioning(
      snapshot({
        groups: [group("gpu", "team-a", { provisioningRequests: undefined })],
        namesakes: [rr({ state: "ACCEPTED" })],
      }),
    );
    expectFailed(plan, "NoQueuedNodepoolAvailable", /allows no namespace/);
    expect(plan.cancel?.metadata.name).toBe(recorded.ResizeRequestName);
    expect(reasons(plan)).toEqual(["Failed", "ResizeRequestCancelled"]);
  });
});

describe("after acceptance, the ResizeRequest at the recorded place", () => {
  test("not made for it (no owner references): Failed with the reason, never followed nor cancelled", () => {
    const plan = decideProvisioning(
      snapshot({
        request: pr({ conditions: accepted, details: recorded }),
        resizeRequest: unowned(rr({ state: "SUCCEEDED" })),
      }),
    );
    expectFailed(
      plan,
      "ResizeRequestNotOwned",
      /must be owned by ProvisioningRequest job-a-prov-1 \(uid [^)]+\), InstanceGroupManager gpu/,
    );
    expect(condition(plan, "Provisioned")?.status).toBe("False");
    expect(plan.cancel).toBeUndefined();
  });

  test("a failed request leaves one it did not make alone", () => {
    const failed = [...accepted, cond("Failed", "True", "ResizeRequestNotOwned")];
    const plan = decideProvisioning(
      snapshot({
        request: pr({ conditions: failed, details: recorded }),
        resizeRequest: unowned(rr({ state: "ACCEPTED" })),
      }),
    );
    expect(plan).toEqual({ events: [] });
  });
});

test("a PodTemplate owned by something else than the request sizes nothing: Failed", () => {
  const t = template("ppt-job-a-prov-1-main", gpuPod());
  const ownedBy = (uid: string) => ({
    ...t,
    metadata: {
      ...t.metadata,
      ownerReferences: [
        { apiVersion: "autoscaling.x-k8s.io/v1", kind: "ProvisioningRequest", name: "x", uid },
      ],
    },
  });
  const plan = decideProvisioning(snapshot({ templates: new Map([[t.metadata.name ?? "", ownedBy("x")]]) }));
  expectFailed(
    plan,
    "PodTemplateNotOwned",
    /owned by ProvisioningRequest x \(uid x\), not by this ProvisioningRequest/,
  );
  const mine = snapshot({ templates: new Map([[t.metadata.name ?? "", ownedBy(UID)]]) });
  expect(decideProvisioning(mine).create).toBeDefined();
});
