// `npm run dev`: the whole thing locally — the local cluster (left running), the chart installed as
// the install guide installs it (CRDs, admission policy, RBAC, user roles: scripts/dev-release.ts), a
// Redis and the operator owned by this process (running as the release's ServiceAccount), and the
// samples. Ctrl-C stops the operator and Redis; the cluster and the release stay until
// `npm run cluster:down`.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hashPassword } from "../src/dashboard/passwords.js";
import { DEFAULT_TOKEN_AUDIENCE } from "../src/rest/auth.js";
import { installRelease, LEADER_FLAGS, operatorKubeconfig } from "./dev-release.js";
import { restClientManifest, restExample, type RestClientTarget } from "./dev-rest-client.js";
import { localClusterUp, localDir, localKubeconfig, repoRoot } from "../testbed/local.js";
import { startRedis, stopRedis } from "../testbed/redis.js";
import { ensureTools } from "../testbed/tools.js";
import { KUEUE_SAMPLES, KUEUE_TRY, startDevKueue, wantsKueue } from "./dev-kueue.js";
import { startKarpenter } from "../testbed/karpenter.js";
import {
  KARPENTER_FLAG,
  KARPENTER_SAMPLES,
  KARPENTER_TRY,
  KUEUE_KARPENTER_SAMPLES,
  KUEUE_KARPENTER_TRY,
} from "./dev-karpenter.js";

const HTTP_PORT = Number(process.env.HTTP_PORT ?? 8080);
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const cluster = await localClusterUp();
const tools = await ensureTools();
const kubectl = (...args: string[]): void => {
  const res = spawnSync(tools.paths.kubectl, ["--kubeconfig", localKubeconfig, ...args], {
    cwd: repoRoot,
    stdio: "inherit",
  });
  if (res.status !== 0) throw new Error(`kubectl ${args.join(" ")} failed`);
};
const devDir = path.join(localDir, "dev");
mkdirSync(devDir, { recursive: true });
installRelease(tools.paths, localKubeconfig, repoRoot, say);
const asOperator = operatorKubeconfig(
  tools.paths,
  localKubeconfig,
  path.join(devDir, "operator.kubeconfig"),
  repoRoot,
);
kubectl(
  "wait",
  "--for=condition=Established",
  "--timeout=60s",
  "crd/resizerequests.compute.resize-operator.dev",
  "crd/instancegroupmanagers.compute.resize-operator.dev",
);

// Kueue and the operator read the ProvisioningRequest CRD at start-up: Kueue first, then the operator.
const kueue = wantsKueue(process.argv);
if (kueue) {
  say("[dev] starting Kueue and the node pool controller (--kueue)");
  await startDevKueue(cluster, tools, say);
}
const karpenter = process.argv.includes(KARPENTER_FLAG);
if (karpenter) {
  say("[dev] starting Karpenter (--karpenter)");
  const log = (m: string): void => {
    say(`[dev] ${m}`);
  };
  await startKarpenter({ dir: cluster.dir, kubeconfig: cluster.kubeconfig, tools, log });
}

const redis = await startRedis({ dir: devDir });

// The dashboard's local sign-in: a fresh `admin` password every run (printed once below), kept only
// as a scrypt hash in the users file, and cluster-admin for its RBAC identity `dashboard:admin`.
const devPassword = randomBytes(12).toString("base64url");
const usersFile = path.join(devDir, "dashboard-users.yaml");
writeFileSync(
  usersFile,
  `users:\n  - username: admin\n    password: "${await hashPassword(devPassword)}"\n    name: Local admin\n`,
  { mode: 0o600 },
);
const rbacFile = path.join(devDir, "dashboard-rbac.yaml");
writeFileSync(
  rbacFile,
  [
    "apiVersion: rbac.authorization.k8s.io/v1",
    "kind: ClusterRoleBinding",
    "metadata: { name: resize-operator-dev-dashboard-admin }",
    "roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }",
    'subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: "dashboard:admin" }]',
    "",
  ].join("\n"),
);
say("[dev] granting the dashboard user dashboard:admin cluster-admin (local cluster only)");
kubectl("apply", "-f", rbacFile);
say(`[dev] starting the operator on http://localhost:${HTTP_PORT} as the release's ServiceAccount`);
const operator = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    "src/cli.ts",
    "run",
    `--kubeconfig=${asOperator}`,
    ...LEADER_FLAGS,
    `--redis-url=${redis.url}`,
    `--http-port=${HTTP_PORT}`,
  ],
  {
    cwd: repoRoot,
    stdio: "inherit",
    env: {
      ...process.env,
      POD_NAME: "resize-operator-dev",
      // A fresh secret per run: sessions end with the dev operator.
      AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64url"),
      AUTH_URL: `http://localhost:${HTTP_PORT}`,
      AUTH_CREDENTIALS_FILE: usersFile,
    },
  },
);

say("[dev] applying the samples (namespace default)");
kubectl("apply", "-f", "manifests/samples/");
if (kueue) kubectl("apply", "-f", KUEUE_SAMPLES);
if (karpenter) kubectl("apply", "-f", KARPENTER_SAMPLES);
if (kueue && karpenter) kubectl("apply", "-f", KUEUE_KARPENTER_SAMPLES);

// A REST client for the sample group, with the user roles the release installed.
const restClient: RestClientTarget = {
  namespace: "default",
  zone: "local-a",
  group: "gpu-workers",
  account: "rest-client",
  requesterRole: "resize-operator-requester",
};
say("[dev] applying a REST client ServiceAccount (requester, use on gpu-workers)");
const restClientFile = path.join(devDir, "rest-client.yaml");
writeFileSync(restClientFile, restClientManifest(restClient));
kubectl("apply", "-f", restClientFile);
const tokenRun = spawnSync(
  tools.paths.kubectl,
  [
    "--kubeconfig",
    localKubeconfig,
    "-n",
    restClient.namespace,
    "create",
    "token",
    restClient.account,
    `--audience=${DEFAULT_TOKEN_AUDIENCE}`,
    "--duration=8h",
  ],
  { cwd: repoRoot, encoding: "utf8" },
);
if (tokenRun.status !== 0) throw new Error(`kubectl create token failed: ${tokenRun.stderr}`);
const restToken = tokenRun.stdout.trim();

say(
  [
    "",
    "resize-operator is running locally:",
    `  Kubernetes API: ${cluster.server}`,
    `  KUBECONFIG:     ${localKubeconfig}`,
    `  Redis:          ${redis.url}`,
    `  Operator:       http://localhost:${HTTP_PORT}  (/healthz, /readyz)`,
    `  Dashboard:      http://localhost:${HTTP_PORT}/`,
    `  Sign in:        admin / ${devPassword}   (this run only; cluster-admin on the local cluster)`,
    "",
    "Try:",
    "  npm run kubectl -- get igm,rr",
    "  npm run kubectl -- get rr -w",
    "  npm run kubectl -- events --for resizerequest/train-8x4h",
    "",
    ...(kueue ? [...KUEUE_TRY, ""] : []),
    ...(karpenter ? [...KARPENTER_TRY, ""] : []),
    ...(kueue && karpenter ? [...KUEUE_KARPENTER_TRY, ""] : []),
    restExample(restClient, `http://localhost:${HTTP_PORT}`, restToken),
    "The Helm release resize-operator (namespace resize-operator-system) holds the CRDs, the admission",
    "policy and the RBAC: docs/install.md's `helm upgrade --install` and `helm upgrade` take it over.",
    "Ctrl-C stops the operator and Redis; the cluster keeps running until `npm run cluster:down`.",
    "",
  ].join("\n"),
);

let stopping = false;
const shutdown = async (code: number): Promise<void> => {
  if (stopping) return;
  stopping = true;
  operator.kill("SIGTERM");
  await new Promise((resolve) => operator.once("exit", resolve));
  await stopRedis(redis);
  process.exit(code);
};
operator.on("exit", (code) => {
  if (!stopping) {
    process.stderr.write(`[dev] the operator exited (${String(code)})\n`);
    void shutdown(1);
  }
});
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
