// The converter from Google's discovery schemas to JSON Schema, on the official compute document:
// a valid Operation passes, a wrong scalar type or an unknown field fails, error bodies are held to
// Google's envelope, and request paths find their official method by flatPath.
import { officialComputeDocument } from "../../support/compute-oracle.js";
import { OfficialValidator, toJsonSchema } from "../../support/official-schemas.js";

const validator = new OfficialValidator(officialComputeDocument());
const OPERATIONS = "/compute/v1/projects/p/zones/z/operations";

const operation = {
  kind: "compute#operation",
  id: "1234567890123456789",
  name: "operation-1",
  zone: "https://example/compute/v1/projects/p/zones/z",
  operationType: "insert",
  targetLink: "https://example/compute/v1/projects/p/zones/z/instanceGroupManagers/g/resizeRequests/r",
  targetId: "42",
  status: "DONE",
  progress: 100,
  insertTime: "2026-01-02T03:04:05.678Z",
  selfLink: `https://example${OPERATIONS}/operation-1`,
  error: { errors: [{ code: "RESOURCE_NOT_READY", message: "not ready" }] },
};

test("a valid Operation passes", () => {
  expect(validator.check("GET", `${OPERATIONS}/operation-1`, 200, operation)).toBeUndefined();
});

test("a partial response (fields=) passes: nothing is required", () => {
  expect(validator.check("GET", `${OPERATIONS}/operation-1`, 200, { name: "operation-1" })).toBeUndefined();
});

test("a string where int32 is expected fails", () => {
  const violation = validator.check("GET", `${OPERATIONS}/operation-1`, 200, {
    ...operation,
    progress: "100",
  });
  expect(violation?.method).toBe("compute.zoneOperations.get");
  expect(violation?.errors).toMatch(/\/progress must be integer/);
});

test("an int64 sent as a JSON number fails: Google JSON carries 64-bit integers as strings", () => {
  expect(validator.check("GET", `${OPERATIONS}/operation-1`, 200, { ...operation, id: 7 })?.errors).toMatch(
    /\/id must be string/,
  );
  expect(
    validator.check("GET", `${OPERATIONS}/operation-1`, 200, { ...operation, id: "7x" })?.errors,
  ).toMatch(/\/id must match pattern/);
});

test("an unknown property fails, at any depth", () => {
  expect(validator.check("GET", `${OPERATIONS}/x`, 200, { ...operation, extra: 1 })?.errors).toMatch(
    /must NOT have additional properties \(extra\)/,
  );
  const nested = { ...operation, error: { errors: [{ code: "X", surprise: true }] } };
  expect(validator.check("GET", `${OPERATIONS}/x`, 200, nested)?.errors).toMatch(
    /\/error\/errors\/0 must NOT have additional properties \(surprise\)/,
  );
});

test("error bodies must be Google's envelope", () => {
  const good = {
    error: {
      code: 404,
      message: "gone",
      errors: [{ domain: "global", reason: "notFound", message: "gone" }],
    },
  };
  expect(validator.check("GET", `${OPERATIONS}/x`, 404, good)).toBeUndefined();
  expect(validator.check("GET", `${OPERATIONS}/x`, 404, { message: "gone" })).toBeDefined();
  expect(
    validator.check("GET", `${OPERATIONS}/x`, 400, { error: { code: 400, message: "m", errors: [{}] } })
      ?.errors,
  ).toMatch(/must have required property 'domain'/);
});

test("request paths find the official method by flatPath and HTTP method", () => {
  expect(validator.method("GET", OPERATIONS)?.id).toBe("compute.zoneOperations.list");
  expect(validator.method("POST", `${OPERATIONS}/op/wait`)?.id).toBe("compute.zoneOperations.wait");
  expect(validator.method("GET", "/compute/v1/projects/p/regions/r/operations/op")?.id).toBe(
    "compute.regionOperations.get",
  );
  const resizeRequests = "/compute/v1/projects/p/zones/z/instanceGroupManagers/g/resizeRequests";
  expect(validator.method("GET", resizeRequests)?.id).toBe("compute.instanceGroupManagerResizeRequests.list");
  expect(validator.method("POST", `${resizeRequests}/r/cancel`)?.id).toBe(
    "compute.instanceGroupManagerResizeRequests.cancel",
  );
  expect(validator.method("PATCH", OPERATIONS)).toBeUndefined();
  expect(validator.check("GET", "/compute/v1/nothing/here", 200, {})?.errors).toMatch(/no official method/);
});

test("discovery formats become JSON Schema constraints", () => {
  expect(toJsonSchema({ type: "integer", format: "uint32" })).toEqual({
    type: "integer",
    minimum: 0,
    maximum: 2 ** 32 - 1,
  });
  expect(toJsonSchema({ type: "string", format: "uint64" })).toEqual({ type: "string", pattern: "^[0-9]+$" });
  expect(toJsonSchema({ $ref: "Operation" })).toEqual({ $ref: "#/definitions/Operation" });
  expect(toJsonSchema({ type: "object", additionalProperties: { type: "string" } })).toEqual({
    type: "object",
    additionalProperties: { type: "string" },
  });
  const datetime = new RegExp(String(toJsonSchema({ type: "string", format: "google-datetime" }).pattern));
  expect(datetime.test("2026-01-02T03:04:05.678Z")).toBe(true);
  expect(datetime.test("2026-01-02 03:04:05")).toBe(false);
});
