// The Helm chart on the real local cluster: lint, server-side dry run of the rendered objects, install
// with default values (pods on kwok nodes, the Redis claim provisioned by the testbed's default
// StorageClass), `helm test`, RBAC sufficiency and minimality with a token of the chart's
// ServiceAccount, upgrade and uninstall without orphans.
//
// What runs and what does not: kwok nodes never execute containers, so the chart's operator and Redis
// pods are Running without running anything, and the `helm test` Job is completed by kwok's
// pod-complete stage (Job-owned pods only) without executing its check. The operator itself runs
// here as a local process authenticated as the chart's ServiceAccount, and the test hook's exact
// command (rendered from the chart) is executed locally against it.
//
// The cluster is shared with other test files: the release installs without the cluster-wide
// ValidatingAdmissionPolicy (other files apply the same policy from manifests/admission/, and
// uninstalling it would pull it from under them) and without the finalizer's MutatingAdmissionPolicy
// (finalizer-policy.test.ts binds it to its own namespace); the dry run covers the chart's policy
// objects, rendered as for a cluster that serves MutatingAdmissionPolicy.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { installApi } from "../api/install.js";
import { promisify } from "node:util";
import * as k8s from "@kubernetes/client-node";
import { parse, parseAllDocuments } from "yaml";
import { GROUP } from "../../../src/api/names.js";
import { ALL_PERMISSIONS } from "../../../src/rbac/index.js";
import { ruleOf } from "../../../src/rbac/permissions.js";
import { USER_ROLES } from "../../../src/rbac/user-roles.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createRequest, createWorkers, replicasOf, untilState } from "../../support/resize.js";
import { call, fullAccess, serviceAccountToken, untilReady } from "../../support/rest.js";
import { grant, Jar, writeUsersFile } from "../dashboard/support.js";
import { freePort } from "../../../testbed/processes.js";
import { DEFAULT_STORAGE_CLASS } from "../../../testbed/storage.js";
import { CHART, helm, kubectl, spawnOperator, tokenKubeconfig } from "./helm.js";

const run = promisify(execFile);
const admin = kubeConfig();
const core = admin.makeApiClient(k8s.CoreV1Api);
const coordination = admin.makeApiClient(k8s.CoordinationV1Api);
const apiext = admin.makeApiClient(k8s.ApiextensionsV1Api);

let releaseNs: { name: string; remove: () => Promise<void> };
let workNs: { name: string; remove: () => Promise<void> };
let release: string;
let fullname: string;
let dir: string;
let saKubeconfig: string;
/** The PersistentVolume provisioned for the bundled Redis's claim. */
let redisVolume: string;
let operatorUrl: string;
const processes: OperatorProcess[] = [];
const INSTALL_SETTINGS = ["--set", "admissionPolicy.enabled=false", "--set", "finalizerPolicy.enabled=false"];
const SERVICE_MONITOR_CRD = "servicemonitors.monitoring.coreos.com";

beforeAll(async () => {
  // The admission policies, as the other files install them: the operator scales nothing without them
  // (controller/admission-guard.ts), and the release here is installed without its own copy.
  await installApi();
  dir = mkdtempSync(path.join(tmpdir(), "chart-test-"));
  releaseNs = await createTestNamespace("chart");
  workNs = await createTestNamespace("chart-work");
  release = `ro-${releaseNs.name.slice(-5)}`;
  fullname = `${release}-resize-operator`;
});

afterAll(async () => {
  await stopAll(processes);
  await helm("uninstall", release, "-n", releaseNs.name, "--ignore-not-found").catch(() => undefined);
  await apiext.deleteCustomResourceDefinition({ name: SERVICE_MONITOR_CRD }).catch(() => undefined);
  await workNs.remove();
  await releaseNs.remove();
  rmSync(dir, { recursive: true, force: true });
});

const valuesFiles = [
  "values.yaml",
  "ci/all-options-values.yaml",
  "ci/external-redis-values.yaml",
  "ci/external-redis-sentinel-values.yaml",
  "ci/external-redis-cluster-values.yaml",
];

test.each(valuesFiles)("helm lint --strict passes with %s", async (file) => {
  const out = await helm("lint", "--strict", CHART, "-f", path.join(CHART, file));
  expect(out).toContain("1 chart(s) linted, 0 chart(s) failed");
});

test("an external Redis renders its topology, a password file and TLS; two topologies are refused", async () => {
  const rendered = await helm(
    "template",
    release,
    CHART,
    "-f",
    path.join(CHART, "ci/external-redis-sentinel-values.yaml"),
  );
  const deployment = parseAllDocuments(rendered)
    .map((d) => d.toJS() as { kind?: string; spec?: { template: { spec: k8s.V1PodSpec } } } | null)
    .find((o) => o?.kind === "Deployment");
  const pod = deployment?.spec?.template.spec;
  const env = Object.fromEntries(
    (pod?.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? "(from a Secret)"]),
  );
  expect(env).toMatchObject({
    REDIS_SENTINELS: expect.stringMatching(/^redis-sentinel-0\.[^,]+:26379,.+,.+:26379$/) as unknown,
    REDIS_SENTINEL_MASTER: "operations",
    REDIS_USERNAME: "resize-operator",
    REDIS_PASSWORD_FILE: "/etc/resize-operator/redis-auth/password",
    REDIS_TLS: "true",
    REDIS_TLS_CA_FILE: "/etc/resize-operator/redis-ca/ca.crt",
  });
  expect(env).not.toHaveProperty("REDIS_URL");
  expect(env).not.toHaveProperty("REDIS_PASSWORD");
  expect(pod?.volumes?.map((v) => v.secret?.secretName)).toEqual(
    expect.arrayContaining(["resize-operator-redis-auth", "resize-operator-redis-ca"]),
  );
  await expect(
    helm(
      "template",
      release,
      CHART,
      "-f",
      path.join(CHART, "ci/external-redis-cluster-values.yaml"),
      "--set",
      "redis.external.secretName=url",
    ),
  ).rejects.toThrow(/give exactly one topology/);
});

test("rbac.nodeReadiness and rbac.karpenter add exactly their generated rules to the ClusterRole", async () => {
  const clusterRole = async (...values: string[]): Promise<unknown> => {
    const rendered = await helm("template", release, CHART, ...values.flatMap((v) => ["--set", v]));
    const role = parseAllDocuments(rendered)
      .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string }; rules?: unknown[] } | null)
      .find((o) => o?.kind === "ClusterRole" && o.metadata?.name === fullname);
    return JSON.parse(JSON.stringify(role?.rules ?? []));
  };
  const rules = (select: (p: (typeof ALL_PERMISSIONS)[number]) => boolean): unknown =>
    JSON.parse(JSON.stringify(ALL_PERMISSIONS.filter((p) => p.scope === "cluster" && select(p)).map(ruleOf)));
  const always = rules((p) => p.optIn === undefined) as unknown[];
  const nodes = rules((p) => p.optIn === "nodeReadiness") as unknown[];
  const karpenter = rules((p) => p.optIn === "karpenter") as unknown[];
  expect(nodes).not.toEqual([]);
  expect(karpenter).not.toEqual([]);
  expect(await clusterRole()).toEqual(always);
  expect(await clusterRole("rbac.nodeReadiness=true")).toEqual([...always, ...nodes]);
  // Karpenter's NodePools count their ready instances from Nodes: its value grants those too.
  expect(await clusterRole("rbac.karpenter=true")).toEqual([...always, ...nodes, ...karpenter]);
});

test("helm lint --strict rejects an unknown key", async () => {
  await expect(helm("lint", "--strict", CHART, "--set", "image.colour=red")).rejects.toThrow(
    /additional properties 'colour' not allowed/,
  );
});

describe("server-side dry run of helm template", () => {
  beforeAll(async () => {
    // all-options enables the ServiceMonitor; the test cluster has no Prometheus Operator, so a
    // permissive stand-in of its CRD lets the API server accept (not validate) that one object.
    await apiext.createCustomResourceDefinition({
      body: {
        metadata: { name: SERVICE_MONITOR_CRD },
        spec: {
          group: "monitoring.coreos.com",
          names: {
            kind: "ServiceMonitor",
            plural: "servicemonitors",
            singular: "servicemonitor",
            listKind: "ServiceMonitorList",
          },
          scope: "Namespaced",
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } },
            },
          ],
        },
      },
    });
    await kubectl("wait", "--for=condition=Established", "--timeout=60s", `crd/${SERVICE_MONITOR_CRD}`);
  });

  test.each(valuesFiles)("every object rendered with %s is accepted", async (file) => {
    const rendered = await helm(
      "template",
      release,
      CHART,
      "-n",
      releaseNs.name,
      "--include-crds",
      "--api-versions",
      "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy",
      "-f",
      path.join(CHART, file),
    );
    const kinds = parseAllDocuments(rendered)
      .map((d) => d.toJS() as { kind?: string } | null)
      .flatMap((o) => (o?.kind ? [o.kind] : []));
    expect(kinds).toEqual(
      expect.arrayContaining([
        "Deployment",
        "ClusterRole",
        "Role",
        "Job",
        "ValidatingAdmissionPolicy",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
      ]),
    );
    if (file.startsWith("ci/all"))
      expect(kinds).toEqual(
        expect.arrayContaining([
          "Ingress",
          "NetworkPolicy",
          "ServiceMonitor",
          "PodDisruptionBudget",
          "StatefulSet",
        ]),
      );
    const manifest = path.join(dir, `dry-run-${path.basename(file)}`);
    writeFileSync(manifest, rendered);
    const out = await kubectl(
      "apply",
      "--server-side",
      "--force-conflicts",
      "--dry-run=server",
      "-f",
      manifest,
    );
    expect(out.trim().split("\n")).toHaveLength(kinds.length);
  });
});

test("helm install: the operator and Redis pods run on kwok nodes", async () => {
  await helm(
    "install",
    release,
    CHART,
    "-n",
    releaseNs.name,
    ...INSTALL_SETTINGS,
    "--wait",
    "--timeout",
    "3m",
  );
  const pods = await core.listNamespacedPod({
    namespace: releaseNs.name,
    labelSelector: `app.kubernetes.io/instance=${release}`,
  });
  const summary = pods.items.map((p) => ({
    component: p.metadata?.labels?.["app.kubernetes.io/component"],
    phase: p.status?.phase,
    node: p.spec?.nodeName,
  }));
  expect(summary.filter((p) => p.component === "operator")).toHaveLength(2);
  expect(summary.filter((p) => p.component === "redis")).toHaveLength(1);
  for (const p of summary) {
    expect(p.phase).toBe("Running");
    expect(p.node).toMatch(/^kwok-node-/);
  }
  const pvc = await core.readNamespacedPersistentVolumeClaim({
    namespace: releaseNs.name,
    name: `data-${fullname}-redis-0`,
  });
  // No volume made by hand: the testbed's default StorageClass provisioned one for the claim.
  expect(pvc.status?.phase).toBe("Bound");
  expect(pvc.spec?.storageClassName).toBe(DEFAULT_STORAGE_CLASS);
  redisVolume = pvc.spec?.volumeName ?? "";
  const pv = await core.readPersistentVolume({ name: redisVolume });
  expect(pv.metadata?.annotations?.["pv.kubernetes.io/provisioned-by"]).toBe("kubernetes.io/host-path");
}, 240_000);

test("helm test passes (kwok completes the Job's pod) and cleans up after itself", async () => {
  const out = await helm("test", release, "-n", releaseNs.name, "--timeout", "2m");
  expect(out).toMatch(new RegExp(`TEST SUITE:\\s+${fullname}-test[\\s\\S]*Phase:\\s+Succeeded`));
  await eventually("the test Job is deleted (hook-succeeded)", async () => {
    const jobs = await kubectl("get", "jobs", "-n", releaseNs.name, "-o", "name");
    return jobs.trim() === "" ? true : undefined;
  });
}, 180_000);

describe("RBAC: the operator as the chart's ServiceAccount", () => {
  let sa: k8s.KubeConfig;

  beforeAll(async () => {
    const token = (await kubectl("create", "token", fullname, "-n", releaseNs.name, "--duration=2h")).trim();
    saKubeconfig = tokenKubeconfig(path.join(dir, "operator.kubeconfig"), token);
    sa = new k8s.KubeConfig();
    sa.loadFromFile(saKubeconfig);
  });

  test("sufficient: takes a ResizeRequest to SUCCEEDED, serves REST and the dashboard, and syncs cluster-wide caches", async () => {
    await createWorkers(workNs.name, "workers", 1);
    const users = await writeUsersFile(path.join(dir, "users"), [
      { username: "alice", password: "correct horse battery", email: "alice@example.com" },
    ]);
    await grant(workNs.name, "alice", "dashboard:alice@example.com", ["get", "list"]);
    await createGroup(workNs.name, "workers", { maxSize: 4 });
    const port = await freePort();
    operatorUrl = `http://127.0.0.1:${port}`;
    // Scoped to the test's namespace (other test files run their own operators on this cluster), and
    // leading through the chart's Lease in the release namespace.
    const leader = startOperator({
      namespace: workNs.name,
      name: "chart-sa-leader",
      args: [
        `--kubeconfig=${saKubeconfig}`,
        "--leader-elect=true",
        `--leader-election-namespace=${releaseNs.name}`,
        `--leader-election-id=${fullname}-leader`,
        `--http-port=${port}`,
        `--redis-url=${process.env.REDIS_URL ?? ""}`,
        `--public-url=${operatorUrl}`,
      ],
      // The dashboard with the credentials provider (its events cache needs the chart's RBAC too).
      env: { AUTH_SECRET: "x".repeat(40), AUTH_CREDENTIALS_FILE: users },
    });
    processes.push(leader);
    await untilReady(operatorUrl, leader);
    await eventually("the chart's Lease is held", async () => {
      const lease = await coordination.readNamespacedLease({
        namespace: releaseNs.name,
        name: `${fullname}-leader`,
      });
      // The identity is POD_NAME plus a unique suffix.
      return lease.spec?.holderIdentity?.startsWith("chart-sa-leader_") ? true : undefined;
    });

    await createRequest(workNs.name, "two", { instanceGroupManager: "workers", resizeBy: 2 });
    await untilState(workNs.name, "two", ["SUCCEEDED"], 90_000);
    expect(await replicasOf(workNs.name, "workers")).toMatchObject({ replicas: 2, ready: 2 });

    // The REST API: TokenReview and SubjectAccessReview for the caller, then reads and writes of
    // requests as the operator (insert needs `use` on the group, as the admission policy demands).
    const user = await serviceAccountToken(workNs.name, "rest-user", fullAccess());
    const requests = `${operatorUrl}/compute/v1/projects/${workNs.name}/zones/local-a/instanceGroupManagers/workers/resizeRequests`;
    const list = await call("GET", requests, { token: user });
    expect(list.status).toBe(200);
    expect((list.body as { items?: { name: string }[] }).items?.map((i) => i.name)).toContain("two");
    // 3 more on top of "two" would pass maxSize 4: it queues for room, so the cancel finds it active
    // (GCE refuses to cancel a finished request; one of size 1 succeeded before a CI run's cancel).
    const insert = await call("POST", requests, { token: user, body: { name: "via-rest", resizeBy: 3 } });
    expect(insert).toMatchObject({ status: 200, body: { kind: "compute#operation" } });
    expect((await call("GET", `${requests}/via-rest`, { token: user })).status).toBe(200);
    expect((await call("POST", `${requests}/via-rest/cancel`, { token: user })).status).toBe(200);
    // GCE's rule: only a finished request can be deleted through REST.
    await untilState(workNs.name, "via-rest", ["CANCELLED"], 90_000);
    expect((await call("DELETE", `${requests}/via-rest`, { token: user })).status).toBe(200);

    // The dashboard: sign in, then its JSON API (informer caches, SubjectAccessReview for the user).
    const jar = new Jar(operatorUrl);
    expect(await jar.signIn("alice", "correct horse battery")).toBe(`${operatorUrl}/`);
    const groups = await jar.fetch("/dashboard/api/groups");
    expect(groups.status).toBe(200);
    const listed = (await groups.json()) as { items: { namespace: string; name: string }[] };
    expect(listed.items).toEqual([expect.objectContaining({ namespace: workNs.name, name: "workers" })]);

    // Watching all namespaces, as the chart installs it: a second replica (kept a follower by a Lease
    // held elsewhere, so it never reconciles other test files' requests) syncs its caches cluster-wide.
    await coordination.createNamespacedLease({
      namespace: releaseNs.name,
      body: {
        metadata: { name: "held-elsewhere" },
        spec: {
          holderIdentity: "someone-else",
          leaseDurationSeconds: 3600,
          renewTime: new k8s.V1MicroTime(),
          acquireTime: new k8s.V1MicroTime(),
        },
      },
    });
    const followerPort = await freePort();
    const follower = spawnOperator(dir, "chart-sa-cluster-wide", [
      `--kubeconfig=${saKubeconfig}`,
      "--leader-elect=true",
      `--leader-election-namespace=${releaseNs.name}`,
      "--leader-election-id=held-elsewhere",
      `--http-port=${followerPort}`,
    ]);
    processes.push(follower);
    await untilReady(`http://127.0.0.1:${followerPort}`, follower);
    await follower.stop();
    await coordination.deleteNamespacedLease({ namespace: releaseNs.name, name: "held-elsewhere" });
  }, 240_000);

  test("minimal: no Secrets, no workload writes but /scale, no Leases outside its namespace", async () => {
    const saCore = sa.makeApiClient(k8s.CoreV1Api);
    const saApps = sa.makeApiClient(k8s.AppsV1Api);
    const saCoordination = sa.makeApiClient(k8s.CoordinationV1Api);
    await core.createNamespacedSecret({
      namespace: workNs.name,
      body: { metadata: { name: "s" }, stringData: { a: "b" } },
    });
    const status = async (request: Promise<unknown>): Promise<number> => {
      try {
        await request;
        return 200;
      } catch (err) {
        if (err instanceof k8s.ApiException) return err.code;
        throw err;
      }
    };
    const merge = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
    const name = "workers";
    const namespace = workNs.name;
    expect({
      "get secret in another namespace": await status(saCore.readNamespacedSecret({ namespace, name: "s" })),
      "list secrets in its own namespace": await status(
        saCore.listNamespacedSecret({ namespace: releaseNs.name }),
      ),
      "list secrets cluster-wide": await status(saCore.listSecretForAllNamespaces()),
      "patch a StatefulSet's spec": await status(
        saApps.patchNamespacedStatefulSet({ namespace, name, body: { spec: { replicas: 3 } } }, merge),
      ),
      "delete a StatefulSet": await status(saApps.deleteNamespacedStatefulSet({ namespace, name })),
      "create a Deployment": await status(
        saApps.createNamespacedDeployment({
          namespace,
          body: {
            metadata: { name: "x" },
            spec: {
              selector: { matchLabels: { a: "b" } },
              template: {
                metadata: { labels: { a: "b" } },
                spec: { containers: [{ name: "c", image: "i" }] },
              },
            },
          },
        }),
      ),
      "create a Pod": await status(
        saCore.createNamespacedPod({
          namespace,
          body: { metadata: { name: "x" }, spec: { containers: [{ name: "c", image: "i" }] } },
        }),
      ),
      "create a Lease in another namespace": await status(
        saCoordination.createNamespacedLease({ namespace, body: { metadata: { name: "x" }, spec: {} } }),
      ),
    }).toEqual({
      "get secret in another namespace": 403,
      "list secrets in its own namespace": 403,
      "list secrets cluster-wide": 403,
      "patch a StatefulSet's spec": 403,
      "delete a StatefulSet": 403,
      "create a Deployment": 403,
      "create a Pod": 403,
      "create a Lease in another namespace": 403,
    });
    // ... while /scale, the one way it changes workloads, is allowed.
    const scale = await saApps.readNamespacedStatefulSetScale({ namespace, name });
    await saApps.replaceNamespacedStatefulSetScale({ namespace, name, body: scale });
  });

  test("the rendered ClusterRole and Role are exactly the declared permissions", async () => {
    const roles = await kubectl(
      "get",
      "clusterrole,role",
      "-n",
      releaseNs.name,
      "-l",
      `app.kubernetes.io/instance=${release}`,
      "-o",
      "json",
    );
    const items = (
      JSON.parse(roles) as { items: { kind: string; metadata: { name: string }; rules: unknown[] }[] }
    ).items;
    const strip = (rules: readonly unknown[]): unknown => JSON.parse(JSON.stringify(rules));
    // With default values: the opt-in rules (rbac.nodeReadiness, rbac.karpenter) are not granted.
    const rulesOf = (scope: string) =>
      ALL_PERMISSIONS.filter((p) => p.scope === scope && p.optIn === undefined).map((p) =>
        strip([ruleOf(p)]),
      );
    const named = (kind: string, name: string) =>
      strip(items.find((i) => i.kind === kind && i.metadata.name === name)?.rules ?? []);
    expect(named("ClusterRole", fullname)).toEqual(rulesOf("cluster").flat());
    expect(named("Role", fullname)).toEqual(rulesOf("operator-namespace").flat());
    // ... and the user roles are exactly theirs.
    for (const role of USER_ROLES)
      expect(named("ClusterRole", `${fullname}-${role.suffix}`)).toEqual(strip(role.permissions.map(ruleOf)));
    expect(items).toHaveLength(2 + USER_ROLES.length);
  });

  test("the user roles are aggregated: view reads, edit requests, admin also uses every group", async () => {
    const sas = ["viewer", "editor", "admin"] as const;
    const builtin = { viewer: "view", editor: "edit", admin: "admin" } as const;
    for (const sa of sas) {
      await kubectl("create", "serviceaccount", `user-${sa}`, "-n", workNs.name);
      await kubectl(
        "create",
        "rolebinding",
        `user-${sa}`,
        "-n",
        workNs.name,
        `--clusterrole=${builtin[sa]}`,
        `--serviceaccount=${workNs.name}:user-${sa}`,
      );
    }
    /** kubectl auth can-i as the account: "yes", or "no" (it exits 1 for no). */
    const can = async (sa: string, verb: string, resource: string): Promise<string> => {
      const as = `--as=system:serviceaccount:${workNs.name}:user-${sa}`;
      return (await kubectl("auth", "can-i", verb, resource, "-n", workNs.name, as).catch(() => "no")).trim();
    };
    const rr = `resizerequests.${GROUP}`;
    const igm = `instancegroupmanagers.${GROUP}`;
    // The clusterrole-aggregation controller copies the rules into view/edit/admin asynchronously.
    await eventually("the rules are aggregated into admin", async () =>
      (await can("admin", "use", `${igm}/workers`)) === "yes" ? true : undefined,
    );
    expect({
      viewer: [
        await can("viewer", "list", rr),
        await can("viewer", "create", rr),
        await can("viewer", "use", igm),
      ],
      editor: [
        await can("editor", "list", rr),
        await can("editor", "create", rr),
        await can("editor", "use", igm),
      ],
      admin: [
        await can("admin", "list", rr),
        await can("admin", "create", igm),
        await can("admin", "use", igm),
      ],
    }).toEqual({ viewer: ["yes", "no", "no"], editor: ["yes", "yes", "no"], admin: ["yes", "yes", "yes"] });
  });
});

describe("the helm test hook's command, executed here against the operator", () => {
  let hook: string[];

  beforeAll(async () => {
    const rendered = await helm(
      "template",
      release,
      CHART,
      "-n",
      releaseNs.name,
      "--show-only",
      "templates/tests/smoke-test.yaml",
    );
    const job = parse(rendered) as { spec: { template: { spec: { containers: { command: string[] }[] } } } };
    hook = job.spec.template.spec.containers[0]?.command ?? [];
    expect(hook.slice(0, 3)).toEqual(["node", "--input-type=module", "-e"]);
    expect(hook.at(-1)).toBe(`http://${fullname}.${releaseNs.name}.svc:80`);
  });

  /** The hook's command with the Service URL replaced by the local operator's. */
  async function runHook(): Promise<{ code: number; stdout: string; stderr: string }> {
    const args = [...hook.slice(1, -1), operatorUrl];
    try {
      const { stdout, stderr } = await run(process.execPath, args, { cwd: dir });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  }

  test("checks /readyz", async () => {
    const result = await runHook();
    expect(result.stdout).toContain(`ok   ${operatorUrl}/readyz`);
  });

  test("checks the discovery document, and passes", async () => {
    const result = await runHook();
    expect(result.stdout).toContain(`ok   ${operatorUrl}/discovery/v1/apis/compute/v1/rest (compute:v1`);
    expect(result).toMatchObject({ code: 0, stderr: "" });
  });
});

/** Every object in the release namespace (but Events, which expire) and every cluster-scoped object of the release. */
async function leftovers(): Promise<string[]> {
  const types = (await kubectl("api-resources", "--verbs=list", "--namespaced", "-o", "name"))
    .trim()
    .split("\n")
    .filter((t) => t !== "events" && t !== "events.events.k8s.io");
  const names = (
    await kubectl("get", types.join(","), "-n", releaseNs.name, "-o", "name", "--ignore-not-found")
  )
    .trim()
    .split("\n")
    .filter((n) => n !== "" && n !== "serviceaccount/default" && n !== "configmap/kube-root-ca.crt");
  const cluster = (
    await kubectl(
      "get",
      "clusterroles,clusterrolebindings,validatingadmissionpolicies,validatingadmissionpolicybindings,persistentvolumes",
      "-l",
      `app.kubernetes.io/instance=${release}`,
      "-o",
      "name",
    )
  )
    .trim()
    .split("\n")
    .filter((n) => n !== "");
  return [...names, ...cluster].sort();
}

test("helm upgrade removes what the new values no longer render", async () => {
  await helm(
    "upgrade",
    release,
    CHART,
    "-n",
    releaseNs.name,
    ...INSTALL_SETTINGS,
    "--set",
    "redis.mode=disabled",
    "--set",
    "podDisruptionBudget.enabled=false",
    "--set",
    "replicaCount=3",
    "--wait",
    "--timeout",
    "3m",
  );
  const expected = [
    `deployment.apps/${fullname}`,
    `lease.coordination.k8s.io/${fullname}-leader`,
    // The operator's NetworkPolicy stays; the Redis one went with Redis.
    `networkpolicy.networking.k8s.io/${fullname}`,
    `role.rbac.authorization.k8s.io/${fullname}`,
    `rolebinding.rbac.authorization.k8s.io/${fullname}`,
    `service/${fullname}`,
    `serviceaccount/${fullname}`,
    `clusterrole.rbac.authorization.k8s.io/${fullname}`,
    ...USER_ROLES.map((r) => `clusterrole.rbac.authorization.k8s.io/${fullname}-${r.suffix}`),
    `clusterrolebinding.rbac.authorization.k8s.io/${fullname}`,
    // Helm's own records of the two revisions.
    `secret/sh.helm.release.v1.${release}.v1`,
    `secret/sh.helm.release.v1.${release}.v2`,
  ];
  // Owned objects (ReplicaSets, Pods, EndpointSlices, ...) are the Deployment's and Service's; the
  // Redis StatefulSet's claim goes with it (persistentVolumeClaimRetentionPolicy Delete).
  await eventually(
    "only the upgraded release's objects remain",
    async () => {
      const left = (await leftovers()).filter(
        (n) =>
          !/^(replicaset\.apps|pod|endpointslice\.discovery\.k8s\.io|endpoints|controllerrevision\.apps)\//.test(
            n,
          ),
      );
      if (JSON.stringify(left) !== JSON.stringify([...expected].sort()))
        throw new Error(`objects of the release: ${left.join(", ")}`);
      return left;
    },
    120_000,
  );
  // The claim went with the StatefulSet, and its volume with it (the StorageClass's reclaim policy).
  await eventually("the Redis volume is deleted", async () => {
    const pvs = await kubectl("get", "persistentvolumes", "-o", "name");
    return pvs.includes(redisVolume) ? undefined : true;
  });
}, 240_000);

test("helm uninstall leaves nothing behind but the CRDs", async () => {
  // The local operator still holds the Lease: uninstall removes its RBAC before the Lease, so it
  // cannot re-create it.
  await helm("uninstall", release, "-n", releaseNs.name, "--wait", "--timeout", "3m");
  await eventually(
    "no object of the release is left",
    async () => {
      const left = await leftovers();
      if (left.length > 0) throw new Error(`left: ${left.join(", ")}`);
      return true;
    },
    120_000,
  );
  const crds = await kubectl("get", "crd", "-o", "name");
  expect(crds).toContain(`instancegroupmanagers.${GROUP}`);
  expect(crds).toContain(`resizerequests.${GROUP}`);
}, 240_000);
