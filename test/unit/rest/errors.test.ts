import { z } from "zod";
import { ResizeRequestInsert } from "../../../src/api/index.js";
import { RequestIdConflictError } from "../../../src/operations/scripts.js";
import { StoreUnavailableError } from "../../../src/operations/store.js";
import { ForbiddenError, toGoogleError, validationError } from "../../../src/rest/errors.js";
import { ApiError } from "../../../src/runtime/api-errors.js";

test.each([
  [new ForbiddenError("no"), 403, "forbidden"],
  [new ApiError(404, "NotFound", "gone"), 404, "notFound"],
  [new ApiError(409, "AlreadyExists", "taken"), 409, "alreadyExists"],
  [new ApiError(422, "Invalid", "bad"), 400, "invalid"],
  [new ApiError(403, "Forbidden", "policy"), 403, "forbidden"],
  [new ApiError(429, "TooManyRequests", "slow down"), 429, "rateLimitExceeded"],
  [new ApiError(500, undefined, "boom"), 503, "backendError"],
  [new StoreUnavailableError(new Error("ECONNREFUSED")), 503, "backendError"],
  [
    Object.assign(new Error("Request body is too large"), {
      code: "FST_ERR_CTP_BODY_TOO_LARGE",
      statusCode: 413,
    }),
    413,
    "invalid",
  ],
  [Object.assign(new Error("bad url"), { code: "FST_ERR_BAD_URL", statusCode: 400 }), 400, "invalid"],
  [new Error("bug"), 500, "internalError"],
])("%s → %i %s in the Google shape", (err, status, reason) => {
  const mapped = toGoogleError(err);
  expect(mapped.status).toBe(status);
  expect(mapped.body.error.code).toBe(status);
  expect(mapped.body.error.errors[0]).toMatchObject({ domain: "global", reason });
});

test("a requestId bound to another call is 400 invalid, located at the parameter and naming it", () => {
  const id = "6f1c0a3e-8d2b-4c5e-9f7a-1b2c3d4e5f60";
  const mapped = toGoogleError(new RequestIdConflictError(id));
  expect(mapped.status).toBe(400);
  expect(mapped.body.error.message).toContain(`The requestId '${id}' was already used for another call`);
  expect(mapped.body.error.errors).toEqual([
    expect.objectContaining({ reason: "invalid", location: "requestId", locationType: "parameter" }),
  ]);
});

test("zod issues become located items; unknown keys each get their own", () => {
  const parsed = ResizeRequestInsert.strict().safeParse({ name: "a", resizeBy: 0, foo: 1, bar: 2 });
  if (parsed.success) throw new Error("expected a failure");
  const err = validationError(parsed.error.issues, "body");
  expect(err.details.map((d) => d.location)).toEqual(expect.arrayContaining(["resizeBy", "foo", "bar"]));
  expect(err.details.every((d) => d.locationType === "body")).toBe(true);
  const param = z.int32().max(500).safeParse(501);
  if (param.success) throw new Error("expected a failure");
  expect(validationError(param.error.issues, "parameter", "maxResults").details[0]).toMatchObject({
    location: "maxResults",
    locationType: "parameter",
  });
});

describe("the API server's own text never reaches a REST caller", () => {
  const operator =
    'User "system:serviceaccount:resize-system:resize-operator" cannot update resource "statefulsets/scale"';
  test.each([
    [403, "Forbidden", 403, "forbidden"],
    [404, "NotFound", 404, "notFound"],
    [409, "AlreadyExists", 409, "alreadyExists"],
    [409, "Conflict", 409, "conflict"],
    [429, "TooManyRequests", 429, "rateLimitExceeded"],
    [500, "InternalError", 503, "backendError"],
  ] as const)("%i %s", (code, reason, status, googleReason) => {
    const answer = toGoogleError(new ApiError(code, reason, `${operator} in namespace team-a`));
    expect(answer.status).toBe(status);
    expect(answer.upstream).toBe(true);
    expect(answer.body.error.errors[0]?.reason).toBe(googleReason);
    expect(JSON.stringify(answer.body)).not.toContain("serviceaccount");
  });
});
