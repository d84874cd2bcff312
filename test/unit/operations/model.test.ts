import type { Operation, ResizeRequest } from "../../../src/api/index.js";
import { numericId } from "../../../src/api/identity.js";
import { advance } from "../../../src/operations/advance.js";
import { failed, mergeOperation, newOperation } from "../../../src/operations/model.js";
import { toRestResizeRequest } from "../../../src/rest/convert.js";

const T0 = "2026-01-01T00:00:00.000Z";
const T1 = "2026-01-01T00:00:05.000Z";

function op(type: Operation["operationType"], targetId = numericId("uid-1")): Operation {
  return newOperation({
    ref: { project: "p", location: { scope: "zones", name: "z" }, name: "operation-1" },
    id: "7",
    operationType: type,
    locationUrl: "http://x/compute/v1/projects/p/zones/z",
    targetLink: "http://x/t",
    targetId,
    user: "alice",
    insertTime: T0,
  });
}

function rr(state?: string, extra: Record<string, unknown> = {}): ResizeRequest {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name: "r", namespace: "p", uid: "uid-1", creationTimestamp: T0 },
    spec: { instanceGroupManager: "g", resizeBy: 3, cancel: false },
    ...(state !== undefined && { status: { state, ...extra } }),
  } as ResizeRequest;
}

describe("mergeOperation", () => {
  test("status and progress only move forward; times are stamped once; DONE is final", () => {
    const base = op("compute.instanceGroupManagerResizeRequests.insert");
    const running = mergeOperation(base, { status: "RUNNING", progress: 40 }, T0);
    expect(running).toMatchObject({ status: "RUNNING", progress: 40, startTime: T0 });
    if (!running) throw new Error("expected a change");
    expect(mergeOperation(running, { status: "PENDING", progress: 10 }, T1)).toBeUndefined();
    const done = mergeOperation(running, failed({ errors: [{ code: "X" }] }, 400), T1);
    expect(done).toMatchObject({
      status: "DONE",
      progress: 100,
      startTime: T0,
      endTime: T1,
      httpErrorStatusCode: 400,
    });
    if (!done) throw new Error("expected a change");
    expect(mergeOperation(done, { statusMessage: "again" }, T1)).toBeUndefined();
  });

  test("errors are only recorded with DONE", () => {
    const running = mergeOperation(
      op("compute.instanceGroupManagerResizeRequests.cancel"),
      { status: "RUNNING", error: { errors: [{ code: "X" }] } },
      T0,
    );
    expect(running?.error).toBeUndefined();
  });
});

describe("advance", () => {
  const insert = op("compute.instanceGroupManagerResizeRequests.insert");
  test("insert: RUNNING while CREATING, DONE once ACCEPTED or final, with counts per zone", () => {
    expect(advance(insert, rr("CREATING"), "z")).toMatchObject({ status: "RUNNING" });
    expect(advance(insert, rr(), "z")).toMatchObject({ status: "RUNNING" });
    expect(advance(insert, rr("ACCEPTED"), "z")).toMatchObject({ status: "DONE" });
    expect(
      advance(insert, rr("SUCCEEDED"), "z")?.instancesBulkInsertOperationMetadata?.perLocationStatus?.z,
    ).toEqual({
      status: "DONE",
      targetVmCount: 3,
      createdVmCount: 3,
    });
    const error = { errors: [{ code: "QUOTA_EXCEEDED", errorDetails: [{ quotaInfo: { limit: 2 } }] }] };
    expect(advance(insert, rr("FAILED", { error }), "z")).toMatchObject({
      status: "DONE",
      error,
      httpErrorStatusCode: 403,
    });
  });

  test("cancel: DONE when CANCELLED or gone; CONDITION_NOT_MET when it ended otherwise", () => {
    const cancel = op("compute.instanceGroupManagerResizeRequests.cancel");
    expect(advance(cancel, rr("ACCEPTED"), "z")).toMatchObject({ status: "RUNNING" });
    expect(advance(cancel, rr("CANCELLED"), "z")).toEqual({ status: "DONE" });
    expect(advance(cancel, undefined, "z")).toEqual({ status: "DONE" });
    expect(advance(cancel, rr("SUCCEEDED"), "z")).toMatchObject({
      status: "DONE",
      httpErrorStatusCode: 400,
      error: { errors: [{ code: "CONDITION_NOT_MET" }] },
    });
  });

  test("delete: DONE when the object is gone, or when only another incarnation exists", () => {
    const del = op("compute.instanceGroupManagerResizeRequests.delete");
    expect(advance(del, rr("ACCEPTED"), "z")).toMatchObject({ status: "RUNNING" });
    expect(advance(del, undefined, "z")).toEqual({ status: "DONE" });
    expect(
      advance(op("compute.instanceGroupManagerResizeRequests.delete", "1"), rr("ACCEPTED"), "z"),
    ).toEqual({
      status: "DONE",
    });
  });
});

describe("toRestResizeRequest", () => {
  const ctx = { publicUrl: "http://x", project: "p", location: { scope: "zones", name: "z" } } as const;
  test("a request the controller has not seen yet gets CREATING, its id and links on the fly", () => {
    const id = numericId("uid-1");
    expect(toRestResizeRequest(rr(), ctx)).toEqual({
      kind: "compute#instanceGroupManagerResizeRequest",
      id,
      creationTimestamp: T0,
      name: "r",
      zone: "http://x/compute/v1/projects/p/zones/z",
      resizeBy: 3,
      state: "CREATING",
      status: {},
      selfLink: "http://x/compute/v1/projects/p/zones/z/instanceGroupManagers/g/resizeRequests/r",
      selfLinkWithId: `http://x/compute/v1/projects/p/zones/z/instanceGroupManagers/g/resizeRequests/${id}`,
    });
  });
  test("status fields of the controller win; errors are copied", () => {
    const error = { errors: [{ code: "RESOURCE_NOT_FOUND" }] };
    const rest = toRestResizeRequest(rr("FAILED", { id: "42", error, selfLink: "s" }), ctx);
    expect(rest).toMatchObject({ id: "42", state: "FAILED", status: { error }, selfLink: "s" });
  });
});
