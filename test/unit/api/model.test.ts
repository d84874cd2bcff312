// The zod model as a validator: the samples pass, every invalid object of the shared table fails (with
// the API server's own message where the rule is stated once for both), REST bodies and operations obey
// Compute Engine's rules.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import {
  Duration,
  ErrorDetail,
  ErrorItem,
  InstanceGroupManager,
  InstanceGroupManagerResizeRequest,
  Operation,
  ResizeRequest,
  ResizeRequestInsert,
  durationToMillis,
  formatDuration,
  parseKubeDuration,
  type Operation as OperationType,
} from "../../../src/api/index.js";
import { invalidCreates } from "../../support/api-cases.js";

const samplesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../manifests/samples");
// Files only: samples/kueue/ is `npm run dev -- --kueue`'s own (its group is checked below).
const samples = readdirSync(samplesDir)
  .filter((file) => file.endsWith(".yaml"))
  .flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(samplesDir, file), "utf8")).map(
      (doc) => doc.toJS() as { kind: string },
    ),
  );

test.each(samples.filter((s) => s.kind === "ResizeRequest" || s.kind === "InstanceGroupManager"))(
  "sample $kind $metadata.name is valid",
  (sample) => {
    const schema = sample.kind === "ResizeRequest" ? ResizeRequest : InstanceGroupManager;
    expect(schema.safeParse(sample).error).toBeUndefined();
  },
);

test("the Kueue sample's group declares an instance shape and is valid", () => {
  const docs = parseAllDocuments(readFileSync(path.join(samplesDir, "kueue", "gpu-pool.yaml"), "utf8")).map(
    (doc) => doc.toJS() as { kind: string },
  );
  const igm = InstanceGroupManager.parse(docs.find((d) => d.kind === "InstanceGroupManager"));
  expect(igm.spec.instanceShape?.allocatable["nvidia.com/gpu"]).toBe("8");
});

test("the Karpenter sample's group targets its NodePool and counts the pool's Nodes, and is valid", () => {
  const doc = parseAllDocuments(
    readFileSync(path.join(samplesDir, "karpenter", "instancegroupmanager.yaml"), "utf8"),
  ).map((d) => d.toJS() as { kind: string });
  const igm = InstanceGroupManager.parse(doc.find((d) => d.kind === "InstanceGroupManager"));
  expect(igm.spec.targetRef).toMatchObject({
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    name: "static-gpu",
  });
  expect(igm.spec.readiness?.nodeSelector).toEqual({ "karpenter.sh/nodepool": "static-gpu" });
});

test("the Kueue-on-Karpenter sample's queue lands on the Karpenter group's Nodes, through the Kueue sample's admission check", () => {
  const docsOf = (...file: string[]): { kind: string; metadata: { name: string }; spec: never }[] =>
    parseAllDocuments(readFileSync(path.join(samplesDir, ...file), "utf8")).map(
      (d) => d.toJS() as { kind: string; metadata: { name: string }; spec: never },
    );
  const igm = InstanceGroupManager.parse(
    docsOf("karpenter", "instancegroupmanager.yaml").find((d) => d.kind === "InstanceGroupManager"),
  );
  const queue = docsOf("kueue-karpenter", "static-gpu-queue.yaml");
  const flavor = queue.find((d) => d.kind === "ResourceFlavor")?.spec as
    { nodeLabels: Record<string, string> } | undefined;
  // The flavor's node labels are the pods' nodeSelector: the group's shape must carry them.
  expect(flavor?.nodeLabels).toEqual(igm.spec.instanceShape?.labels);
  expect(igm.spec.instanceShape?.labels).toEqual(igm.spec.readiness?.nodeSelector);
  expect(igm.spec.provisioningRequests?.namespaces).toBe("Same");
  const clusterQueue = queue.find((d) => d.kind === "ClusterQueue")?.spec as
    { admissionChecksStrategy: { admissionChecks: { name: string }[] } } | undefined;
  const checks = docsOf("kueue", "gpu-pool.yaml")
    .filter((d) => d.kind === "AdmissionCheck")
    .map((d) => d.metadata.name);
  expect(clusterQueue?.admissionChecksStrategy.admissionChecks.map((c) => c.name)).toEqual(checks);
});

test("the samples include a GPU StatefulSet, its group with maxSize, and requests with and without run duration", () => {
  const sts = samples.find((s) => s.kind === "StatefulSet");
  expect(JSON.stringify(sts)).toContain('"nvidia.com/gpu":1');
  const igm = InstanceGroupManager.parse(samples.find((s) => s.kind === "InstanceGroupManager"));
  expect(igm.spec.maxSize).toBeGreaterThan(0);
  const requests = samples.filter((s) => s.kind === "ResizeRequest").map((s) => ResizeRequest.parse(s));
  expect(requests.some((r) => r.spec.instances !== undefined)).toBe(true);
  const groups = samples
    .filter((s) => s.kind === "InstanceGroupManager")
    .map((s) => InstanceGroupManager.parse(s));
  // A zonal and a regional group, so `npm run dev` serves both REST collections.
  expect(groups.map((g) => (g.spec.zone !== undefined ? "zonal" : "regional")).sort()).toEqual([
    "regional",
    "zonal",
  ]);
  expect(requests.some((r) => r.spec.requestedRunDuration !== undefined)).toBe(true);
  expect(requests.some((r) => r.spec.requestedRunDuration === undefined)).toBe(true);
});

describe("invalid objects", () => {
  test.each(invalidCreates)("$title", ({ object, plural, zod }) => {
    const schema = plural === "resizerequests" ? ResizeRequest : InstanceGroupManager;
    const result = schema.safeParse(object);
    expect(result.success).toBe(false);
    if (zod !== undefined)
      expect(result.error?.issues.map((i) => i.message)).toContainEqual(expect.stringContaining(zod));
  });
});

describe("Duration", () => {
  test.each([
    [{ seconds: "14400" }, 14_400_000],
    [{ nanos: 500_000_000 }, 500],
    [{ seconds: "0", nanos: 1 }, 0],
    [{ seconds: "315576000000", nanos: 999_999_999 }, 315_576_000_000_999],
  ])("%j is valid and lasts %d ms", (d, ms) => {
    expect(durationToMillis(Duration.parse(d))).toBe(ms);
  });

  test.each([{}, { seconds: "0" }, { seconds: "0", nanos: 0 }, { seconds: "00" }, { seconds: "1e3" }])(
    "%j is invalid",
    (d) => {
      expect(Duration.safeParse(d).success).toBe(false);
    },
  );
});

test("parseKubeDuration reads Kubernetes duration strings", () => {
  expect(parseKubeDuration("10m")).toBe(600_000);
  expect(parseKubeDuration("1h30m")).toBe(5_400_000);
  expect(parseKubeDuration("1.5s")).toBe(1500);
  expect(parseKubeDuration("250ms")).toBe(250);
  expect(parseKubeDuration("10 minutes")).toBeUndefined();
  expect(parseKubeDuration("")).toBeUndefined();
});

test("formatDuration writes a span in the same notation, zero parts left out", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [250, "250ms"],
    [30_000, "30s"],
    [90_000, "1m30s"],
    [600_000, "10m"],
    [3_600_000, "1h"],
    [5_403_000, "1h30m3s"],
  ];
  for (const [millis, text] of cases) {
    expect(formatDuration(millis)).toBe(text);
    expect(parseKubeDuration(text)).toBe(millis);
  }
});

describe("REST bodies", () => {
  test("insert takes resizeBy xor instances, and drops output-only fields", () => {
    const body = ResizeRequestInsert.parse({ name: "train", resizeBy: 8, state: "SUCCEEDED", id: "1" });
    expect(body).toEqual({ name: "train", resizeBy: 8 });
    expect(ResizeRequestInsert.safeParse({ name: "train" }).error?.issues[0]?.message).toBe(
      "exactly one of resizeBy or instances must be set",
    );
    expect(ResizeRequestInsert.safeParse({ name: "Train", resizeBy: 1 }).success).toBe(false);
    expect(
      ResizeRequestInsert.safeParse({ name: "train", instances: [{ name: "a" }, { name: "a" }] }).success,
    ).toBe(false);
  });

  test("instances are PerInstanceConfig objects: output-only fields are accepted, preservedState is refused by name", () => {
    expect(
      ResizeRequestInsert.parse({
        name: "train",
        instances: [{ name: "a", status: "NONE", fingerprint: "YWJj" }, { name: "b" }],
      }).instances?.map((i) => i.name),
    ).toEqual(["a", "b"]);
    // The string form of earlier releases is gone.
    expect(ResizeRequestInsert.safeParse({ name: "train", instances: ["a"] }).success).toBe(false);
    const refused = ResizeRequestInsert.safeParse({
      name: "train",
      instances: [{ name: "a", preservedState: { metadata: { k: "v" } } }],
    });
    expect(refused.error?.issues[0]).toMatchObject({
      code: "unrecognized_keys",
      keys: ["preservedState"],
      path: ["instances", 0],
    });
  });

  test("the REST resource has Compute Engine's fields, status.error and status.lastAttempt.error", () => {
    const resource = InstanceGroupManagerResizeRequest.parse({
      kind: "compute#instanceGroupManagerResizeRequest",
      id: "123",
      creationTimestamp: "2026-01-02T03:04:05.000-07:00",
      name: "train",
      zone: "https://example/compute/v1/projects/p/zones/local-a",
      resizeBy: 2,
      requestedRunDuration: { seconds: "60" },
      state: "FAILED",
      status: { error: { errors: [{ code: "RESOURCE_NOT_FOUND" }] }, lastAttempt: {} },
      selfLink: "https://example/a",
      selfLinkWithId: "https://example/1",
    });
    expect(resource.state).toBe("FAILED");
    expect(
      InstanceGroupManagerResizeRequest.safeParse({ ...resource, state: "STATE_UNSPECIFIED" }).success,
    ).toBe(false);
  });
});

describe("errors", () => {
  test("a detail holds exactly one kind", () => {
    expect(ErrorDetail.safeParse({ errorInfo: { reason: "NO_ROOM" } }).success).toBe(true);
    expect(ErrorDetail.safeParse({}).success).toBe(false);
    expect(ErrorDetail.safeParse({ help: {}, localizedMessage: {} }).success).toBe(false);
  });

  test("QUOTA_EXCEEDED carries quotaInfo", () => {
    expect(ErrorItem.safeParse({ code: "QUOTA_EXCEEDED" }).error?.issues[0]).toMatchObject({
      path: ["errorDetails"],
      message: "an error with code QUOTA_EXCEEDED carries a quotaInfo detail",
    });
    const quota = {
      quotaInfo: { metricName: "instances", limit: 16, rolloutStatus: "IN_PROGRESS", futureLimit: 32 },
    };
    expect(ErrorItem.safeParse({ code: "QUOTA_EXCEEDED", errorDetails: [quota] }).success).toBe(true);
  });

  test("errorInfo: reason pattern and length, metadata key pattern", () => {
    const item = (errorInfo: object) =>
      ErrorItem.safeParse({ code: "X", errorDetails: [{ errorInfo }] }).success;
    expect(
      item({ reason: "STOCKOUT", domain: "compute.resize-operator.dev", metadatas: { zone: "a" } }),
    ).toBe(true);
    expect(item({ reason: "lowercase" })).toBe(false);
    expect(item({ reason: "R".repeat(64) })).toBe(false);
    expect(item({ metadatas: { "Bad Key": "v" } })).toBe(false);
  });
});

describe("Operation", () => {
  const operation: OperationType = {
    kind: "compute#operation",
    id: "9007199254740993",
    name: "operation-1700000000000-abc",
    zone: "https://example/compute/v1/projects/p/zones/local-a",
    clientOperationId: "6f1c6a52-7f0e-4c55-9a39-3c1c0b9d2f10",
    operationType: "compute.instanceGroupManagerResizeRequests.insert",
    targetLink:
      "https://example/compute/v1/projects/p/zones/local-a/instanceGroupManagers/g/resizeRequests/r",
    targetId: "42",
    status: "RUNNING",
    user: "alice",
    progress: 50,
    insertTime: "2026-01-02T03:04:05Z",
    startTime: "2026-01-02T03:04:06Z",
    selfLink: "https://example/compute/v1/projects/p/zones/local-a/operations/operation-1700000000000-abc",
    instancesBulkInsertOperationMetadata: {
      perLocationStatus: { "zones/local-a": { status: "CREATING", targetVmCount: 8, createdVmCount: 4 } },
    },
  };

  test("a running insert with bulk-insert progress is valid", () => {
    expect(Operation.parse(operation)).toEqual(operation);
  });

  test("at most one metadata union member", () => {
    const both = { ...operation, setCommonInstanceMetadataOperationMetadata: { clientOperationId: "x" } };
    expect(Operation.safeParse(both).error?.issues[0]?.message).toBe(
      "at most one of setCommonInstanceMetadataOperationMetadata, instancesBulkInsertOperationMetadata, getHealthOperationMetadata, getVersionOperationMetadata may be set",
    );
  });

  test("progress is 0..100, status is an enum, a failed operation carries its HTTP error", () => {
    expect(Operation.safeParse({ ...operation, progress: 101 }).success).toBe(false);
    expect(Operation.safeParse({ ...operation, status: "FAILED" }).success).toBe(false);
    const failed = {
      ...operation,
      status: "DONE",
      progress: 100,
      endTime: "2026-01-02T03:05:00Z",
      error: { errors: [{ code: "RESOURCE_NOT_FOUND", message: "group g not found" }] },
      httpErrorStatusCode: 404,
      httpErrorMessage: "NOT FOUND",
      warnings: [{ code: "NOT_CRITICAL_ERROR", message: "m", data: [{ key: "k", value: "v" }] }],
    };
    expect(Operation.safeParse(failed).success).toBe(true);
  });
});
