// The oracle test (docs/design.md §6, §7): for every resource we serve, our discovery document matches
// Google's official compute v1 document field by field, except the differences the allowlist
// explains; and the comparator is shown to catch a changed type and a changed format.
import { readFileSync } from "node:fs";
import { officialComputeDocument } from "../../support/compute-oracle.js";
import { applyAllowlist, compareDiscovery, parseAllowlist } from "../../support/discovery-compare.js";
import { servedDocument } from "../../support/served-document.js";

const ALLOWLIST = new URL("../../conformance/allowlist.tsv", import.meta.url);
const MAX_ENTRIES = 10;

const official = officialComputeDocument();
const ours = servedDocument();
const served = Object.keys(ours.resources);

test("the oracle is the pinned official document", () => {
  expect(official.name).toBe("compute");
  expect(official.version).toBe("v1");
  expect(official.revision).toBe("20261026");
});

test("futureReservations is served with the official methods but update and aggregatedList", () => {
  const methods = Object.keys(ours.resources.futureReservations?.methods ?? {}).sort();
  expect(methods).toEqual(["cancel", "delete", "get", "insert", "list"]);
  const official = officialComputeDocument().resources.futureReservations?.methods ?? {};
  expect(Object.keys(official).filter((m) => !methods.includes(m))).toEqual(["aggregatedList", "update"]);
});

test("every difference from the official document is allowlisted, and no allowlist line is stale", () => {
  const entries = parseAllowlist(readFileSync(ALLOWLIST, "utf8"));
  expect(entries.length).toBeLessThanOrEqual(MAX_ENTRIES);
  const { unexplained, stale } = applyAllowlist(compareDiscovery(official, ours, served), entries);
  const report = [
    ...unexplained.map((d) => `not allowlisted: ${d}`),
    ...stale.map((e) => `stale allowlist line ${e.line}: ${e.prefix}`),
  ];
  expect(report).toEqual([]);
});

test("the comparator reports exactly a changed property type and a changed parameter format", () => {
  // Compared with our own document, so every difference is one the mutation made.
  const mutated = structuredClone(ours);
  const progress = mutated.schemas.Operation?.properties?.progress;
  const maxResults = mutated.resources.zoneOperations?.methods.list?.parameters.maxResults;
  if (!progress || !maxResults)
    throw new Error("Operation.progress or zoneOperations.list.maxResults is gone");
  progress.type = "string";
  maxResults.format = "int64";
  expect(compareDiscovery(ours, mutated, served)).toEqual([
    `methods.compute.zoneOperations.list.parameters.maxResults.format: ours "int64" official ${JSON.stringify(ours.resources.zoneOperations?.methods.list?.parameters.maxResults?.format)}`,
    `schemas.Operation.properties.progress.type: ours "string" official "integer"`,
  ]);
  expect(compareDiscovery(ours, ours, served)).toEqual([]);
});

test("the comparator reports enum values dropped or added, whole enums missing, and query patterns", () => {
  const mutated = structuredClone(ours);
  const operation = mutated.schemas.Operation?.properties;
  const health = mutated.schemas.GetHealthOperationMetadataHealthInfo?.properties?.healthStatus;
  const requestId =
    mutated.resources.instanceGroupManagerResizeRequests?.methods.insert?.parameters.requestId;
  if (!operation?.status?.enum || !operation.kind || !health?.enum || !requestId)
    throw new Error("Operation.status, Operation.kind, healthInfo.healthStatus or insert.requestId is gone");
  operation.status.enum = ["DONE", "RUNNING", "PAUSED"]; // PENDING dropped, PAUSED added, order changed
  delete health.enum;
  delete operation.kind.enum;
  requestId.pattern = "^[0-9]+$";
  const kind = JSON.stringify(ours.schemas.Operation?.properties?.kind?.enum);
  expect(compareDiscovery(ours, mutated, served)).toEqual([
    `methods.compute.instanceGroupManagerResizeRequests.insert.parameters.requestId.pattern: ours "^[0-9]+$" official ${JSON.stringify(ours.resources.instanceGroupManagerResizeRequests?.methods.insert?.parameters.requestId?.pattern)}`,
    `schemas.GetHealthOperationMetadataHealthInfo.properties.healthStatus.enum: ours (absent) official ["HEALTH_STATUS_HEALTHY","HEALTH_STATUS_UNHEALTHY","HEALTH_STATUS_UNSPECIFIED"]`,
    `schemas.Operation.properties.kind.enum: ours (absent) official ${kind}`,
    `schemas.Operation.properties.status.enum: ours adds ["PAUSED"], ours lacks ["PENDING"]`,
  ]);
  // The same values in another order are no difference.
  const reordered = structuredClone(ours);
  reordered.schemas.Operation?.properties?.status?.enum?.reverse();
  expect(compareDiscovery(ours, reordered, served)).toEqual([]);
});

test("the comparator reports missing methods, properties, parameters and renamed references", () => {
  const mutated = structuredClone(ours);
  const operations = mutated.resources.zoneOperations;
  const operation = mutated.schemas.Operation;
  if (!operations?.methods.get || !operation?.properties)
    throw new Error("zoneOperations.get or Operation is gone");
  delete operations.methods.wait;
  delete operations.methods.get.parameters.zone;
  operations.methods.get.response = { $ref: "Renamed" };
  mutated.schemas.Renamed = operation;
  delete operation.properties.name;
  expect(compareDiscovery(ours, mutated, served)).toEqual(
    expect.arrayContaining([
      "methods.compute.zoneOperations.wait: missing in ours",
      "methods.compute.zoneOperations.get.parameters.zone: missing in ours",
      'methods.compute.zoneOperations.get.response.$ref: ours "Renamed" official "Operation"',
      "schemas.Operation.properties.name: missing in ours",
    ]),
  );
});

test("allowlist lines cover whole path segments and unused lines are reported stale", () => {
  const entries = parseAllowlist(
    "# comment\n\nmethods.compute.zoneOperations.get\tcovers get only\nschemas.Gone\tnothing left\n",
  );
  const { unexplained, stale } = applyAllowlist(
    [
      "methods.compute.zoneOperations.get.path: ours 1 official 2",
      "methods.compute.zoneOperations.getStatus: missing in ours",
    ],
    entries,
  );
  expect(unexplained).toEqual(["methods.compute.zoneOperations.getStatus: missing in ours"]);
  expect(stale.map((e) => [e.line, e.prefix])).toEqual([[4, "schemas.Gone"]]);
  expect(() => parseAllowlist("no reason here\n")).toThrow(/line 1/);
});

test("a * in an allowlist line stands for one path segment; text after the colon matches by word", () => {
  const entries = parseAllowlist(
    "methods.compute.*.*.parameters.requestId.pattern\tUUID\nschemas.*.properties.code.enum: ours lacks\tsubset\n",
  );
  const { unexplained, stale } = applyAllowlist(
    [
      'methods.compute.zoneOperations.get.parameters.requestId.pattern: ours "x" official (absent)',
      'methods.compute.regionOperations.list.parameters.requestId.pattern: ours "x" official (absent)',
      'methods.compute.zoneOperations.parameters.requestId.pattern: ours "x" official (absent)',
      'methods.compute.zoneOperations.get.parameters.requestIds.pattern: ours "x" official (absent)',
      'schemas.Warning.properties.code.enum: ours lacks ["A"]',
      'schemas.Warning.properties.code.enum: ours adds ["B"], ours lacks ["A"]',
    ],
    entries,
  );
  expect(unexplained).toEqual([
    'methods.compute.zoneOperations.parameters.requestId.pattern: ours "x" official (absent)',
    'methods.compute.zoneOperations.get.parameters.requestIds.pattern: ours "x" official (absent)',
    'schemas.Warning.properties.code.enum: ours adds ["B"], ours lacks ["A"]',
  ]);
  expect(stale).toEqual([]);
});
