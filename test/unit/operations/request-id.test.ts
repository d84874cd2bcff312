// What a requestId is bound to: the user, the method and the resize request of the call that first used
// it. Only that call matches; a value stored by a release before bindings is held to its Operation.
import type { Operation } from "../../../src/api/operation.js";
import {
  bindingOf,
  parseRequestIdValue,
  requestIdValue,
  requestTarget,
  sameCall,
  type RequestIdCall,
} from "../../../src/operations/request-id.js";

const call: RequestIdCall = {
  caller: "system:serviceaccount:team-a:alice",
  operationType: "compute.instanceGroupManagerResizeRequests.insert",
  target: requestTarget({ scope: "zones", name: "local-a" }, "workers", "first"),
};
const op: Pick<Operation, "user" | "operationType" | "targetLink"> = {
  user: call.caller,
  operationType: "compute.instanceGroupManagerResizeRequests.insert",
  targetLink: `https://ops.example/compute/v1/projects/team-a/${call.target}`,
};

test("the target is the resize request's path under the project, zonal or regional", () => {
  expect(call.target).toBe("zones/local-a/instanceGroupManagers/workers/resizeRequests/first");
  expect(requestTarget({ scope: "regions", name: "r" }, "g", "x")).toBe(
    "regions/r/instanceGroupManagers/g/resizeRequests/x",
  );
});

test("the stored value carries the member and a fixed-length binding, read back as written", () => {
  const value = requestIdValue("local-a/operation-1", { ...call, caller: "dashboard:ann smith@example.com" });
  expect(value).toMatch(/^local-a\/operation-1 [0-9a-f]{64}$/);
  expect(parseRequestIdValue(value)).toEqual({ member: "local-a/operation-1", binding: value.slice(20) });
  expect(parseRequestIdValue("regions/r/operation-2")).toEqual({ member: "regions/r/operation-2" });
});

test.each<[string, Partial<RequestIdCall>, boolean]>([
  ["the same call", {}, true],
  ["another user", { caller: "system:serviceaccount:team-a:bob" }, false],
  ["another method", { operationType: "compute.instanceGroupManagerResizeRequests.cancel" }, false],
  [
    "another resize request",
    { target: requestTarget({ scope: "zones", name: "local-a" }, "workers", "x") },
    false,
  ],
  ["another group", { target: requestTarget({ scope: "zones", name: "local-a" }, "other", "first") }, false],
  ["another zone", { target: requestTarget({ scope: "zones", name: "local-b" }, "workers", "first") }, false],
])("bound: %s → %s", (_, change, expected) => {
  const stored = parseRequestIdValue(requestIdValue("local-a/operation-1", call));
  expect(sameCall(stored, op, { ...call, ...change })).toBe(expected);
  // A value an earlier release wrote is held to what its Operation records, with the same outcome.
  expect(sameCall({}, op, { ...call, ...change })).toBe(expected);
});

test("a bound value answers without its Operation; an unbound one whose Operation is gone matches nothing", () => {
  expect(sameCall({ binding: bindingOf(call) }, undefined, call)).toBe(true);
  expect(sameCall({}, undefined, call)).toBe(false);
});
