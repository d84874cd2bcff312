import {
  LIMITS,
  TRUNCATION_MARKER,
  byteLength,
  checkReportingInstance,
  checkRequest,
  eventName,
  isomorphismKey,
  nextNameNanos,
  objectRef,
  toEvent,
  truncateBytes,
  truncateNote,
  type EmitRequest,
} from "../../../src/events/event.js";
import { REPORTING_CONTROLLER } from "../../../src/api/names.js";

const regarding = {
  apiVersion: "compute.resize-operator.dev/v1",
  kind: "ResizeRequest",
  namespace: "team-a",
  name: "gpu-burst",
  uid: "0b5d2c1e-1111-4c0e-9c55-5f0e7d7a0001",
  resourceVersion: "42",
};
const related = {
  apiVersion: "compute.resize-operator.dev/v1",
  kind: "InstanceGroupManager",
  namespace: "team-a",
  name: "gpu-workers",
  uid: "0b5d2c1e-2222-4c0e-9c55-5f0e7d7a0002",
};
const request: EmitRequest = {
  regarding,
  related,
  type: "Warning",
  reason: "ProvisioningFailed",
  action: "Provision",
  note: "only 3 of 8 instances became ready within 10m",
};
const ctx = {
  reportingInstance: "resize-operator-7c9f-abcde",
  nowMs: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  nameNanos: 1n,
};

describe("truncateNote", () => {
  test.each([
    ["empty", "", ""],
    ["short", "hello", "hello"],
    ["exactly 1024 bytes", "a".repeat(1024), "a".repeat(1024)],
  ])("%s notes are kept", (_name, note, expected) => {
    expect(truncateNote(note)).toBe(expected);
  });

  test.each([
    ["1025 ASCII bytes", "a".repeat(1025)],
    ["5 kB", "x".repeat(5 * 1024)],
    ["64 kB", "y".repeat(64 * 1024)],
    ["multi-byte characters", "ü".repeat(600)],
    ["4-byte characters", "🚀".repeat(300)],
  ])("%s are cut to ≤1024 bytes with the marker", (_name, note) => {
    const out = truncateNote(note);
    expect(byteLength(out)).toBeLessThanOrEqual(LIMITS.note);
    expect(byteLength(out)).toBeGreaterThan(LIMITS.note - 4);
    expect(out.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(note.startsWith(out.slice(0, -TRUNCATION_MARKER.length))).toBe(true);
    expect(out).not.toContain("\uFFFD");
  });
});

describe("truncateBytes", () => {
  test.each([
    ["abc", 2, "ab"],
    ["aü", 2, "a"],
    ["aü", 3, "aü"],
    ["🚀🚀", 5, "🚀"],
    ["", 0, ""],
  ])("%j to %d bytes is %j", (input, max, expected) => {
    expect(truncateBytes(input, max)).toBe(expected);
  });
});

describe("checkRequest", () => {
  test("a complete request has no problems", () => {
    expect(checkRequest(request)).toEqual([]);
  });

  test.each<[string, Partial<EmitRequest>, RegExp]>([
    ["empty reason", { reason: "" }, /reason must not be empty/],
    ["empty action", { action: "" }, /action must not be empty/],
    ["129-byte reason", { reason: "R".repeat(129) }, /reason must be at most 128 bytes/],
    ["129-byte action", { action: "A".repeat(129) }, /action must be at most 128 bytes/],
    [
      "reason over 128 bytes in multi-byte characters",
      { reason: "é".repeat(65) },
      /reason must be at most 128/,
    ],
    ["unknown type", { type: "Error" as EmitRequest["type"] }, /type must be Normal or Warning/],
    ["regarding without namespace", { regarding: { ...regarding, namespace: "" } }, /regarding.namespace/],
    ["regarding without name", { regarding: { ...regarding, name: "" } }, /regarding.name must not be empty/],
    ["regarding without kind", { regarding: { ...regarding, kind: "" } }, /regarding.kind must not be empty/],
    ["related without apiVersion", { related: { ...related, apiVersion: "" } }, /related.apiVersion/],
  ])("%s is rejected", (_name, change, problem) => {
    expect(checkRequest({ ...request, ...change }).join("\n")).toMatch(problem);
  });

  test.each([
    ["128-byte reason", { reason: "R".repeat(128) }],
    ["128-byte action", { action: "A".repeat(128) }],
    ["a 5 kB note (truncated, not rejected)", { note: "n".repeat(5000) }],
    ["a cluster-scoped related object", { related: { ...related, namespace: "" } }],
    ["no related object", { related: undefined }],
  ])("%s is accepted", (_name, change) => {
    expect(checkRequest({ ...request, ...change })).toEqual([]);
  });
});

describe("toEvent", () => {
  test("builds a complete events.k8s.io/v1 Event", () => {
    const event = toEvent(request, ctx);
    expect(event).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "gpu-burst.1", namespace: "team-a" },
      type: "Warning",
      reason: "ProvisioningFailed",
      action: "Provision",
      note: request.note,
      regarding,
      related,
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: ctx.reportingInstance,
    });
    expect(event.series).toBeUndefined();
    // MicroTime: the server parses exactly six fractional digits.
    expect(JSON.parse(JSON.stringify({ t: event.eventTime }))).toEqual({ t: "2026-01-02T03:04:05.678000Z" });
    // Deprecated core/v1 fields must stay unset on events.k8s.io/v1 creates.
    for (const field of [
      "deprecatedCount",
      "deprecatedFirstTimestamp",
      "deprecatedLastTimestamp",
      "deprecatedSource",
    ]) {
      expect(event).not.toHaveProperty(field);
    }
  });

  test("omits related when there is none and truncates long notes", () => {
    const event = toEvent({ ...request, related: undefined, note: "z".repeat(5000) }, ctx);
    expect(event).not.toHaveProperty("related");
    expect(byteLength(event.note ?? "")).toBeLessThanOrEqual(1024);
    expect(event.note?.endsWith(TRUNCATION_MARKER)).toBe(true);
  });
});

test.each([
  ["an empty reportingInstance", "", /reportingInstance must not be empty/],
  ["a 129-byte reportingInstance", "p".repeat(129), /reportingInstance must be at most 128 bytes/],
  ["a 128-byte reportingInstance", "p".repeat(128), /^$/],
])("checkReportingInstance reports %s", (_name, value, problem) => {
  expect(checkReportingInstance(value).join("\n")).toMatch(problem);
});

describe("objectRef", () => {
  const cm = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "ns", name: "cm", uid: "u-1", resourceVersion: "7" },
  };
  test("takes type and identity from the object", () => {
    expect(objectRef(cm)).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "ns",
      name: "cm",
      uid: "u-1",
      resourceVersion: "7",
    });
  });
  test("takes the type from the caller for list items, which carry none", () => {
    const item = { metadata: { namespace: "ns", name: "rr", uid: "u-2" } };
    expect(objectRef(item, { apiVersion: "compute.resize-operator.dev/v1", kind: "ResizeRequest" })).toEqual({
      apiVersion: "compute.resize-operator.dev/v1",
      kind: "ResizeRequest",
      namespace: "ns",
      name: "rr",
      uid: "u-2",
    });
  });
});

describe("event names", () => {
  test.each([
    ["gpu-burst", 0x18f2a3b4c5d6e7f8n, "gpu-burst.18f2a3b4c5d6e7f8"],
    ["my.config.map", 255n, "my.config.map.ff"],
    ["Has_Upper:Colon", 1n, "has-upper-colon.1"],
    ["---", 1n, "event.1"],
  ])("%s at %d is %s", (name, nanos, expected) => {
    expect(eventName(name, nanos)).toBe(expected);
  });

  test("a 253-character regarding name is shortened to keep the name a valid DNS subdomain", () => {
    const name = eventName(`${"a".repeat(62)}.`.repeat(4) + "b", 0x18f2a3b4c5d6e7f8n);
    expect(name.length).toBeLessThanOrEqual(253);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
    expect(name.endsWith(".18f2a3b4c5d6e7f8")).toBe(true);
  });

  test.each([
    ["later millisecond", 5_000_000n, 6, 6_000_000n],
    ["same millisecond", 6_000_000n, 6, 6_000_001n],
    ["clock stepped back", 9_000_000n, 6, 9_000_001n],
  ])("nanos after %s", (_name, previous, nowMs, expected) => {
    expect(nextNameNanos(previous, nowMs)).toBe(expected);
  });
});

describe("isomorphismKey", () => {
  const key = isomorphismKey(request, "pod-a");
  test.each<[string, boolean, EmitRequest, string]>([
    ["a different note", true, { ...request, note: "other" }, "pod-a"],
    [
      "a newer resourceVersion of regarding",
      true,
      { ...request, regarding: { ...regarding, resourceVersion: "43" } },
      "pod-a",
    ],
    ["another type", false, { ...request, type: "Normal" }, "pod-a"],
    ["another action", false, { ...request, action: "Rollback" }, "pod-a"],
    ["another reason", false, { ...request, reason: "ProvisioningTimedOut" }, "pod-a"],
    ["another instance", false, request, "pod-b"],
    ["another regarding", false, { ...request, regarding: { ...regarding, name: "other" } }, "pod-a"],
    ["another regarding uid", false, { ...request, regarding: { ...regarding, uid: "x" } }, "pod-a"],
    ["another related", false, { ...request, related: { ...related, name: "other" } }, "pod-a"],
    ["no related", false, { ...request, related: undefined }, "pod-a"],
  ])("%s → same series: %s", (_name, same, other, instance) => {
    expect(isomorphismKey(other, instance) === key).toBe(same);
  });
});

test("reportingController is a qualified name (prefix a DNS subdomain, name ≤63), as the server requires", () => {
  const [prefix, name, ...rest] = REPORTING_CONTROLLER.split("/");
  expect(rest).toEqual([]);
  expect(prefix).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
  expect(name).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/);
  expect(name?.length).toBeLessThanOrEqual(63);
});
