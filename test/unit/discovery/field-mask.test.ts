// The `fields` parameter: Google's field-mask syntax, its check against the response schema, and
// partial responses; and the other system parameters (prettyPrint, alt, quotaUser).
import {
  fieldTree,
  InstanceGroupManagerResizeRequestsListResponse,
  Operation,
} from "../../../src/api/index.js";
import { RestError } from "../../../src/rest/errors.js";
import {
  applyFieldMask,
  checkFieldMask,
  parseFieldMask,
  type FieldMask,
} from "../../../src/rest/field-mask.js";
import { parseOutputOptions } from "../../../src/rest/system-parameters.js";

/** A mask as nested plain objects, for readable expectations. */
function plain(mask: FieldMask | undefined): unknown {
  if (mask === undefined) return undefined;
  return Object.fromEntries([...mask].map(([k, v]) => [k, v === true ? true : plain(v)]));
}

test.each([
  ["name,state", { name: true, state: true }],
  [" name , state ", { name: true, state: true }],
  ["items(name,state),nextPageToken", { items: { name: true, state: true }, nextPageToken: true }],
  ["a/b/c", { a: { b: { c: true } } }],
  ["a/b(c,d)", { a: { b: { c: true, d: true } } }],
  ["a(b/c,d(e))", { a: { b: { c: true }, d: { e: true } } }],
  ["a/b,a/c", { a: { b: true, c: true } }],
  ["a/b,a", { a: true }],
  ["a,a/b", { a: true }],
  ["*", { "*": true }],
  ["items/*", { items: { "*": true } }],
])("parses %j", (text, expected) => {
  expect(plain(parseFieldMask(text))).toEqual(expected);
});

test("an empty selection selects everything", () => {
  expect(parseFieldMask(undefined)).toBeUndefined();
  expect(parseFieldMask("")).toBeUndefined();
});

test.each(["a,", ",a", "a(", "a()", "a(b", "a)b", "a//b", "a/", "a b", "a(b))", "(a)"])(
  "%j is a 400 invalidParameter located at fields",
  (text) => {
    let error: unknown;
    try {
      parseFieldMask(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RestError);
    expect(error).toMatchObject({
      status: 400,
      reason: "invalidParameter",
      details: [expect.objectContaining({ location: "fields", locationType: "parameter" })],
    });
  },
);

const mask = (text: string): FieldMask => {
  const m = parseFieldMask(text);
  if (!m) throw new Error("empty");
  return m;
};

test("applies to objects, arrays and maps; absent fields stay absent; body order is kept", () => {
  const op = {
    kind: "compute#operation",
    name: "op-1",
    status: "DONE",
    error: { errors: [{ code: "X", message: "m", location: "l" }] },
    instancesBulkInsertOperationMetadata: {
      perLocationStatus: { "zone-a": { targetVmCount: 2, createdVmCount: 2 } },
    },
  };
  expect(applyFieldMask(op, mask("status,name"))).toEqual({ name: "op-1", status: "DONE" });
  expect(Object.keys(applyFieldMask(op, mask("status,name")) as object)).toEqual(["name", "status"]);
  expect(applyFieldMask(op, mask("error/errors(code)"))).toEqual({ error: { errors: [{ code: "X" }] } });
  expect(
    applyFieldMask(op, mask("instancesBulkInsertOperationMetadata/perLocationStatus/zone-a/targetVmCount")),
  ).toEqual({
    instancesBulkInsertOperationMetadata: { perLocationStatus: { "zone-a": { targetVmCount: 2 } } },
  });
  expect(applyFieldMask(op, mask("zone,name"))).toEqual({ name: "op-1" });
  expect(applyFieldMask(op, mask("*"))).toEqual(op);
  const list = {
    kind: "k",
    items: [
      { name: "a", state: "S", id: "1" },
      { name: "b", id: "2" },
    ],
    nextPageToken: "t",
  };
  expect(applyFieldMask(list, mask("items(name,state),nextPageToken"))).toEqual({
    items: [{ name: "a", state: "S" }, { name: "b" }],
    nextPageToken: "t",
  });
});

test("a selection is checked against the response schema", () => {
  const operation = fieldTree(Operation);
  const list = fieldTree(InstanceGroupManagerResizeRequestsListResponse);
  for (const ok of [
    "name,status",
    "error/errors(code,errorDetails/quotaInfo/metricName)",
    "instancesBulkInsertOperationMetadata/perLocationStatus/any-zone/targetVmCount",
    "*",
  ])
    expect(() => {
      checkFieldMask(mask(ok), operation);
    }).not.toThrow();
  expect(() => {
    checkFieldMask(mask("items(name,state),nextPageToken"), list);
  }).not.toThrow();
  for (const bad of ["nam", "name/first", "error/errors(cod)", "status(x)"])
    expect(() => {
      checkFieldMask(mask(bad), operation);
    }).toThrow(/Invalid field selection/);
  expect(() => {
    checkFieldMask(mask("items(nam)"), list);
  }).toThrow("Invalid field selection items/nam");
});

test("prettyPrint, alt and quotaUser", () => {
  expect(parseOutputOptions({})).toEqual({ pretty: true });
  expect(parseOutputOptions({ prettyPrint: "false", alt: "json", quotaUser: "anyone" })).toEqual({
    pretty: false,
  });
  expect(parseOutputOptions({ fields: "name" }).mask).toBeDefined();
  // Google's other standard parameters change nothing here.
  expect(
    parseOutputOptions({
      key: "k",
      userIp: "1.2.3.4",
      "$.xgafv": "2",
      uploadType: "media",
      upload_protocol: "raw",
    }),
  ).toEqual({ pretty: true });
  for (const query of [
    { prettyPrint: "no" },
    { alt: "proto" },
    { fields: "a(" },
    { prettyPrint: ["true", "false"] },
    { callback: "steal" },
    { "$.xgafv": "3" },
  ])
    expect(() => parseOutputOptions(query)).toThrow(RestError);
});
