// The projections of the model: CRDs are structural and fully described, the field tree carries the
// wire formats a discovery document needs, the API reference covers every field, and every generated
// file is produced.
import { z } from "zod";
import {
  Duration,
  InstanceGroupManagerResizeRequest,
  Operation,
  ResizeRequestState,
  fieldTree,
  instanceGroupManagerResource,
  resizeRequestResource,
  type FieldNode,
} from "../../../src/api/index.js";
import { useInstanceGroupManagerPolicy } from "../../../src/generate/admission.js";
import { crdFor, type JSONSchemaProps } from "../../../src/generate/crd.js";
import { generatedFiles } from "../../../src/generate/files.js";
import { apiReference } from "../../../src/generate/markdown.js";

const kinds = [instanceGroupManagerResource, resizeRequestResource];

/** Every schema node below `schema`, with its path. */
function* nodes(schema: JSONSchemaProps, at = ""): Generator<[string, JSONSchemaProps]> {
  yield [at, schema];
  for (const [key, child] of Object.entries(schema.properties ?? {})) yield* nodes(child, `${at}.${key}`);
  if (schema.items) yield* nodes(schema.items, `${at}[]`);
  if (schema.additionalProperties) yield* nodes(schema.additionalProperties, `${at}{}`);
}

describe.each(kinds)("CRD of $names.kind", (model) => {
  const crd = crdFor(model);
  const version = crd.spec.versions[0];
  const root = version?.schema.openAPIV3Schema;
  if (root === undefined) throw new Error("no schema");

  test("is structural: every node has a type, no references or combinators", () => {
    for (const [at, node] of nodes(root)) {
      expect([at, node.type]).toEqual([at, expect.any(String)]);
      for (const forbidden of ["$ref", "anyOf", "oneOf", "allOf", "not", "nullable"]) {
        expect([at, forbidden in node]).toEqual([at, false]);
      }
    }
  });

  test("every field has a description (the API server forbids one on metadata)", () => {
    const undescribed = [...nodes(root)]
      .filter(([at, node]) => !at.startsWith(".metadata") && node.description === undefined)
      .map(([at]) => at)
      // Items and map values are described by their list or map field.
      .filter((at) => !at.endsWith("[]") && !at.endsWith("{}"));
    expect(undescribed).toEqual([]);
  });

  test("names, category, status subresource, printer columns, selectable fields", () => {
    expect(crd.metadata.name).toBe(`${model.names.plural}.compute.resize-operator.dev`);
    expect(crd.spec.names).toMatchObject({ shortNames: model.names.shortNames, categories: ["resize"] });
    expect(crd.spec.scope).toBe("Namespaced");
    expect(version?.subresources).toEqual({ status: {} });
    expect(version?.additionalPrinterColumns.at(-1)).toMatchObject({ name: "Age", type: "date" });
    expect(version?.selectableFields.length).toBeGreaterThan(0);
  });

  test("the name rule sits on the root, bounded by metadata.name maxLength", () => {
    const [nameRule] = root["x-kubernetes-validations"] ?? [];
    expect(nameRule?.rule).toContain("self.metadata.name.matches(");
    expect(nameRule?.fieldPath).toBe(".metadata.name");
    expect(root.properties?.metadata).toEqual({
      type: "object",
      properties: { name: { type: "string", maxLength: 63 } },
    });
  });

  test("every CEL rule has a message, every list under a CEL rule is bounded", () => {
    for (const [at, node] of nodes(root)) {
      for (const rule of node["x-kubernetes-validations"] ?? [])
        expect([at, rule.message]).toEqual([at, expect.any(String)]);
      if (node.type === "array") expect([at, node.maxItems]).toEqual([at, expect.any(Number)]);
    }
  });
});

test("the ResizeRequest CRD carries the spec rules and the state enum", () => {
  const schema = crdFor(resizeRequestResource).spec.versions[0]?.schema.openAPIV3Schema;
  const spec = schema?.properties?.spec;
  const rules = spec?.["x-kubernetes-validations"]?.map((r) => r.rule) ?? [];
  expect(rules).toContain("has(self.resizeBy) != has(self.instances)");
  expect(rules.filter((r) => r.includes("oldSelf"))).toHaveLength(7);
  expect(spec?.properties?.instances?.["x-kubernetes-list-type"]).toBe("map");
  expect(spec?.properties?.instances?.["x-kubernetes-list-map-keys"]).toEqual(["name"]);
  expect(spec?.properties?.cancel?.default).toBe(false);
  expect(schema?.properties?.status?.properties?.state?.enum).toEqual([
    "CREATING",
    "ACCEPTED",
    "SUCCEEDED",
    "FAILED",
    "CANCELLED",
  ]);
  // int64/uint64 strings are a wire format of the REST API, not a format the API server knows.
  expect(spec?.properties?.requestedRunDuration?.properties?.seconds?.format).toBeUndefined();
});

describe("field tree (what the discovery document is generated from)", () => {
  test("Google wire formats: int64 and uint64 strings, date-time, int32, enum descriptions", () => {
    const rr = fieldTree(InstanceGroupManagerResizeRequest);
    expect(rr.schemaId).toBe("InstanceGroupManagerResizeRequest");
    expect(rr.properties?.id).toMatchObject({ type: "string", format: "uint64", outputOnly: true });
    expect(rr.properties?.creationTimestamp).toMatchObject({ type: "string", format: "date-time" });
    expect(rr.properties?.resizeBy).toMatchObject({ type: "integer", format: "int32", minimum: 1 });
    expect(rr.properties?.requestedRunDuration?.properties?.seconds).toMatchObject({
      type: "string",
      format: "int64",
    });
    expect(rr.properties?.requestedRunDuration?.schemaId).toBe("Duration");
    expect(rr.required).toEqual(["name"]);
    const op = fieldTree(Operation);
    expect(op.properties?.creationTimestamp?.deprecated).toBe(true);
    expect(op.properties?.instancesBulkInsertOperationMetadata?.properties?.perLocationStatus).toMatchObject({
      type: "map",
      values: { schemaId: "BulkInsertOperationStatus" },
    });
  });

  test("every enum value is described", () => {
    const enums: FieldNode[] = [];
    const collect = (node: FieldNode) => {
      if (node.enum !== undefined && node.enum.length > 1) enums.push(node);
      for (const child of [...Object.values(node.properties ?? {}), node.items, node.values])
        if (child) collect(child);
    };
    for (const schema of [
      InstanceGroupManagerResizeRequest,
      Operation,
      resizeRequestResource.schema,
      instanceGroupManagerResource.schema,
    ]) {
      collect(fieldTree(schema));
    }
    expect(enums.length).toBeGreaterThan(5);
    for (const node of enums) {
      expect(node.enumDescriptions?.every((d) => d.length > 0)).toBe(true);
      expect(node.enumDescriptions).toHaveLength(node.enum?.length ?? 0);
    }
    expect(fieldTree(ResizeRequestState).enum).not.toContain("STATE_UNSPECIFIED");
  });

  test("metadata set on a field wins over the metadata of the type it uses", () => {
    const described = Duration.meta({ description: "Field-specific." }).optional();
    expect(fieldTree(described).description).toBe("Field-specific.");
    expect(fieldTree(described).schemaId).toBe("Duration");
  });

  test("unsupported zod constructs fail generation instead of producing a looser schema", () => {
    expect(() => fieldTree(z.union([z.string(), z.number()]))).toThrow("does not support zod type union");
    expect(() => fieldTree(z.email())).toThrow("does not support string format email");
    expect(() => fieldTree(z.number().gt(0))).toThrow("inclusive numeric bounds only");
    expect(() => fieldTree(z.string().regex(/a/).regex(/b/))).toThrow("2 patterns");
  });
});

test("the admission policy checks verb use on the named instancegroupmanagers object", () => {
  const policy = useInstanceGroupManagerPolicy();
  // Both kinds that take a group's capacity, on create only (a booking's spec is immutable).
  expect(policy.spec.matchConstraints.resourceRules).toEqual([
    expect.objectContaining({ operations: ["CREATE"], resources: ["resizerequests"] }),
    expect.objectContaining({ operations: ["CREATE"], resources: ["futurereservations"] }),
  ]);
  // One rule for both: the message names the kind being created, not ResizeRequest alone.
  expect(policy.spec.validations).toHaveLength(1);
  expect(policy.spec.validations[0]?.messageExpression).toMatch(
    /^'creating a ' \+ object\.kind \+ ' requires/,
  );
  expect(policy.spec.validations[0]?.expression).toBe(
    "authorizer.group('compute.resize-operator.dev').resource('instancegroupmanagers').namespace(object.metadata.namespace).name(object.spec.instanceGroupManager).check('use').allowed()",
  );
});

test("the API reference documents every field of every kind and REST resource", () => {
  const doc = apiReference({ kinds, restResources: [InstanceGroupManagerResizeRequest, Operation] });
  for (const heading of [
    "InstanceGroupManager",
    "ResizeRequest",
    "InstanceGroupManagerResizeRequest",
    "Operation",
  ]) {
    expect(doc).toContain(`\n### ${heading}\n`);
  }
  for (const path of [
    "spec.requestedRunDuration",
    "seconds",
    "status.lastAttempt",
    "status.provisioning.baseReplicas",
    "spec.provisioningTimeout",
    "instancesBulkInsertOperationMetadata",
    "error.errors[].errorDetails",
  ]) {
    expect(doc).toContain(`| \`${path}\``);
  }
  expect(doc).toContain("### QuotaExceededInfo");
  expect(doc).toContain(
    "Rule (`errorDetails`): an error with code QUOTA_EXCEEDED carries a quotaInfo detail.",
  );
});

test("generated files: CRDs in manifests and the chart, the admission policy, the API reference", () => {
  expect(generatedFiles().map((f) => f.path)).toEqual([
    "manifests/crds/compute.resize-operator.dev_instancegroupmanagers.yaml",
    "charts/resize-operator/crds/compute.resize-operator.dev_instancegroupmanagers.yaml",
    "manifests/crds/compute.resize-operator.dev_resizerequests.yaml",
    "charts/resize-operator/crds/compute.resize-operator.dev_resizerequests.yaml",
    "manifests/crds/compute.resize-operator.dev_futurereservations.yaml",
    "charts/resize-operator/crds/compute.resize-operator.dev_futurereservations.yaml",
    "manifests/admission/use-instancegroupmanager-policy.yaml",
    // The chart's copies of the policy and its RBAC rules (src/generate/rbac.ts).
    "charts/resize-operator/files/admission/policy.yaml",
    "charts/resize-operator/files/admission/binding.yaml",
    // Who may point a group at a target, and the chart's copies (rendered with clusterScopedTargets).
    "manifests/admission/instancegroupmanager-scale-target-policy.yaml",
    "charts/resize-operator/files/admission/target-policy.yaml",
    "charts/resize-operator/files/admission/target-binding.yaml",
    "charts/resize-operator/files/finalizer/policy.yaml",
    "charts/resize-operator/files/finalizer/binding.yaml",
    "charts/resize-operator/files/rbac/cluster-rules.yaml",
    "charts/resize-operator/files/rbac/namespace-rules.yaml",
    "charts/resize-operator/files/rbac/cluster-rules-node-readiness.yaml",
    "charts/resize-operator/files/rbac/cluster-rules-karpenter.yaml",
    "charts/resize-operator/files/rbac/user-roles.yaml",
    "charts/resize-operator/files/rbac/user-viewer-rules.yaml",
    "charts/resize-operator/files/rbac/user-requester-rules.yaml",
    "charts/resize-operator/files/rbac/user-admin-rules.yaml",
    "docs/api-reference.md",
  ]);
});
