// docs/karpenter.md, run as written: every shell block in order, in one shell state, with the pinned
// kubectl on PATH, against the real Karpenter (v1.14.1, its kwok provider: testbed/karpenter.ts), the
// real Kueue (v0.17.0, started first: it and the operator read the ProvisioningRequest CRD at start-up)
// and the operator (scoped to the walk-through's namespace), as `npm run dev -- --kueue --karpenter`
// provides them: a static NodePool scaled by hand, a group over it, a ResizeRequest that gets 4 Nodes
// and gives them back, then Kueue's objects and a Job whose pods run on the 4 Nodes its
// ProvisioningRequest added, and a second Job whose Workload shows our ETA. The
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
import { startKueue, type Kueue } from "../../../testbed/kueue.js";
import { FEATURE_GATES, NODEPOOL_LABEL } from "../../../testbed/karpenter-manifests.js";
import { ensureTools, moduleDir, type Toolchain } from "../../../testbed/tools.js";
import { installApi, kubectl, repoRoot } from "../api/install.js";
import { eventually, kubeConfig } from "../../support/kube.js";
import { isServingNode } from "../../support/karpenter.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { untilServingProvisioningRequests } from "../kueue/support.js";
import { runBlock, shellBlocks, substitute, type Substitution } from "./blocks.js";

const DOC = "docs/karpenter.md";
const POOL = "static-gpu";
/** The walk-through's namespace. */
const NAMESPACE = "training";
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), "karpenter-doc-"));
const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
let tools: Toolchain;
let karpenter: Karpenter | undefined;
let kueue: Kueue | undefined;
let operator: OperatorProcess | undefined;

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
  {
    from: /allocatable: \{ cpu: 191450m, memory: 1900Gi,/,
    to: "allocatable: { cpu: 31900m, memory: 262134Mi,",
    why: "the group's shape is what one node offers: a gpu-8x Node of the kwok provider has the instance type less Karpenter's kube-reserved",
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
  await installApi();
  const log = (m: string): void => {
    process.stderr.write(`[karpenter-doc] ${m}\n`);
  };
  kueue = await startKueue({ dir: env("TESTBED_DIR"), kubeconfig: env("KUBECONFIG"), tools, log });
  karpenter = await startKarpenter({ dir: env("TESTBED_DIR"), kubeconfig: env("KUBECONFIG"), tools, log });
  operator = startOperator({ namespace: NAMESPACE, name: "karpenter-doc" });
  await untilServingProvisioningRequests(operator);
}, 300_000);

afterAll(async () => {
  // Whatever a failed block left: Kueue's objects go while Kueue runs (they carry its finalizers), the
  // ResizeRequests while the operator runs, Karpenter's Nodes while Karpenter runs.
  await kubectl("delete", "namespace", NAMESPACE, "--ignore-not-found", "--timeout=180s").catch(
    () => undefined,
  );
  for (const kind of [
    "clusterqueue/static-gpu",
    "admissioncheck/resize-operator",
    "provisioningrequestconfig/resize-operator",
    "resourceflavor/static-gpu",
  ])
    await kubectl("delete", kind, "--ignore-not-found", "--timeout=60s").catch(() => undefined);
  if (operator) await stopAll([operator]);
  await karpenter?.stop();
  await removeKarpenterCrds(env("KUBECONFIG"), tools);
  await kueue?.stop();
  rmSync(work, { recursive: true, force: true });
}, 600_000);

/** The rows of a table kubectl printed: after its header (the first line matching `header`), up to the next table's. */
function rows(out: string, header: RegExp): string[] {
  const lines = out.trim().split("\n");
  const after = lines.slice(lines.findIndex((l) => header.test(l)) + 1);
  const next = after.findIndex((l) => /^[A-Z][A-Z-]*\s{2,}[A-Z]/.test(l));
  return next < 0 ? after : after.slice(0, next);
}

test("the shell blocks run as written against Karpenter and Kueue, and do what the page says", async () => {
  const blocks = shellBlocks(repoRoot, DOC);
  expect(blocks).toHaveLength(11);
  const shell = {
    state: path.join(work, "state.env"),
    cwd: repoRoot,
    env: { ...process.env, PATH: [path.dirname(env("KUBECTL")), process.env.PATH ?? ""].join(":") },
    context: async () =>
      [
        await kubectl("get", "nodepools.karpenter.sh,nodeclaims,nodes", "-o", "wide"),
        await kubectl("get", "rr,provisioningrequests,workloads,pods", "-n", NAMESPACE, "-o", "wide").catch(
          (e: unknown) => String(e),
        ),
      ].join("\n"),
  };
  const ran: string[] = [];
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
    if (/kind: ResizeRequest/.test(block.code)) {
      // SUCCEEDED, and the pool's 4 Nodes Ready and registered: the ones `kubectl get nodes` listed.
      expect(out).toMatch(/^four-gpu-nodes\s.*SUCCEEDED/m);
      const nodes = (await poolNodes()).filter(isServingNode);
      expect(nodes).toHaveLength(4);
      expect(
        rows(out, /^NAME\s+STATUS/)
          .map((l) => l.split(/\s+/)[0])
          .sort(),
      ).toEqual(nodes.map((n) => n.metadata?.name).sort());
      ran.push("resize");
    }
    if (/--for=delete nodeclaims/.test(block.code) && /spec\.replicas/.test(block.code)) {
      // The run duration ended: the operator lowered the pool, and Karpenter removed its Nodes.
      await eventually("the pool's Nodes gone", async () =>
        (await poolNodes()).length === 0 ? true : undefined,
      );
      expect(
        await kubectl("get", "rr", "four-gpu-nodes", "-n", NAMESPACE, "-o", "jsonpath={.status.state}"),
      ).toBe("SUCCEEDED");
      ran.push("release");
    }
    if (/custom-columns=POD/.test(block.code)) {
      // The Job's 4 pods, one on each of the 4 Nodes Karpenter added for its ProvisioningRequest.
      const podNodes = rows(out, /^POD\s+NODE/).map((l) => l.split(/\s+/)[1] ?? "");
      const nodes = (await poolNodes()).filter(isServingNode).map((n) => n.metadata?.name ?? "");
      expect(podNodes).toHaveLength(4);
      expect(podNodes.sort()).toEqual(nodes.sort());
      ran.push("kueue");
    }
    if (/get workloads/.test(block.code)) {
      // The second Job's Workload carries our Provisioned=False message, ETA included, word for word.
      const line = out.split("\n").find((l) => l.startsWith("job-train-2-")) ?? "";
      const message = line.slice(line.indexOf(": ") + 2);
      expect(message).toMatch(
        /^Queued at position 1 of 1 for 4 instances of InstanceGroupManager training\/static-gpu; waiting for .* ETA \S+Z \(exact\)\.$/,
      );
      const prs = JSON.parse(await kubectl("get", "provisioningrequests", "-n", NAMESPACE, "-o", "json")) as {
        items: { status?: { conditions?: { type: string; message?: string }[] } }[];
      };
      const provisioned = prs.items.flatMap((p) =>
        (p.status?.conditions ?? []).filter((c) => c.type === "Provisioned").map((c) => c.message),
      );
      expect(provisioned).toContain(message);
      ran.push("eta");
    }
  }
  expect(ran).toEqual(["resize", "release", "kueue", "eta"]);
}, 900_000);

test("the RBAC values let the operator read Karpenter's NodePools and NodeClaims, and write what a release takes", async () => {
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
    verbs: ["get", "list", "watch", "patch"],
  });
  expect(clusterRole?.rules).toContainEqual({
    apiGroups: ["karpenter.sh"],
    resources: ["nodeclaims"],
    verbs: ["list", "patch", "delete"],
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
