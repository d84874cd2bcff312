// The provisioner starts only where the API server serves ProvisioningRequests (the CRD is installed).
import { PROVISIONING_REQUESTS } from "../../../src/api/kinds.js";
import { servesWithStatus } from "../../../src/runtime/resource-client.js";
import { FakeKube } from "../../support/fake-kube.js";

test("served when discovery lists provisioningrequests/status of autoscaling.x-k8s.io/v1", async () => {
  const kube = new FakeKube().serve("autoscaling.x-k8s.io/v1", [
    { name: "provisioningrequests", kind: "ProvisioningRequest", namespaced: true },
    { name: "provisioningrequests/status", kind: "ProvisioningRequest", namespaced: true },
  ]);
  expect(await servesWithStatus(kube, PROVISIONING_REQUESTS)).toBe(true);
});

test("not served without the CRD, or without its status subresource", async () => {
  expect(await servesWithStatus(new FakeKube(), PROVISIONING_REQUESTS)).toBe(false);
  const noStatus = new FakeKube().serve("autoscaling.x-k8s.io/v1", [
    { name: "provisioningrequests", kind: "ProvisioningRequest", namespaced: true },
  ]);
  expect(await servesWithStatus(noStatus, PROVISIONING_REQUESTS)).toBe(false);
});
