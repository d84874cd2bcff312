// The provisioner starts only where the API server serves ProvisioningRequests (the CRD is installed).
import { provisioningRequestsServed } from "../../../src/provisioning/setup.js";
import { FakeKube } from "../../support/fake-kube.js";

test("served when discovery lists provisioningrequests/status of autoscaling.x-k8s.io/v1", async () => {
  const kube = new FakeKube().serve("autoscaling.x-k8s.io/v1", [
    { name: "provisioningrequests", kind: "ProvisioningRequest", namespaced: true },
    { name: "provisioningrequests/status", kind: "ProvisioningRequest", namespaced: true },
  ]);
  expect(await provisioningRequestsServed(kube)).toBe(true);
});

test("not served without the CRD, or without its status subresource", async () => {
  expect(await provisioningRequestsServed(new FakeKube())).toBe(false);
  const noStatus = new FakeKube().serve("autoscaling.x-k8s.io/v1", [
    { name: "provisioningrequests", kind: "ProvisioningRequest", namespaced: true },
  ]);
  expect(await provisioningRequestsServed(noStatus)).toBe(false);
});
