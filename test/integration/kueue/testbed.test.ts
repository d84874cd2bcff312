// The real Kueue (v0.17.0, testbed/kueue.ts) beside the test cluster: a Job labelled with a queue name is
// suspended by Kueue's webhook, admitted through a ClusterQueue's quota and then runs (its pods held
// Running by kwok until the test releases them); an unlabelled Job is never touched; and a ClusterQueue
// with a ProvisioningRequest admission check admits only once the ProvisioningRequest Kueue created is
// Provisioned (the test plays the autoscaler). Kueue objects carry Kueue's finalizers, so everything is
// deleted while Kueue still runs, and Kueue is stopped last.
import * as k8s from "@kubernetes/client-node";
import { readClusterState } from "../../../testbed/cluster.js";
import { KEEP_RUNNING_LABEL, QUEUE_NAME_LABEL, startKueue, type Kueue } from "../../../testbed/kueue.js";
import { ensureTools, type Toolchain } from "../../../testbed/tools.js";
import { createTestNamespace, eventually, kubeConfig } from "../../support/kube.js";
import { report } from "../../support/reliability.js";

const kc = kubeConfig();
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const batch = kc.makeApiClient(k8s.BatchV1Api);
const core = kc.makeApiClient(k8s.CoreV1Api);
const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
const KUEUE = { group: "kueue.x-k8s.io", version: "v1beta2" };
const PROVISIONING = { group: "autoscaling.x-k8s.io", version: "v1", plural: "provisioningrequests" };
const PROVISIONING_CLASS = "queued-provisioning.compute.resize-operator.dev";

interface Condition {
  type: string;
  status: string;
}
interface KueueObject {
  metadata: { name: string; ownerReferences?: { uid: string }[] };
  spec?: Record<string, unknown>;
  status?: {
    conditions?: Condition[];
    admission?: { clusterQueue?: string };
    admissionChecks?: { name: string; state: string }[];
  };
}
interface ProvisioningRequest extends KueueObject {
  spec: { provisioningClassName: string; podSets: { podTemplateRef: { name: string }; count: number }[] };
}

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: integration tests must run under the jest global setup`);
  return value;
};
const isTrue = (o: KueueObject | undefined, type: string): boolean =>
  o?.status?.conditions?.some((c) => c.type === type && c.status === "True") === true;

let tools: Toolchain;
let kueue: Kueue | undefined;
let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let nsCreated = false;
/** Cluster-scoped Kueue objects this file made, deleted (in reverse) before Kueue stops. */
const made: { plural: string; name: string }[] = [];

async function createClusterScoped(kind: string, plural: string, name: string, spec: object): Promise<void> {
  await custom.createClusterCustomObject({
    ...KUEUE,
    plural,
    body: { apiVersion: `${KUEUE.group}/${KUEUE.version}`, kind, metadata: { name }, spec },
  });
  made.push({ plural, name });
}

async function createLocalQueue(name: string, clusterQueue: string): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...KUEUE,
    namespace: ns.name,
    plural: "localqueues",
    body: {
      apiVersion: `${KUEUE.group}/${KUEUE.version}`,
      kind: "LocalQueue",
      metadata: { name },
      spec: { clusterQueue },
    },
  });
}

/** A ClusterQueue over the nodes' resources (4 kwok nodes × 8 GPUs; 32 CPUs and 256Gi each). */
async function createClusterQueue(
  name: string,
  flavor: string,
  admissionChecks: string[] = [],
): Promise<void> {
  const quota = { cpu: "64", memory: "512Gi", "nvidia.com/gpu": "16" };
  await createClusterScoped("ClusterQueue", "clusterqueues", name, {
    namespaceSelector: {},
    resourceGroups: [
      {
        coveredResources: Object.keys(quota),
        flavors: [
          {
            name: flavor,
            resources: Object.entries(quota).map(([resource, nominalQuota]) => ({
              name: resource,
              nominalQuota,
            })),
          },
        ],
      },
    ],
    ...(admissionChecks.length > 0
      ? { admissionChecksStrategy: { admissionChecks: admissionChecks.map((n) => ({ name: n })) } }
      : {}),
  });
  await eventually(`ClusterQueue ${name} Active`, async () =>
    isTrue(
      (await custom.getClusterCustomObject({ ...KUEUE, plural: "clusterqueues", name })) as KueueObject,
      "Active",
    )
      ? true
      : undefined,
  );
}

/** A Job of `pods` pods (1 CPU, 1Gi and `gpus` GPUs each), under `queue` when given. */
function job(name: string, pods: number, gpus: number, queue?: string, keepRunning = true): k8s.V1Job {
  const resources = { cpu: "1", memory: "1Gi", "nvidia.com/gpu": String(gpus) };
  return {
    metadata: { name, ...(queue ? { labels: { [QUEUE_NAME_LABEL]: queue } } : {}) },
    spec: {
      parallelism: pods,
      completions: pods,
      template: {
        metadata: { labels: { app: name, ...(keepRunning ? { [KEEP_RUNNING_LABEL]: "true" } : {}) } },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "work",
              image: "registry.invalid/work:1",
              resources: { requests: resources, limits: resources },
            },
          ],
        },
      },
    },
  };
}

async function workloadOf(jobUid: string): Promise<KueueObject | undefined> {
  const list = (await custom.listNamespacedCustomObject({
    ...KUEUE,
    namespace: ns.name,
    plural: "workloads",
  })) as {
    items: KueueObject[];
  };
  return list.items.find((w) => w.metadata.ownerReferences?.some((o) => o.uid === jobUid));
}

async function runningPods(app: string, count: number): Promise<k8s.V1Pod[] | undefined> {
  const pods = (await core.listNamespacedPod({ namespace: ns.name, labelSelector: `app=${app}` })).items;
  const running = pods.filter((p) => p.status?.phase === "Running");
  return running.length === count ? running : undefined;
}

async function untilUnsuspendedAndRunning(name: string, pods: number): Promise<k8s.V1Pod[]> {
  await eventually(`Job ${name} unsuspended`, async () =>
    (await batch.readNamespacedJob({ name, namespace: ns.name })).spec?.suspend === false ? true : undefined,
  );
  return eventually(`${pods} Running pods of Job ${name}`, () => runningPods(name, pods), 90_000);
}

beforeAll(async () => {
  tools = await ensureTools();
  const started = Date.now();
  kueue = await startKueue({
    dir: env("TESTBED_DIR"),
    kubeconfig: env("KUBECONFIG"),
    tools,
    log: (m) => process.stderr.write(`[kueue] ${m}\n`),
  });
  report("kueue testbed", { startSeconds: ((Date.now() - started) / 1000).toFixed(1) });
  ns = await createTestNamespace("kueue");
  nsCreated = true;
}, 420_000);

afterAll(async () => {
  // Workloads, ClusterQueues and ResourceFlavors carry Kueue's finalizers: delete them while it runs.
  const warn = (err: unknown): void => {
    console.warn(String(err));
  };
  if (nsCreated) {
    await ns.remove();
    await eventually(
      `namespace ${ns.name} gone`,
      async () => ((await core.readNamespace({ name: ns.name }).catch(() => undefined)) ? undefined : true),
      180_000,
    ).catch(warn);
  }
  for (const { plural, name } of [...made].reverse()) {
    await custom.deleteClusterCustomObject({ ...KUEUE, plural, name }).catch(() => undefined);
    await eventually(`${plural}/${name} gone`, async () =>
      (await custom.getClusterCustomObject({ ...KUEUE, plural, name }).catch(() => undefined))
        ? undefined
        : true,
    ).catch(warn);
  }
  await kueue?.stop();
}, 420_000);

test("Kueue is recorded with the cluster's processes; starting it again finds the running one", async () => {
  const dir = env("TESTBED_DIR");
  const recorded = readClusterState(dir)?.processes.find((p) => p.name === "kueue");
  expect(recorded?.pid).toBe(kueue?.process.pid);
  expect(recorded?.binary).toBe(tools.paths.kueue);
  const again = await startKueue({ dir, kubeconfig: env("KUBECONFIG"), tools });
  expect(again.process.pid).toBe(kueue?.process.pid);
});

test("a labelled Job is suspended, admitted through its ClusterQueue's quota and runs; an unlabelled one is untouched", async () => {
  const flavor = `${ns.name}-default`;
  const clusterQueue = `${ns.name}-main`;
  await createClusterScoped("ResourceFlavor", "resourceflavors", flavor, {});
  await createClusterQueue(clusterQueue, flavor);
  await createLocalQueue("main", clusterQueue);

  const queued = await batch.createNamespacedJob({ namespace: ns.name, body: job("queued", 2, 1, "main") });
  expect(queued.spec?.suspend).toBe(true); // Kueue's mutating webhook
  const workload = await eventually("the Job's Workload admitted", async () => {
    const w = await workloadOf(queued.metadata?.uid ?? "");
    return isTrue(w, "Admitted") ? w : undefined;
  });
  expect(isTrue(workload, "QuotaReserved")).toBe(true);
  expect(workload.status?.admission?.clusterQueue).toBe(clusterQueue);
  const pods = await untilUnsuspendedAndRunning("queued", 2);
  // kwok leaves pods labelled keep-running Running…
  await new Promise((r) => setTimeout(r, 3000));
  expect(await runningPods("queued", 2)).toHaveLength(2);
  // …until the label goes: then it completes them, and Kueue sees the Job finish.
  for (const pod of pods) {
    await core.patchNamespacedPod(
      {
        name: pod.metadata?.name ?? "",
        namespace: ns.name,
        body: { metadata: { labels: { [KEEP_RUNNING_LABEL]: null } } },
      },
      mergePatch,
    );
  }
  await eventually("the Workload Finished", async () =>
    isTrue(await workloadOf(queued.metadata?.uid ?? ""), "Finished") ? true : undefined,
  );

  const plain = await batch.createNamespacedJob({
    namespace: ns.name,
    body: job("plain", 1, 1, undefined, false),
  });
  expect(plain.spec?.suspend).toBe(false);
  await eventually("the unlabelled Job completed", async () =>
    ((await batch.readNamespacedJob({ name: "plain", namespace: ns.name })).status?.succeeded ?? 0) >= 1
      ? true
      : undefined,
  );
  expect(await workloadOf(plain.metadata?.uid ?? "")).toBeUndefined();
}, 240_000);

test("a ProvisioningRequest admission check: Kueue asks for capacity and admits once it is Provisioned", async () => {
  const flavor = `${ns.name}-provisioned`;
  const config = `${ns.name}-queued-provisioning`;
  const check = `${ns.name}-capacity`;
  const clusterQueue = `${ns.name}-provisioned`;
  await createClusterScoped("ResourceFlavor", "resourceflavors", flavor, {});
  await createClusterScoped("ProvisioningRequestConfig", "provisioningrequestconfigs", config, {
    provisioningClassName: PROVISIONING_CLASS,
    managedResources: ["nvidia.com/gpu"],
  });
  await createClusterScoped("AdmissionCheck", "admissionchecks", check, {
    controllerName: "kueue.x-k8s.io/provisioning-request",
    parameters: { apiGroup: "kueue.x-k8s.io", kind: "ProvisioningRequestConfig", name: config },
  });
  await eventually(`AdmissionCheck ${check} Active`, async () =>
    isTrue(
      (await custom.getClusterCustomObject({
        ...KUEUE,
        plural: "admissionchecks",
        name: check,
      })) as KueueObject,
      "Active",
    )
      ? true
      : undefined,
  );
  await createClusterQueue(clusterQueue, flavor, [check]);
  await createLocalQueue("provisioned", clusterQueue);

  const created = await batch.createNamespacedJob({
    namespace: ns.name,
    body: job("trainer", 2, 4, "provisioned"),
  });
  expect(created.spec?.suspend).toBe(true);
  const uid = created.metadata?.uid ?? "";
  const request = await eventually("Kueue's ProvisioningRequest", async () => {
    const list = (await custom.listNamespacedCustomObject({ ...PROVISIONING, namespace: ns.name })) as {
      items: ProvisioningRequest[];
    };
    return list.items[0];
  });
  expect(request.spec.provisioningClassName).toBe(PROVISIONING_CLASS);
  expect(request.spec.podSets).toHaveLength(1);
  expect(request.spec.podSets[0]?.count).toBe(2);
  const template = request.spec.podSets[0]?.podTemplateRef.name ?? "";
  expect(template).toMatch(/^ppt-/);
  const podTemplate = await core.readNamespacedPodTemplate({ name: template, namespace: ns.name });
  expect(podTemplate.template?.spec?.containers[0]?.resources?.requests?.["nvidia.com/gpu"]).toBe("4");
  // Quota is reserved, but the check holds admission until the capacity is there.
  const waiting = await workloadOf(uid);
  expect(isTrue(waiting, "QuotaReserved")).toBe(true);
  expect(isTrue(waiting, "Admitted")).toBe(false);
  expect((await batch.readNamespacedJob({ name: "trainer", namespace: ns.name })).spec?.suspend).toBe(true);

  // The test plays the autoscaler: the capacity is provisioned.
  await custom.patchNamespacedCustomObjectStatus(
    {
      ...PROVISIONING,
      namespace: ns.name,
      name: request.metadata.name,
      body: {
        status: {
          conditions: [
            {
              type: "Provisioned",
              status: "True",
              reason: "Provisioned",
              message: "capacity is available (set by the test)",
              lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
            },
          ],
        },
      },
    },
    mergePatch,
  );
  const admitted = await eventually("the Workload admitted", async () => {
    const w = await workloadOf(uid);
    return isTrue(w, "Admitted") ? w : undefined;
  });
  expect(admitted.status?.admissionChecks).toEqual([
    expect.objectContaining({ name: check, state: "Ready" }),
  ]);
  await untilUnsuspendedAndRunning("trainer", 2);
}, 240_000);
