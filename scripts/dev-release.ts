// `npm run dev`'s Helm release: the chart installed as docs/install.md installs it (release
// `resize-operator` in `resize-operator-system`), so the CRDs, the admission policy, the RBAC and the
// user roles on the local cluster belong to that release, and the install guide's `helm upgrade
// --install` and `helm upgrade` take it over instead of colliding with objects kubectl applied. The
// operator itself runs as a local process with a token of the release's ServiceAccount: the chart's
// permissions, nothing more.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { stringify } from "yaml";

export const RELEASE = "resize-operator";
export const NAMESPACE = "resize-operator-system";
const CHART = "charts/resize-operator";

/** Chart values that differ for dev: kwok runs no containers, so Redis and the operator run locally. */
const DEV_VALUES = [
  "redis.mode=disabled",
  "replicaCount=1",
  // `npm run dev -- --kueue`'s groups target the testbed's NodePools, `--karpenter`'s Karpenter's: the
  // operator reads them (rbac.extraTargetRules, as for any other target kind).
  "rbac.extraTargetRules[0].apiGroups[0]=testbed.resize-operator.dev",
  "rbac.extraTargetRules[0].resources[0]=nodepools",
  "rbac.extraTargetRules[1].apiGroups[0]=karpenter.sh",
  "rbac.extraTargetRules[1].resources[0]=nodepools",
  // `--karpenter`'s group counts its ready instances from the pool's Nodes and reads Karpenter's
  // NodePools and NodeClaims: the chart's documented value for that (docs/karpenter.md#rbac). Without
  // it every ResizeRequest on the group stops at NodeReadinessForbidden.
  "rbac.karpenter=true",
];

/**
 * Cluster-scoped objects an older `npm run dev` applied with kubectl; Helm refuses to take over an
 * object another owner made ("invalid ownership metadata"), so those without a release are deleted.
 */
const LEGACY = [
  "validatingadmissionpolicy/resizerequests-use-instancegroupmanager.compute.resize-operator.dev",
  "validatingadmissionpolicybinding/resizerequests-use-instancegroupmanager.compute.resize-operator.dev",
  ...["viewer", "requester", "admin"].map((role) => `clusterrole/${RELEASE}-${role}`),
];

export interface Tools {
  readonly kubectl: string;
  readonly helm: string;
}

function tool(bin: string, args: readonly string[], cwd: string): string {
  const res = spawnSync(bin, args, { cwd, encoding: "utf8" });
  if (res.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed:\n${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** `helm upgrade --install` of the release, after removing objects an older dev left unowned. */
export function installRelease(
  tools: Tools,
  kubeconfig: string,
  cwd: string,
  say: (l: string) => void,
): void {
  const kubectl = (...args: string[]): string =>
    tool(tools.kubectl, ["--kubeconfig", kubeconfig, ...args], cwd);
  for (const object of LEGACY) {
    const owner = kubectl(
      "get",
      object,
      "--ignore-not-found",
      "-o",
      "jsonpath={.metadata.name}/{.metadata.annotations.meta\\.helm\\.sh/release-name}",
    );
    if (owner !== "" && owner.endsWith("/")) {
      say(`[dev] deleting ${object} (applied by an older npm run dev; the release owns it now)`);
      kubectl("delete", object);
    }
  }
  say(`[dev] installing the chart as release ${RELEASE} in ${NAMESPACE} (docs/install.md)`);
  tool(
    tools.helm,
    [
      "--kubeconfig",
      kubeconfig,
      "upgrade",
      "--install",
      RELEASE,
      CHART,
      "--namespace",
      NAMESPACE,
      "--create-namespace",
      // The local cluster is shared with `npm run bench`, which applies the same admission policies
      // without a release: the release adopts them (and their fields) rather than refusing to install.
      "--take-ownership",
      "--force-conflicts",
      ...DEV_VALUES.flatMap((v) => ["--set", v]),
      "--wait",
      "--timeout",
      "3m",
    ],
    cwd,
  );
}

/**
 * A kubeconfig for the local cluster that authenticates as the release's ServiceAccount (a token
 * valid for a week: a dev run lasts less), written to `file`.
 */
export function operatorKubeconfig(tools: Tools, kubeconfig: string, file: string, cwd: string): string {
  const token = tool(
    tools.kubectl,
    ["--kubeconfig", kubeconfig, "-n", NAMESPACE, "create", "token", RELEASE, "--duration=168h"],
    cwd,
  ).trim();
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfig);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error(`${kubeconfig} has no current cluster`);
  const ca = cluster.caData
    ? { "certificate-authority-data": cluster.caData }
    : { "certificate-authority": cluster.caFile };
  writeFileSync(
    file,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "local", cluster: { server: cluster.server, ...ca } }],
      users: [{ name: RELEASE, user: { token } }],
      contexts: [{ name: "operator", context: { cluster: "local", user: RELEASE } }],
      "current-context": "operator",
    }),
    { mode: 0o600 },
  );
  return file;
}

/** The flags that make the local operator lead through the release's Lease. */
export const LEADER_FLAGS = [
  "--leader-elect=true",
  `--leader-election-namespace=${NAMESPACE}`,
  `--leader-election-id=${RELEASE}-leader`,
];
