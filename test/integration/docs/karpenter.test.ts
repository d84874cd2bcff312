// docs/karpenter.md, run as written: every shell block in order, in one shell state, with the pinned
// kubectl on PATH, against the real Karpenter (v1.14.1, its kwok provider: testbed/karpenter.ts). The
// only changes are the substitutions below, each with its reason. Its YAML claims are checked too: the
// RBAC values render the rule it says (the chart), and the Karpenter chart value it names turns the
// feature gate on (Karpenter's own chart, from the pinned module).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { removeKarpenterCrds, startKarpenter, type Karpenter } from "../../../testbed/karpenter.js";
import { FEATURE_GATES, NODEPOOL_LABEL } from "../../../testbed/karpenter-manifests.js";
import { ensureTools, moduleDir, type Toolchain } from "../../../testbed/tools.js";
import { kubectl, repoRoot } from "../api/install.js";
import { kubeConfig } from "../../support/kube.js";
import { runBlock, shellBlocks, substitute, type Substitution } from "./blocks.js";

const DOC = "docs/karpenter.md";
const POOL = "static-gpu";
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), "karpenter-doc-"));
const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
let tools: Toolchain;
let karpenter: Karpenter | undefined;

const SUBSTITUTIONS: readonly Substitution[] = [
  {
    from: /\{ group: karpenter\.k8s\.aws, kind: EC2NodeClass, name: default \}/,
    to: "{ group: karpenter.kwok.sh, kind: KWOKNodeClass, name: testbed }",
    why: "the testbed's Karpenter is its kwok provider, whose node class is the KWOKNodeClass startKarpenter applies",
  },
  {
    from: /values: \[p5\.48xlarge\]/,
    to: "values: [gpu-8x]",
    why: "the kwok provider offers the testbed's instance types; gpu-8x has 8 nvidia.com/gpu as a p5.48xlarge does",
  },
];

function env(name: "TESTBED_DIR" | "KUBECONFIG" | "KUBECTL" | "HELM"): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is set by the jest global setup`);
  return value;
}

/** The doc's fenced YAML block whose first line is `first`, parsed. */
function yamlBlock(first: string): unknown {
  const text = readFileSync(path.join(repoRoot, DOC), "utf8");
  const match = new RegExp("^```yaml\\n(" + first + "\\n[\\s\\S]*?)^```", "m").exec(text);
  if (!match?.[1]) throw new Error(`${DOC} has no yaml block starting with ${first}`);
  return parseAllDocuments(match[1])[0]?.toJS();
}

const poolNodes = async (): Promise<k8s.V1Node[]> =>
  (await core.listNode({ labelSelector: `${NODEPOOL_LABEL}=${POOL}` })).items;

beforeAll(async () => {
  tools = await ensureTools();
  karpenter = await startKarpenter({ dir: env("TESTBED_DIR"), kubeconfig: env("KUBECONFIG"), tools });
}, 180_000);

afterAll(async () => {
  await karpenter?.stop();
  await removeKarpenterCrds(env("KUBECONFIG"), tools);
  rmSync(work, { recursive: true, force: true });
}, 180_000);

test("the shell blocks run as written against Karpenter, and do what the page says", async () => {
  const blocks = shellBlocks(repoRoot, DOC);
  expect(blocks).toHaveLength(4);
  const shell = {
    state: path.join(work, "state.env"),
    cwd: repoRoot,
    env: { ...process.env, PATH: [path.dirname(env("KUBECTL")), process.env.PATH ?? ""].join(":") },
    context: () => kubectl("get", "nodepools.karpenter.sh,nodeclaims,nodes", "-o", "wide"),
  };
  for (const block of blocks) {
    const out = await runBlock(block, substitute(block.code, SUBSTITUTIONS), shell);
    if (/subresources\.scale/.test(block.code))
      expect(JSON.parse(out)).toEqual({
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.nodes",
      });
    if (/--replicas=2/.test(block.code)) {
      const nodes = await poolNodes();
      // `kubectl get nodes`, after the waits' lines: its header, then two nodes.
      const lines = out.trim().split("\n");
      expect(lines.slice(lines.findIndex((l) => l.startsWith("NAME ")) + 1)).toHaveLength(2);
      expect(nodes.map((n) => n.metadata?.labels?.["node.kubernetes.io/instance-type"])).toEqual([
        "gpu-8x",
        "gpu-8x",
      ]);
    }
    if (/--replicas=0/.test(block.code)) expect(await poolNodes()).toEqual([]);
  }
}, 600_000);

test("the RBAC values give the operator get on Karpenter's NodePools", async () => {
  const values = path.join(work, "karpenter-values.yaml");
  writeFileSync(values, JSON.stringify(yamlBlock("rbac:")));
  const { stdout } = await run(
    env("HELM"),
    [
      "template",
      "resize-operator",
      "charts/resize-operator",
      "-f",
      values,
      "--show-only",
      "templates/rbac.yaml",
    ],
    { cwd: repoRoot },
  );
  const roles = parseAllDocuments(stdout).map(
    (d) =>
      d.toJS() as { kind: string; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] },
  );
  const clusterRole = roles.find((r) => r.kind === "ClusterRole");
  expect(clusterRole?.rules).toContainEqual({
    apiGroups: ["karpenter.sh"],
    resources: ["nodepools"],
    verbs: ["get"],
  });
});

test("Karpenter's chart value the page names turns the StaticCapacity gate on", async () => {
  const text = readFileSync(path.join(repoRoot, DOC), "utf8");
  expect(text).toContain("`settings.featureGates.staticCapacity: true`");
  const chart = path.join(moduleDir("karpenter", "sigs.k8s.io/karpenter"), "kwok", "charts");
  const render = async (set: string[]): Promise<string> =>
    (
      await run(env("HELM"), [
        "template",
        "karpenter",
        chart,
        "--show-only",
        "templates/deployment.yaml",
        ...set,
      ])
    ).stdout;
  const gates = (manifest: string): string | undefined =>
    /name: FEATURE_GATES\s+value: "([^"]*)"/.exec(manifest)?.[1];
  expect(gates(await render([]))).not.toContain(FEATURE_GATES);
  expect(gates(await render(["--set", "settings.featureGates.staticCapacity=true"]))).toContain(
    FEATURE_GATES,
  );
});
