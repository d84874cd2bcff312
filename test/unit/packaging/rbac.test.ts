// The chart's RBAC is exactly the permissions declared beside the code: every declaration appears as
// one rule (with its reason) in the generated files the templates include, nothing else does, and the
// declarations stay within what the operator should ever be granted.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { ALL_PERMISSIONS } from "../../../src/rbac/index.js";
import { OPT_IN_RULES_FILES, RULES_FILES, rbacFiles } from "../../../src/generate/rbac.js";
import {
  OPT_INS,
  permission,
  ruleOf,
  type Permission,
  type PolicyRule,
} from "../../../src/rbac/permissions.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const chartFile = (p: string): string => readFileSync(path.join(repoRoot, p), "utf8");
const resourceRules = ALL_PERMISSIONS.filter((p) => "resources" in p);

describe.each([
  ...Object.entries(RULES_FILES).map(([scope, file]) => ({
    name: scope,
    file,
    declared: ALL_PERMISSIONS.filter((p) => p.scope === scope && p.optIn === undefined),
  })),
  ...OPT_INS.map((optIn) => ({
    name: `rbac.${optIn}`,
    file: OPT_IN_RULES_FILES[optIn],
    declared: ALL_PERMISSIONS.filter((p) => p.optIn === optIn),
  })),
])("generated $name rules", ({ file, declared }) => {
  const committed = parse(chartFile(file)) as PolicyRule[];

  test("the committed file is the generated one", () => {
    expect(rbacFiles().find((f) => f.path === file)?.content).toBeDefined();
    expect(committed).toEqual(parse(rbacFiles().find((f) => f.path === file)?.content ?? ""));
  });

  test("every declared permission is one rule, in order, and there is no other rule", () => {
    expect(committed).toEqual(declared.map(ruleOf));
  });

  test("each rule is preceded by its reason", () => {
    const text = chartFile(file);
    for (const p of declared) expect(text).toContain(`# ${p.why}\n`);
  });
});

test("the chart's ClusterRole and Role include the generated rules and nothing hand-written", () => {
  const template = chartFile("charts/resize-operator/templates/rbac.yaml");
  expect(template).toContain('{{ .Files.Get "files/rbac/cluster-rules.yaml" }}');
  expect(template).toContain('{{ .Files.Get "files/rbac/namespace-rules.yaml" }}');
  // The only other rule is the user's opt-in (rbac.extraTargetRules), and it can only grant `get`.
  expect(template.match(/verbs:/g)).toEqual(["verbs:"]);
  expect(template).toContain('verbs: ["get"]');
  // The opt-in rules, each under its value (Karpenter's NodePools need the Nodes too).
  expect(template).toContain(
    '{{- if or .Values.rbac.nodeReadiness .Values.rbac.karpenter }}\n{{ .Files.Get "files/rbac/cluster-rules-node-readiness.yaml" }}\n{{- end }}',
  );
  expect(template).toContain(
    '{{- if .Values.rbac.karpenter }}\n{{ .Files.Get "files/rbac/cluster-rules-karpenter.yaml" }}\n{{- end }}',
  );
});

test("Nodes and Karpenter's objects are granted only with their chart values, off by default, each verb for a reason", () => {
  const values = parse(chartFile("charts/resize-operator/values.yaml")) as {
    rbac: Record<string, unknown>;
  };
  expect(values.rbac).toMatchObject({ nodeReadiness: false, karpenter: false });
  // Reads, and the writes whose instances are a request's own (docs/lifecycle.md "Whose instances"):
  // labels on Nodes and NodeClaims (patch), a request's own NodeClaims deleted at its release, a pool's
  // node limit held meanwhile (patch). Never create, update or deletecollection.
  const allowed: Record<string, readonly string[]> = {
    nodes: ["list", "watch", "patch"],
    nodepools: ["get", "list", "watch", "patch"],
    nodeclaims: ["list", "patch", "delete"],
  };
  for (const p of resourceRules) {
    if (!("resources" in p) || !p.resources.some((r) => r in allowed)) continue;
    expect([p.resources, p.optIn]).toEqual([p.resources, expect.any(String)]);
    for (const r of p.resources)
      expect([r, [...p.verbs].sort()]).toEqual([r, [...(allowed[r] ?? [])].sort()]);
  }
});

describe("the declarations stay minimal", () => {
  test("no wildcard verbs, and no wildcard resources but */scale", () => {
    for (const p of ALL_PERMISSIONS) expect(p.verbs).not.toContain("*");
    for (const p of resourceRules) {
      if (!("resources" in p)) continue;
      for (const r of p.resources) if (r.includes("*")) expect(r).toBe("*/scale");
    }
  });

  test("nothing about Secrets, ConfigMaps or RBAC itself", () => {
    const forbidden = [
      "secrets",
      "configmaps",
      "roles",
      "clusterroles",
      "rolebindings",
      "clusterrolebindings",
    ];
    for (const p of resourceRules) {
      if (!("resources" in p)) continue;
      for (const r of p.resources) expect(forbidden).not.toContain(r.split("/")[0]);
    }
  });

  test("workloads are written only through /scale", () => {
    const writes = ["create", "update", "patch", "delete", "deletecollection"];
    const workloads = [
      "deployments",
      "statefulsets",
      "replicasets",
      "machinedeployments",
      "machinesets",
      "machinepools",
    ];
    for (const p of resourceRules) {
      if (!("resources" in p) || !p.resources.some((r) => workloads.includes(r))) continue;
      expect(p.verbs.filter((v) => writes.includes(v))).toEqual([]);
    }
  });

  test("only the Lease is confined to the operator's namespace, and it is the only Lease rule", () => {
    const namespaced = ALL_PERMISSIONS.filter((p) => p.scope === "operator-namespace");
    expect(namespaced.flatMap((p) => ("resources" in p ? p.resources : []))).toEqual(["leases"]);
    const clusterLeases = ALL_PERMISSIONS.filter(
      (p) => p.scope === "cluster" && "resources" in p && p.resources.includes("leases"),
    );
    expect(clusterLeases).toEqual([]);
  });
});

test("permission() refuses a declaration without a reason or verbs", () => {
  const base = { apiGroups: [""], resources: ["pods"] };
  expect(() => permission({ ...base, verbs: ["list"], why: " " })).toThrow(/why/);
  expect(() => permission({ ...base, verbs: [], why: "x" })).toThrow(/verbs/);
  const p: Permission = permission({ ...base, verbs: ["list"], why: "x" });
  expect(p.scope).toBe("cluster");
});
