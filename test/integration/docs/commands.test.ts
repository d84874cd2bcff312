// Every shell block of the user docs (docs/install.md, docs/rest.md, the README's quick start), run
// as written against the local cluster, in document order, one bash per block (`set -euo pipefail`;
// variables carry over to the next block of the same file). A command that fails fails the test. The
// only changes are the substitutions listed below, each with its reason, and the blocks exempted
// below, each with its reason; a block neither runs nor is exempted cannot exist (first test).
import { execFile, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "../../../testbed/processes.js";
import { eventually } from "../../support/kube.js";
import type { OperatorProcess } from "../../support/operator.js";
import { untilReady } from "../../support/rest.js";
import { kubectl, helm, repoRoot, spawnOperator, tokenKubeconfig } from "../packaging/helm.js";
import {
  blockId,
  runBlock,
  shellBlocks,
  substitute,
  type DocBlock,
  type Exemption,
  type Substitution,
} from "./blocks.js";

const run = promisify(execFile);
const INSTALL = "docs/install.md";
const REST = "docs/rest.md";
const README = "README.md";
const NAMESPACE = "resize-operator-system";
const RELEASE = "resize-operator";
const ADMISSION = "manifests/admission/";

const EXEMPT: readonly Exemption[] = [
  {
    file: INSTALL,
    match: /^docker build/m,
    why: "no container engine on our machines: test/integration/packaging/dockerfile.test.ts performs the Dockerfile's stages instead",
  },
];

const work = mkdtempSync(path.join(tmpdir(), "docs-commands-"));
let operatorPort = 0;
let operator: OperatorProcess | undefined;
let admissionWasInstalled = false;

/** What must change for the blocks to run here (the README's are handled by its own test below). */
function substitutions(): Substitution[] {
  return [
    {
      from: /REGISTRY\/resize-operator/g,
      to: "resize-operator",
      why: "the registry is the reader's; kwok never pulls images, and this is the plain manifests' name, so both installs describe the same objects",
    },
    {
      from: /^kubectl -n resize-operator-system port-forward service\/resize-operator 8080:80 &$/m,
      to: ": port-forward replaced, the operator runs locally as the ServiceAccount of the chart",
      why: "kwok nodes run no containers, so there is no pod to forward to; the test runs the operator as a local process with a token of the chart's ServiceAccount (as chart.test.ts does)",
    },
    { from: /localhost:8080/g, to: `127.0.0.1:${operatorPort}`, why: "the local operator's port" },
  ];
}

function env(name: "KUBECTL" | "HELM" | "KUBECONFIG" | "REDIS_URL"): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is set by the jest global setup`);
  return value;
}

/** The pinned kubectl and helm first on PATH, and the test cluster's kubeconfig. */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dirs = [path.dirname(env("KUBECTL")), path.dirname(env("HELM"))];
  return { ...process.env, PATH: [...dirs, process.env.PATH ?? ""].join(":"), ...extra };
}

/** Runs one block against the test cluster (or `extraEnv`'s KUBECONFIG when given). */
const runDocBlock = (
  block: DocBlock,
  code: string,
  state: string,
  extraEnv: Record<string, string> = {},
): Promise<string> => runBlock(block, code, { state, cwd: repoRoot, env: shellEnv(extraEnv) });

/** The operator, as a local process authenticated as the chart's ServiceAccount, serving the Service's role. */
async function startLocalOperator(): Promise<void> {
  if (operator) return;
  const token = (await kubectl("create", "token", RELEASE, "-n", NAMESPACE, "--duration=1h")).trim();
  const kubeconfig = tokenKubeconfig(path.join(work, "operator.kubeconfig"), token);
  const url = `http://127.0.0.1:${operatorPort}`;
  operator = spawnOperator(work, "docs", [
    `--kubeconfig=${kubeconfig}`,
    "--leader-elect=true",
    `--leader-election-namespace=${NAMESPACE}`,
    `--leader-election-id=${RELEASE}-leader`,
    `--http-port=${operatorPort}`,
    `--redis-url=${env("REDIS_URL")}`,
    `--public-url=${url}`,
  ]);
  await untilReady(url, operator);
}

const exemption = (b: DocBlock): Exemption | undefined =>
  EXEMPT.find((e) => e.file === b.file && e.match.test(b.code));

beforeAll(async () => {
  operatorPort = await freePort();
  // The chart installs the cluster-wide admission policy; other test files apply the same objects
  // from manifests/admission/, which Helm would refuse to adopt. Put back in afterAll.
  const found = await kubectl("get", "-f", ADMISSION, "--ignore-not-found", "-o", "name");
  admissionWasInstalled = found.trim() !== "";
  if (admissionWasInstalled) await kubectl("delete", "-f", ADMISSION, "--wait");
});

afterAll(async () => {
  await operator?.stop();
  await helm("uninstall", RELEASE, "-n", NAMESPACE, "--wait", "--ignore-not-found").catch(() => undefined);
  await kubectl("delete", "namespace", "team-a", NAMESPACE, "--ignore-not-found", "--wait=false").catch(
    () => undefined,
  );
  // What the plain-manifests block left outside the namespaces (the CRDs stay, as other files use them).
  const clusterScoped = [
    "rbac.yaml",
    "user-roles.yaml",
    "admission-policy.yaml",
    "finalizer-policy.yaml",
  ].flatMap((f) => ["-f", `manifests/install/${f}`]);
  await kubectl("delete", ...clusterScoped, "--ignore-not-found").catch(() => undefined);
  if (admissionWasInstalled) await kubectl("apply", "--server-side", "-f", ADMISSION);
  rmSync(work, { recursive: true, force: true });
}, 300_000);

test("every shell block of the docs is run, or exempted with a reason that still matches", () => {
  const blocks = [INSTALL, REST, README].flatMap((f) => shellBlocks(repoRoot, f));
  expect(blocks.length).toBeGreaterThanOrEqual(10);
  for (const e of EXEMPT)
    expect([e.why, blocks.filter((b) => b.file === e.file && e.match.test(b.code)).length]).toEqual([
      e.why,
      1,
    ]);
});

describe.each([INSTALL, REST])("%s", (file) => {
  const blocks = shellBlocks(repoRoot, file).filter((b) => !exemption(b));
  const state = path.join(work, `${path.basename(file)}.env`);

  test.each(blocks.map((b) => [blockId(b), b] as const))(
    "%s",
    async (_id, block) => {
      if (block.code.includes("port-forward")) await startLocalOperator();
      const out = await runDocBlock(block, substitute(block.code, substitutions()), state);
      // What a block promises beyond its exit code.
      if (/^helm upgrade --install/m.test(block.code)) {
        // Every pod of the release Ready (the Redis volume came from the default StorageClass).
        await kubectl("wait", "--for=condition=Ready", "pods", "--all", "-n", NAMESPACE, "--timeout=120s");
        const claims = await kubectl(
          "get",
          "pvc",
          "-n",
          NAMESPACE,
          "-o",
          "jsonpath={.items[*].status.phase}",
        );
        expect(claims).toBe("Bound");
        expect(out).toMatch(/Phase:\s+Succeeded/);
      }
      if (/^kubectl apply --server-side -k manifests\/install\/$/m.test(block.code)) {
        // The plain manifests ship no Redis password: the block made the Secret they read it from.
        const stored = await kubectl(
          "get",
          "secret",
          `${RELEASE}-redis-auth`,
          "-n",
          NAMESPACE,
          "-o",
          "jsonpath={.data.password}",
        );
        expect(Buffer.from(stored, "base64").toString()).toMatch(/^[0-9a-f]{64}$/);
      }
      if (/resizeRequests\s*$/m.test(block.code))
        expect(out).toContain("compute#instanceGroupManagerResizeRequestList");
      if (/create token my-client -o jsonpath/.test(block.code))
        // The value the page says the local cluster prints (the API server's service-account issuer).
        expect(out.trim()).toBe('["https://kubernetes.default.svc.cluster.local"]');
      if (/auth can-i/.test(block.code)) expect(out.trim().split("\n").at(-1)).toBe("yes");
    },
    360_000,
  );
});

/** The README's quick start: `npm ci && npm run dev` (npm ci is the installation this test runs from). */
describe(README, () => {
  const [quickStart] = shellBlocks(repoRoot, README);
  const localDir = path.join(work, "dev-local");

  afterAll(() => {
    spawnSync("npm", ["run", "-s", "cluster:down"], {
      cwd: repoRoot,
      env: shellEnv({ RESIZE_OPERATOR_LOCAL_DIR: localDir }),
    });
  }, 120_000);

  test("the quick start's `npm run dev` brings everything up and its printed REST example works", async () => {
    const lines = (quickStart?.code ?? "").split("\n");
    // `npm ci && npm test` is this very suite; `npm ci` reinstalls the node_modules this test runs from.
    expect(lines.filter((l) => /^npm ci && npm test\b/.test(l))).toHaveLength(1);
    const devLine = lines.find((l) => /^npm ci && npm run dev\b/.test(l));
    expect(devLine).toBeDefined();
    const command = (devLine ?? "").replace(/^npm ci && /, "");
    const port = await freePort();
    // A cluster of its own in a temporary .local (as local-cluster.test.ts does), on a free port.
    const dev = spawn("bash", ["-c", command], {
      cwd: repoRoot,
      env: shellEnv({ RESIZE_OPERATOR_LOCAL_DIR: localDir, HTTP_PORT: String(port), KUBECONFIG: "" }),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    dev.stdout.on("data", (c: Buffer) => (output += c.toString()));
    dev.stderr.on("data", (c: Buffer) => (output += c.toString()));
    try {
      await eventually(
        "npm run dev prints its summary",
        () => Promise.resolve(output.includes("Ctrl-C stops the operator") ? true : undefined),
        240_000,
      ).catch((err: unknown) => {
        throw new Error(`npm run dev did not come up:\n${output}`, { cause: err });
      });
      await eventually("the dev operator is ready", async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.ok ? true : undefined;
      });
      // The printed curl commands, exactly as printed (the token is the fresh one dev made).
      const printed = output.split("\n").map((l) => l.trim());
      const start = printed.findIndex((l) => l.startsWith("export TOKEN="));
      const end = printed.findIndex((l, i) => i > start && l === "");
      const curl = printed.slice(start, end).join("\n");
      expect(curl).toContain("curl -sS -X POST");
      const { stdout } = await run(
        "bash",
        ["-c", `set -euo pipefail\n${curl.replace(/curl -sS/g, "curl -fsS")}`],
        {
          cwd: repoRoot,
        },
      );
      expect(stdout).toContain("compute#instanceGroupManagerResizeRequestList");
      expect(stdout).toContain("compute#operation");
      // The printed Node.js snippet, with Google's official client (a dev dependency here).
      const snippetStart = printed.findIndex((l) => l.startsWith("import { auth, compute }"));
      const snippet = printed
        .slice(
          snippetStart,
          printed.findIndex((l, i) => i > snippetStart && l === ""),
        )
        .join("\n");
      const token = /^export TOKEN='([^']+)'$/.exec(printed[start] ?? "")?.[1] ?? "";
      const node = await run(process.execPath, ["--input-type=module", "-e", snippet], {
        cwd: repoRoot,
        env: { ...process.env, TOKEN: token },
      });
      expect(node.stdout).toContain("from-curl");

      // Then the install guide on the same cluster, as a reader of the README would go on: its install
      // takes over the release `npm run dev` made, and its upgrade (CRDs first) works after that.
      const guide = shellBlocks(repoRoot, INSTALL).filter((b) => /^helm upgrade /m.test(b.code));
      expect(guide.map((b) => /^helm upgrade --install/m.test(b.code))).toEqual([true, false]);
      for (const block of guide) {
        const code = substitute(block.code, substitutions());
        const devCluster = { KUBECONFIG: path.join(localDir, "kubeconfig") };
        const out = await runDocBlock(block, code, path.join(work, "after-dev.env"), devCluster);
        if (/^helm test/m.test(block.code)) expect(out).toMatch(/Phase:\s+Succeeded/);
        else expect(out).toMatch(/STATUS: deployed/);
      }
    } finally {
      if (dev.pid !== undefined && dev.exitCode === null) process.kill(-dev.pid, "SIGINT");
      await new Promise((resolve) => dev.once("close", resolve));
    }
  }, 720_000);
});
