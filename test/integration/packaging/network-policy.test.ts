// The chart's NetworkPolicies on the real API server: they are created (the API server validates and
// stores them) in a namespace beside one pod per rendered workload, carrying that workload's pod labels,
// and two decoys (the operator of another release, a pod of no release). Each policy's selectors are
// then evaluated by the API server itself (a pod list with the selector), so what a policy selects and
// admits is what a network plugin would be told. The bundled Redis's probe commands, rendered from the
// chart, run against a real redis-server.
//
// Not run here: enforcement (the testbed has no network plugin) and kube-score (not a dependency of
// the project; docs/install.md lists what it reports and why).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { startRedis, stopRedis, type RedisServer } from "../../../testbed/redis.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { CHART, helm, kubectl } from "./helm.js";

const run = promisify(execFile);
const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const networking = kubeConfig().makeApiClient(k8s.NetworkingV1Api);

/** A NetworkPolicy as JSON (the typed client renames `from` to `_from`). */
interface Peer {
  readonly podSelector?: k8s.V1LabelSelector;
  readonly namespaceSelector?: k8s.V1LabelSelector;
}
interface Rule {
  readonly from?: readonly Peer[];
  readonly to?: readonly Peer[];
  readonly ports?: readonly { readonly port?: number | string; readonly protocol?: string }[];
}
interface Policy {
  readonly metadata?: { readonly name?: string };
  readonly spec?: {
    readonly podSelector?: k8s.V1LabelSelector;
    readonly policyTypes?: readonly string[];
    readonly ingress?: readonly Rule[];
    readonly egress?: readonly Rule[];
  };
}

interface Rendered {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly spec?: {
    readonly template?: { metadata?: { labels?: Record<string, string> }; spec?: k8s.V1PodSpec };
  };
}

let ns: { name: string; remove: () => Promise<void> };
let dir: string;
const RELEASE = "np";
const FULLNAME = `${RELEASE}-resize-operator`;

async function render(release: string, ...set: string[]): Promise<Rendered[]> {
  const args = ["template", release, CHART, "-n", ns.name, ...set.flatMap((s) => ["--set", s])];
  return parseAllDocuments(await helm(...args))
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => o !== null);
}

const policiesOf = (objects: readonly Rendered[]) =>
  objects.filter((o) => o.kind === "NetworkPolicy") as unknown as Policy[];

/** component → pod template of each rendered workload (Deployment, StatefulSet, Job). */
function podTemplates(objects: readonly Rendered[]): Map<string, k8s.V1PodTemplateSpec> {
  const templates = new Map<string, k8s.V1PodTemplateSpec>();
  for (const o of objects) {
    const template = o.spec?.template;
    if (!["Deployment", "StatefulSet", "Job"].includes(o.kind ?? "") || !template) continue;
    templates.set(template.metadata?.labels?.["app.kubernetes.io/component"] ?? "?", template);
  }
  return templates;
}

/** A LabelSelector in the API server's query syntax. */
function selectorString(selector: k8s.V1LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
    else throw new Error(`unknown selector operator ${e.operator}`);
  }
  return parts.join(",");
}

/** The test namespace's pods the API server selects with `selector`, by name. */
async function selected(selector: k8s.V1LabelSelector | undefined): Promise<string[]> {
  if (!selector) throw new Error("no pod selector");
  const pods = await core.listNamespacedPod({ namespace: ns.name, labelSelector: selectorString(selector) });
  return pods.items.map((p) => p.metadata?.name ?? "").sort();
}

/** What the API server stored for policy `name`. */
const stored = async (name: string): Promise<Policy> =>
  JSON.parse(await kubectl("get", "networkpolicy", name, "-n", ns.name, "-o", "json")) as Policy;

beforeAll(async () => {
  ns = await createTestNamespace("netpol");
  // Pods are admitted once the namespace's default ServiceAccount exists (made by the controller
  // manager shortly after the namespace; on a fresh cluster this file may be the first to need it).
  await eventually("the namespace's default ServiceAccount", () =>
    core.readNamespacedServiceAccount({ namespace: ns.name, name: "default" }).catch(() => undefined),
  );
  dir = mkdtempSync(path.join(tmpdir(), "netpol-"));
  const objects = await render(RELEASE);
  const other = podTemplates(await render("other"));
  const pods: [string, Record<string, string>][] = [
    ...[...podTemplates(objects)].map(([component, t]): [string, Record<string, string>] => [
      component,
      t.metadata?.labels ?? {},
    ]),
    ["other-operator", other.get("operator")?.metadata?.labels ?? {}],
    ["stranger", { app: "stranger" }],
  ];
  for (const [name, labels] of pods)
    await core.createNamespacedPod({
      namespace: ns.name,
      body: { metadata: { name, labels }, spec: { containers: [{ name: "c", image: "none" }] } },
    });
  const file = path.join(dir, "policies.yaml");
  writeFileSync(
    file,
    policiesOf(objects)
      .map((p) => JSON.stringify(p))
      .join("\n---\n"),
  );
  await kubectl("apply", "--server-side", "-n", ns.name, "-f", file);
});

afterAll(async () => {
  await ns.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe("default values", () => {
  test("three policies, and every pod of the release is selected by exactly one; other pods by none", async () => {
    const names = (await networking.listNamespacedNetworkPolicy({ namespace: ns.name })).items
      .map((p) => p.metadata?.name)
      .sort();
    expect(names).toEqual([FULLNAME, `${FULLNAME}-redis`, `${FULLNAME}-test`]);
    const selections = await Promise.all(
      names.map(async (n) => selected((await stored(n ?? "")).spec?.podSelector)),
    );
    expect(selections).toEqual([["operator"], ["redis"], ["test"]]);
  });

  test("the operator: HTTP from anywhere, metrics from the monitoring namespace, egress open", async () => {
    const policy = await stored(FULLNAME);
    expect(policy.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    const [http, metrics, ...more] = policy.spec?.ingress ?? [];
    expect(more).toEqual([]);
    expect(http).toEqual({ ports: [{ port: "http", protocol: "TCP" }] });
    expect(metrics?.ports).toEqual([{ port: "metrics", protocol: "TCP" }]);
    expect(metrics?.from).toEqual([
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } },
    ]);
    expect(policy.spec?.egress).toEqual([{}]);
  });

  test("Redis: its port from the operator's pods of this release only, and no egress", async () => {
    const policy = await stored(`${FULLNAME}-redis`);
    expect(policy.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec?.egress).toBeUndefined();
    const [rule, ...more] = policy.spec?.ingress ?? [];
    expect(more).toEqual([]);
    expect(rule?.ports).toEqual([{ port: "redis", protocol: "TCP" }]);
    const [peer, ...others] = rule?.from ?? [];
    expect(others).toEqual([]);
    // No namespaceSelector: the peer is in the policy's own namespace.
    expect(peer?.namespaceSelector).toBeUndefined();
    expect(await selected(peer?.podSelector)).toEqual(["operator"]);
  });

  test("the helm test Job: no ingress; egress to the operator's HTTP port and DNS only", async () => {
    const policy = await stored(`${FULLNAME}-test`);
    expect(policy.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec?.ingress).toBeUndefined();
    const [toOperator, dns, ...more] = policy.spec?.egress ?? [];
    expect(more).toEqual([]);
    expect(toOperator?.to).toHaveLength(1);
    expect(await selected(toOperator?.to?.[0]?.podSelector)).toEqual(["operator"]);
    // The number is the operator container's port named http (egress names resolve per CNI, so 8080).
    const deployment = podTemplates(await render(RELEASE)).get("operator");
    const httpPort = deployment?.spec?.containers[0]?.ports?.find((p) => p.name === "http")?.containerPort;
    expect(toOperator?.ports).toEqual([{ port: httpPort, protocol: "TCP" }]);
    expect(dns).toEqual({
      ports: [
        { port: 53, protocol: "UDP" },
        { port: 53, protocol: "TCP" },
      ],
    });
  });
});

test("with httpFrom, HTTP admits those peers and the test Job's pod (helm test keeps working)", async () => {
  const peer = "networkPolicy.httpFrom[0].namespaceSelector.matchLabels.team=ingress";
  const [policy] = policiesOf(await render(RELEASE, peer)).filter((p) => p.metadata?.name === FULLNAME);
  const from = policy?.spec?.ingress?.[0]?.from ?? [];
  expect(from[0]).toEqual({ namespaceSelector: { matchLabels: { team: "ingress" } } });
  expect(from).toHaveLength(2);
  expect(await selected(from[1]?.podSelector)).toEqual(["test"]);
  const untested = policiesOf(await render(RELEASE, peer, "tests.enabled=false"));
  expect(untested.find((p) => p.metadata?.name === FULLNAME)?.spec?.ingress?.[0]?.from).toEqual([from[0]]);
});

test("policies follow the parts rendered: no Redis policy without bundled Redis, none when disabled", async () => {
  const names = async (...set: string[]) =>
    policiesOf(await render(RELEASE, ...set)).map((p) => p.metadata?.name);
  expect(await names("redis.mode=disabled")).toEqual([FULLNAME, `${FULLNAME}-test`]);
  expect(await names("tests.enabled=false")).toEqual([FULLNAME, `${FULLNAME}-redis`]);
  expect(await names("networkPolicy.enabled=false")).toEqual([]);
  // metricsFrom empty: nobody reaches metrics (the rule is gone, not open).
  const closed = policiesOf(await render(RELEASE, "networkPolicy.metricsFrom=null"));
  expect(closed[0]?.spec?.ingress?.map((r) => r.ports?.[0]?.port)).toEqual(["http"]);
});

describe("the bundled Redis's probes, run against a real redis-server", () => {
  let redis: RedisServer;
  const PASSWORD = "probe-password";
  // DEBUG SLEEP makes the server slow on demand (local connections only).
  const ARGS = ["--requirepass", PASSWORD, "--enable-debug-command", "local"];

  beforeAll(async () => {
    redis = await startRedis({ dir, args: ARGS });
  });
  afterAll(async () => {
    await stopRedis(redis);
  });

  /** The StatefulSet's container, rendered with a password Secret. */
  async function container(): Promise<k8s.V1Container> {
    const redisPod = podTemplates(await render(RELEASE, "redis.bundled.auth.secretName=pw")).get("redis");
    const c = redisPod?.spec?.containers[0];
    if (!c) throw new Error("no Redis container rendered");
    return c;
  }

  /** Runs a probe's exec command as the kubelet would (within its timeoutSeconds), on the test server. */
  async function probe(spec: k8s.V1Probe | undefined, env: Record<string, string>): Promise<boolean> {
    const [shell = "", ...args] = spec?.exec?.command ?? [];
    // The one substitution: the container's port 6379 is this server's free port.
    const script = args.map((a) => a.replace("-p 6379", `-p ${redis.port}`));
    const timeout = (spec?.timeoutSeconds ?? 1) * 1000;
    try {
      await run(shell, script, { env: { PATH: process.env.PATH ?? "", ...env }, timeout });
      return true;
    } catch {
      return false;
    }
  }

  test("liveness and readiness differ; liveness tolerates a minute of failures", async () => {
    const c = await container();
    expect(c.livenessProbe?.exec?.command).not.toEqual(c.readinessProbe?.exec?.command);
    const live = c.livenessProbe;
    expect((live?.periodSeconds ?? 0) * (live?.failureThreshold ?? 0)).toBeGreaterThanOrEqual(60);
    expect(c.readinessProbe?.timeoutSeconds).toBe(2);
    // redis-cli reads the password from REDISCLI_AUTH, fed by the same Secret as the server's.
    const auth = c.env?.find((e) => e.name === "REDISCLI_AUTH")?.valueFrom?.secretKeyRef;
    expect(auth).toEqual({ name: "pw", key: "password" });
  });

  test("both pass against a healthy server with the password, and fail without it or without a server", async () => {
    const c = await container();
    const withPassword = { REDISCLI_AUTH: PASSWORD };
    expect(await probe(c.livenessProbe, withPassword)).toBe(true);
    expect(await probe(c.readinessProbe, withPassword)).toBe(true);
    // NOAUTH is neither PONG nor LOADING: a missing password would restart Redis, so the env above matters.
    expect(await probe(c.livenessProbe, {})).toBe(false);
    expect(await probe(c.readinessProbe, {})).toBe(false);
    await stopRedis(redis);
    expect(await probe(c.livenessProbe, withPassword)).toBe(false);
    expect(await probe(c.readinessProbe, withPassword)).toBe(false);
    redis = await startRedis({ dir, port: redis.port, args: ARGS });
  });

  test("a Redis slow for 3 s leaves readiness (2 s timeout) and stays live (5 s timeout)", async () => {
    const c = await container();
    const withPassword = { REDISCLI_AUTH: PASSWORD };
    const cli = ["-h", "127.0.0.1", "-p", String(redis.port)];
    const sleeping = run("redis-cli", [...cli, "DEBUG", "SLEEP", "3"], {
      env: { ...process.env, ...withPassword },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [live, ready] = await Promise.all([
      probe(c.livenessProbe, withPassword),
      probe(c.readinessProbe, withPassword),
    ]);
    await sleeping;
    expect({ live, ready }).toEqual({ live: true, ready: false });
    expect(await probe(c.readinessProbe, withPassword)).toBe(true);
  });
});
