// The rows of listManagedInstances: one per instance a request holds, with the holding request's name in
// version.name and the status derived from the request's state.
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { managedInstanceRows } from "../../../src/rest/managed-instances.js";

const BASE = "https://ops.example/compute/v1/projects/team/zones/z1";

function request(name: string, state: string, instances: unknown): ResizeRequest {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name, namespace: "team" },
    spec: { instanceGroupManager: "g", resizeBy: 1 },
    status: { state, instances },
  } as unknown as ResizeRequest;
}

test("each held instance is a row naming its request, sorted by name", () => {
  const rows = managedInstanceRows(
    [
      request("later", "ACCEPTED", [{ name: "web-b", kind: "Pod" }]),
      request("earlier", "SUCCEEDED", [
        { name: "web-c", kind: "Pod" },
        { name: "web-a", kind: "Pod" },
      ]),
      request("ended", "CANCELLED", [{ name: "web-d", kind: "Pod" }]),
    ],
    BASE,
  );
  expect(rows).toEqual([
    {
      instance: `${BASE}/instances/web-a`,
      name: "web-a",
      instanceStatus: "RUNNING",
      currentAction: "NONE",
      version: { name: "earlier" },
    },
    {
      instance: `${BASE}/instances/web-b`,
      name: "web-b",
      instanceStatus: "PROVISIONING",
      currentAction: "CREATING",
      version: { name: "later" },
    },
    {
      instance: `${BASE}/instances/web-c`,
      name: "web-c",
      instanceStatus: "RUNNING",
      currentAction: "NONE",
      version: { name: "earlier" },
    },
    {
      instance: `${BASE}/instances/web-d`,
      name: "web-d",
      instanceStatus: "STOPPING",
      currentAction: "DELETING",
      version: { name: "ended" },
    },
  ]);
});

test("a request without status.instances, or with a malformed one, holds no row", () => {
  expect(
    managedInstanceRows([request("a", "SUCCEEDED", undefined), request("b", "SUCCEEDED", "x")], BASE),
  ).toEqual([]);
});
