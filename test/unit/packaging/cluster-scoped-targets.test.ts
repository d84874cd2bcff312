// One list of cluster-scoped target kinds for the admission policy and the operator: the chart's
// default is the model's, its schema takes the same form as the operator's flag, and the flag parses it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { DEFAULT_CLUSTER_SCOPED_TARGETS, GROUP_KIND_PATTERN } from "../../../src/api/target-kinds.js";
import { ConfigError, loadConfig } from "../../../src/config.js";

const chart = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../charts/resize-operator");
const read = (file: string): string => readFileSync(path.join(chart, file), "utf8");

test("the chart's default clusterScopedTargets is the operator's default", () => {
  const values = parse(read("values.yaml")) as { clusterScopedTargets: unknown };
  expect(values.clusterScopedTargets).toEqual(DEFAULT_CLUSTER_SCOPED_TARGETS);
});

test("the chart's schema takes the operator's Kind.group form", () => {
  const schema = JSON.parse(read("values.schema.json")) as {
    properties: { clusterScopedTargets: { items: { pattern: string } } };
  };
  expect(schema.properties.clusterScopedTargets.items.pattern).toBe(GROUP_KIND_PATTERN.source);
});

describe("--cluster-scoped-targets", () => {
  const targets = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
    loadConfig(argv, env)["cluster-scoped-targets"];

  test.each([
    [[], {}, ["NodePool.karpenter.sh"]],
    [["--cluster-scoped-targets="], {}, []],
    [
      ["--cluster-scoped-targets=NodePool.karpenter.sh, Gadget.test.example.com"],
      {},
      ["NodePool.karpenter.sh", "Gadget.test.example.com"],
    ],
    [[], { CLUSTER_SCOPED_TARGETS: "Node" }, ["Node"]],
  ])("%j %j → %j", (argv, env, expected) => {
    expect(targets(argv, env)).toEqual(expected);
  });

  test("a kind in another form stops start-up with a message naming the flag", () => {
    expect(() => targets(["--cluster-scoped-targets=karpenter.sh/NodePool"])).toThrow(ConfigError);
    expect(() => targets(["--cluster-scoped-targets=karpenter.sh/NodePool"])).toThrow(
      /--cluster-scoped-targets .*expected Kind\.group such as NodePool\.karpenter\.sh, got 'karpenter\.sh\/NodePool'/,
    );
  });
});
