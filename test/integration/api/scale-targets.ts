// Shared by the tests of who may point a group at a target and of what the operator refuses: custom
// resources with a /scale subresource defined by the test (a namespaced and a cluster-scoped one, in a
// group of the tests' own), objects applied with the real kubectl, and kubectl run as another user.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parse, stringify } from "yaml";
import { GROUP, VERSION } from "../../../src/api/names.js";
import { createTestNamespace } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { tokenKubeconfig } from "../packaging/helm.js";
import { installApi, kubectl, repoRoot } from "./install.js";

const run = promisify(execFile);

export const TEST_GROUP = "test.resize-operator.dev";
export const TEST_API_VERSION = `${TEST_GROUP}/v1`;

export interface ScalableKind {
  readonly kind: string;
  readonly plural: string;
  readonly scope: "Namespaced" | "Cluster";
}

export const WIDGET: ScalableKind = { kind: "Widget", plural: "widgets", scope: "Namespaced" };
export const GADGET: ScalableKind = { kind: "Gadget", plural: "gadgets", scope: "Cluster" };

/** A CRD whose objects have spec.replicas behind a /scale subresource. */
export function scalableCrd({ kind, plural, scope }: ScalableKind): object {
  const replicas = { type: "object", properties: { replicas: { type: "integer", minimum: 0 } } };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${TEST_GROUP}` },
    spec: {
      group: TEST_GROUP,
      scope,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec: replicas, status: replicas } } },
          subresources: {
            status: {},
            scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
          },
        },
      ],
    },
  };
}

let dir: string | undefined;

/** Writes `text` to NAME.yaml (in the testbed folder when there is one) and returns its path. */
export function textFile(name: string, text: string): string {
  dir ??= mkdtempSync(path.join(process.env.TESTBED_DIR ?? tmpdir(), "scale-targets-"));
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** Writes `docs` as one YAML file and returns its path. */
export function yamlFile(name: string, docs: readonly object[]): string {
  return textFile(name, docs.map((d) => stringify(d)).join("---\n"));
}

/** `kubectl apply` of `docs` as the admin. */
export async function apply(name: string, docs: readonly object[]): Promise<void> {
  await kubectl("apply", "--server-side", "-f", yamlFile(name, docs));
}

/** Installs the CRDs and waits until they are served. */
export async function installScalableKinds(kinds: readonly ScalableKind[]): Promise<void> {
  await apply("crds", kinds.map(scalableCrd));
  for (const k of kinds)
    await kubectl("wait", "--for=condition=Established", "--timeout=60s", `crd/${k.plural}.${TEST_GROUP}`);
}

/** One object of a scalable kind with `replicas`; `namespace` undefined for a cluster-scoped kind. */
export function scalable(k: ScalableKind, name: string, namespace: string | undefined, replicas: number) {
  return {
    apiVersion: TEST_API_VERSION,
    kind: k.kind,
    metadata: { name, ...(namespace !== undefined && { namespace }) },
    spec: { replicas },
  };
}

/**
 * A group over `target`. Its ready count is the target's spec.replicas (readyReplicasField): these kinds
 * have no controller, and what the tests look at is who may point a group at them and the scaling.
 */
export function groupOver(name: string, namespace: string, target: { kind: string; name: string }) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "InstanceGroupManager",
    metadata: { name, namespace },
    spec: {
      zone: "local-a",
      targetRef: { apiVersion: TEST_API_VERSION, ...target },
      readyReplicasField: "spec.replicas",
    },
  };
}

export function requestFor(name: string, namespace: string, group: string, resizeBy: number) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "ResizeRequest",
    metadata: { name, namespace },
    spec: { instanceGroupManager: group, resizeBy },
  };
}

/** kubectl as the admin impersonating `user`: whether it exited 0, and what it printed (both streams). */
export async function kubectlAs(user: string, ...args: string[]): Promise<{ ok: boolean; out: string }> {
  const bin = process.env.KUBECTL;
  const kubeconfig = process.env.KUBECONFIG;
  if (!bin || !kubeconfig) throw new Error("KUBECTL and KUBECONFIG are set by the jest global setup");
  try {
    const { stdout, stderr } = await run(bin, ["--kubeconfig", kubeconfig, ...args, `--as=${user}`]);
    return { ok: true, out: stdout + stderr };
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    return { ok: false, out: stdout + stderr };
  }
}

/** The spec.replicas of a scalable object, read with kubectl. */
export async function replicasOf(k: ScalableKind, name: string, namespace?: string): Promise<number> {
  const where = namespace === undefined ? [] : ["-n", namespace];
  return Number(
    await kubectl("get", `${k.plural}.${TEST_GROUP}`, name, ...where, "-o", "jsonpath={.spec.replicas}"),
  );
}

/** One test file's namespace, operator and the cluster-scoped objects it made. */
export interface TargetSuite {
  readonly ns: Awaited<ReturnType<typeof createTestNamespace>>;
  /** Deleted after the file: `kind/name` or `resource.group/name` of cluster-scoped objects. */
  readonly clusterObjects: string[];
  operator?: OperatorProcess;
}

/** The API (CRDs and admission policies), the scalable kinds and a namespace for one test file. */
export async function openTargetSuite(prefix: string, kinds: readonly ScalableKind[]): Promise<TargetSuite> {
  await installApi();
  await installScalableKinds(kinds);
  return { ns: await createTestNamespace(prefix), clusterObjects: [] };
}

/** The operator, scoped to the suite's namespace, with `args`. */
export function startSuiteOperator(suite: TargetSuite, args: readonly string[]): void {
  suite.operator = startOperator({ namespace: suite.ns.name, name: `${suite.ns.name}-op`, args });
}

export async function closeTargetSuite(suite: TargetSuite | undefined): Promise<void> {
  if (!suite) return;
  await stopAll(suite.operator ? [suite.operator] : []);
  await suite.ns.remove();
  for (const object of suite.clusterObjects) await kubectl("delete", object, "--ignore-not-found");
}

/** An RBAC rule, as the chart's generated rules file holds them. */
export interface Rule {
  readonly apiGroups?: string[];
  readonly resources?: string[];
  readonly nonResourceURLs?: string[];
  readonly verbs: string[];
}

/** The ClusterRole rules the chart gives the operator (generated from the permission declarations). */
export function chartRules(): Rule[] {
  const file = path.join(repoRoot, "charts/resize-operator/files/rbac/cluster-rules.yaml");
  return parse(readFileSync(file, "utf8")) as Rule[];
}

const rbac = "rbac.authorization.k8s.io";

/** A ClusterRole named after the suite and `name` with `rules`, bound to the suite's operator ServiceAccount. */
export async function grant(suite: TargetSuite, name: string, rules: readonly Rule[]): Promise<void> {
  const full = `${suite.ns.name}-${name}`;
  suite.clusterObjects.push(`clusterrole/${full}`, `clusterrolebinding/${full}`);
  await apply(full, [
    { apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name: full }, rules },
    {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name: full },
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: full },
      subjects: [{ kind: "ServiceAccount", name: "operator", namespace: suite.ns.name }],
    },
  ]);
}

/** The operator as a ServiceAccount "operator" of the suite's namespace, granted `rules`, with `args`. */
export async function startOperatorWithRules(
  suite: TargetSuite,
  rules: readonly Rule[],
  args: readonly string[],
): Promise<void> {
  const { name } = suite.ns;
  await kubectl("create", "serviceaccount", "operator", "-n", name);
  await grant(suite, "operator", rules);
  const token = (await kubectl("create", "token", "operator", "-n", name, "--duration=1h")).trim();
  const file = path.join(process.env.TESTBED_DIR ?? repoRoot, `${name}.kubeconfig`);
  startSuiteOperator(suite, [`--kubeconfig=${tokenKubeconfig(file, token)}`, ...args]);
}
