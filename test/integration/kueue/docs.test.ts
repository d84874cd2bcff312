// docs/kueue.md's walk-through, run as written: every shell block in order, in one shell state, with
// the pinned kubectl and the kubectl-resize plugin on PATH, against the real Kueue, the testbed's node
// pool controller and the operator (scoped to the walk-through's namespace), as `npm run dev -- --kueue`
// provides them.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { installApi, kubectl, repoRoot } from "../api/install.js";
import { runBlock, shellBlocks, type DocBlock } from "../docs/blocks.js";
import { eventually } from "../../support/kube.js";
import { pluginBinDir } from "../../support/kubectl-plugin.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { env, startKueueStack } from "./support.js";

const DOC = "docs/kueue.md";
const NAMESPACE = "batch";
const work = mkdtempSync(path.join(tmpdir(), "kueue-doc-"));
const state = path.join(work, "state.env");
let stack: Awaited<ReturnType<typeof startKueueStack>> | undefined;
let operator: OperatorProcess | undefined;

/** One block with the pinned kubectl and the plugin first on PATH; on failure, the cluster's state too. */
const runDocBlock = (block: DocBlock, bin: string): Promise<string> =>
  runBlock(block, block.code, {
    state,
    cwd: repoRoot,
    env: { ...process.env, PATH: [path.dirname(env("KUBECTL")), bin, process.env.PATH ?? ""].join(":") },
    context: clusterState,
  });

/**
 * What the walk-through's namespace and the pool's nodes looked like when a block failed: a wait that
 * times out says only that it timed out, and the testbed's logs are gone after the run.
 */
async function clusterState(): Promise<string> {
  const views = [
    ["get", "pods", "-n", NAMESPACE, "-o", "wide"],
    [
      "get",
      "pods",
      "-n",
      NAMESPACE,
      "-o",
      "custom-columns=POD:.metadata.name,PHASE:.status.phase,CONDITIONS:.status.conditions[*].type,READY:.status.conditions[*].status",
    ],
    [
      "get",
      "nodes",
      "-o",
      "custom-columns=NODE:.metadata.name,READY:.status.conditions[?(@.type=='Ready')].status,TAINTS:.spec.taints[*].key",
    ],
    ["get", "events", "-n", NAMESPACE, "--sort-by=.lastTimestamp"],
  ];
  const out: string[] = [];
  for (const args of views)
    out.push(`$ kubectl ${args.join(" ")}\n${await kubectl(...args).catch((e: unknown) => String(e))}`);
  return out.join("\n");
}

beforeAll(async () => {
  await installApi();
  stack = await startKueueStack();
  operator = startOperator({ namespace: NAMESPACE, name: "kueue-doc" });
  const log = operator.log;
  await eventually("the operator to serve ProvisioningRequests", () =>
    Promise.resolve(
      readFileSync(log, "utf8").includes('"msg":"serving ProvisioningRequests"') ? true : undefined,
    ),
  );
}, 600_000);

afterAll(async () => {
  // Whatever a failed block left: Kueue's objects go while Kueue runs (they carry its finalizers).
  await kubectl("delete", "namespace", NAMESPACE, "--ignore-not-found", "--timeout=180s").catch(
    () => undefined,
  );
  for (const kind of [
    "clusterqueue/gpu",
    "admissioncheck/resize-operator",
    "provisioningrequestconfig/resize-operator",
    "resourceflavor/gpu-pool",
  ])
    await kubectl("delete", kind, "--ignore-not-found", "--timeout=60s").catch(() => undefined);
  if (operator) await stopAll([operator]);
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
}, 600_000);

test("the walk-through runs as written, and its Job runs on the nodes its request added", async () => {
  const blocks = shellBlocks(repoRoot, DOC);
  expect(blocks.length).toBeGreaterThanOrEqual(6);
  const bin = pluginBinDir(path.join(work, "bin"));
  for (const block of blocks) {
    const out = await runDocBlock(block, bin);
    if (/custom-columns=POD/.test(block.code)) {
      const lines = out.trim().split("\n");
      const nodes = lines
        .slice(lines.findIndex((l) => /^POD\s+NODE/.test(l)) + 1)
        .map((l) => l.split(/\s+/)[1] ?? "");
      expect(nodes).toHaveLength(4);
      for (const node of nodes) expect(node).toMatch(/^batch-gpu-pool-\d+$/);
    }
    if (/kubectl resize explain/.test(block.code)) {
      expect(out).toMatch(/Serves:\s+ProvisioningRequest batch\//);
      expect(out).toMatch(/Workload:\s+batch\/job-train-/);
      expect(out).toMatch(/State:\s+SUCCEEDED/);
    }
    if (/get provisioningrequests/.test(block.code)) expect(out).toContain("batch");
  }
}, 900_000);
