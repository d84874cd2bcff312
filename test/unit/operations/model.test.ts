import type { Operation, ResizeRequest } from "../../../src/api/index.js";
import { numericId } from "../../../src/api/identity.js";
import { advance } from "../../../src/operations/advance.js";
import {
  failed,
  INSERT_OPERATION_ANNOTATION,
  mergeOperation,
  newOperation,
} from "../../../src/operations/model.js";
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

function rr(state?: string, extra: Record<string, unknown> = {}, uid = "uid-1"): ResizeRequest {
  return {
    apiVersion: "compute.resize-operator.dev/v1",
    kind: "ResizeRequest",
    metadata: { name: "r", namespace: "p", uid, creationTimestamp: T0 },
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

  // V3 and V4 of docs/reliability.md's linearizability section: an insert Operation is advanced only by
  // its own incarnation of the name.
  describe("insert: only its own incarnation of the name advances it", () => {
    const INSERT = "compute.instanceGroupManagerResizeRequests.insert" as const;
    /** An insert as REST records it: PENDING, no targetId until its request is created. */
    const recorded = newOperation({
      ref: { project: "p", location: { scope: "zones", name: "z" }, name: "operation-new" },
      id: "8",
      operationType: INSERT,
      locationUrl: "http://x/compute/v1/projects/p/zones/z",
      targetLink: "http://x/t",
      user: "alice",
      insertTime: T0,
    });
    const created = mergeOperation(recorded, { status: "RUNNING", targetId: numericId("uid-2") }, T0);
    if (!created) throw new Error("expected a change");
    const seen = mergeOperation(created, advance(created, rr("CREATING", {}, "uid-2"), "z") ?? {}, T0);
    if (!seen) throw new Error("expected a change");
    const annotated = (state: string | undefined, uid: string, operation: string) => {
      const r = rr(state, {}, uid);
      return { ...r, metadata: { ...r.metadata, annotations: { [INSERT_OPERATION_ANNOTATION]: operation } } };
    };
    test.each<[string, Operation, ResizeRequest | undefined, unknown]>([
      // V3: the previous incarnation's deletion (no object, or the old one still cached).
      ["recorded, no object of the name", recorded, undefined, undefined],
      ["recorded, the previous incarnation ACCEPTED", recorded, rr("ACCEPTED"), undefined],
      ["created, its request not cached yet", created, undefined, undefined],
      ["created, the previous incarnation CANCELLED", created, rr("CANCELLED"), undefined],
      // V4: another requestId's insert created the name.
      [
        "recorded, another insert's request",
        recorded,
        annotated("ACCEPTED", "uid-3", "operation-other"),
        undefined,
      ],
      // Its own request, by annotation or by id.
      [
        "recorded, its own request (annotation)",
        recorded,
        annotated("CREATING", "uid-2", "operation-new"),
        { status: "RUNNING", targetId: numericId("uid-2") },
      ],
      [
        "created, its own request",
        created,
        annotated("ACCEPTED", "uid-2", "operation-new"),
        { status: "DONE" },
      ],
      // Seen once, then gone (or only another incarnation left): DONE.
      ["seen, no object of the name", seen, undefined, { status: "DONE" }],
      [
        "seen, another incarnation",
        seen,
        annotated("CREATING", "uid-3", "operation-other"),
        { status: "DONE" },
      ],
    ])("%s", (_, operation, request, expected) => {
      const patch = advance(operation, request, "z");
      if (expected === undefined) expect(patch).toBeUndefined();
      else expect(patch).toMatchObject(expected as object);
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
