// Shared by the Kueue integration tests: the real Kueue and the testbed's node pool controller beside
// the test cluster, Kueue's objects (cluster-scoped ones remembered, to be deleted while Kueue still
// runs: they carry its finalizers), Jobs, and the Workloads and ProvisioningRequests Kueue makes.
import * as k8s from "@kubernetes/client-node";
import { readFileSync } from "node:fs";
import type { ResizeRequest } from "../../../src/api/resize-request.js";
import { startKueue, KEEP_RUNNING_LABEL, QUEUE_NAME_LABEL, type Kueue } from "../../../testbed/kueue.js";
import { startNodePoolController, type NodePoolController } from "../../../testbed/node-pool.js";
import { ensureTools } from "../../../testbed/tools.js";
import { eventually, kubeConfig } from "../../support/kube.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, listRequests } from "../../support/resize.js";

const kc = kubeConfig();
export const custom = kc.makeApiClient(k8s.CustomObjectsApi);
export const batch = kc.makeApiClient(k8s.BatchV1Api);
export const core = kc.makeApiClient(k8s.CoreV1Api);
export const KUEUE = { group: "kueue.x-k8s.io", version: "v1beta2" };
export const PROVISIONING = { group: "autoscaling.x-k8s.io", version: "v1", plural: "provisioningrequests" };

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}
export interface Obj {
  metadata: {
    name: string;
    uid?: string;
    creationTimestamp?: string;
    ownerReferences?: { uid: string; kind: string }[];
  };
  spec?: Record<string, unknown> & { active?: boolean };
  status?: {
    conditions?: Condition[];
    admissionChecks?: { name: string; state: string; message?: string }[];
    provisioningClassDetails?: Record<string, string>;
  };
}

export const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: integration tests run under the jest global setup`);
  return value;
};
export const condition = (o: Obj | undefined, type: string): Condition | undefined =>
  o?.status?.conditions?.find((c) => c.type === type);
export const isTrue = (o: Obj | undefined, type: string): boolean => condition(o, type)?.status === "True";

/** Kueue (after the ProvisioningRequest CRD) and the node pool controller; both stopped by `stop`. */
export async function startKueueStack(): Promise<{
  kueue: Kueue;
  pools: NodePoolController;
  stop(): Promise<void>;
}> {
  const tools = await ensureTools();
  const dir = env("TESTBED_DIR");
  const kubeconfig = env("KUBECONFIG");
  const log = (m: string): void => {
    process.stderr.write(`[kueue] ${m}\n`);
  };
  const kueue = await startKueue({ dir, kubeconfig, tools, log });
  const pools = await startNodePoolController({ dir, kubeconfig, log });
  return {
    kueue,
    pools,
    async stop() {
      await pools.stop();
      await kueue.stop();
    },
  };
}

/** Cluster-scoped Kueue objects, deleted in reverse order of creation by `deleteAll`. */
export class ClusterObjects {
  private readonly made: { plural: string; name: string }[] = [];

  async create(kind: string, plural: string, name: string, spec: object): Promise<void> {
    await custom.createClusterCustomObject({
      ...KUEUE,
      plural,
      body: { apiVersion: `${KUEUE.group}/${KUEUE.version}`, kind, metadata: { name }, spec },
    });
    this.made.push({ plural, name });
  }

  async deleteAll(): Promise<void> {
    for (const { plural, name } of [...this.made].reverse()) {
      await custom.deleteClusterCustomObject({ ...KUEUE, plural, name }).catch(() => undefined);
      await eventually(`${plural}/${name} gone`, async () =>
        (await custom.getClusterCustomObject({ ...KUEUE, plural, name }).catch(() => undefined))
          ? undefined
          : true,
      ).catch((err: unknown) => {
        console.warn(String(err));
      });
    }
  }
}

/** A Job of `pods` pods with `gpus` GPUs and 4 CPUs each, under `queue`; its pods stay Running under kwok. */
export function gpuJob(
  name: string,
  pods: number,
  gpus: number,
  queue: string,
  annotations: Record<string, string> = {},
): k8s.V1Job {
  const requests = { cpu: "4", memory: "16Gi", "nvidia.com/gpu": String(gpus) };
  return {
    metadata: { name, labels: { [QUEUE_NAME_LABEL]: queue }, annotations },
    spec: {
      parallelism: pods,
      completions: pods,
      template: {
        metadata: { labels: { app: name, [KEEP_RUNNING_LABEL]: "true" } },
        spec: {
          restartPolicy: "Never",
          containers: [
            { name: "work", image: "registry.invalid/work:1", resources: { requests, limits: requests } },
          ],
        },
      },
    },
  };
}

export async function workloadOf(namespace: string, jobUid: string): Promise<Obj | undefined> {
  const list = (await custom.listNamespacedCustomObject({ ...KUEUE, namespace, plural: "workloads" })) as {
    items: Obj[];
  };
  return list.items.find((w) => w.metadata.ownerReferences?.some((o) => o.uid === jobUid));
}

/** The ProvisioningRequests Kueue made for a Workload (owned by it). */
export async function provisioningRequestsOf(namespace: string, workloadUid: string): Promise<Obj[]> {
  const list = (await custom.listNamespacedCustomObject({ ...PROVISIONING, namespace })) as { items: Obj[] };
  return list.items.filter((p) => p.metadata.ownerReferences?.some((o) => o.uid === workloadUid));
}

export async function runningPods(
  namespace: string,
  app: string,
  count: number,
): Promise<k8s.V1Pod[] | undefined> {
  const pods = (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items;
  const running = pods.filter(
    (p) => p.status?.phase === "Running" && p.metadata?.deletionTimestamp === undefined,
  );
  return running.length === count ? running : undefined;
}

/** What one instance of a testbed NodePool's group offers (its NodePool's nodes offer the same). */
export interface Shape {
  readonly allocatable: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints?: readonly { key: string; value: string; effect: string }[];
}

/** A testbed NodePool with no nodes yet and a group over it that serves its own namespace's requests. */
export async function createPoolAndGroup(
  namespace: string,
  pool: string,
  shape: Shape,
  maxSize: number,
  more: Readonly<Record<string, unknown>> = {},
): Promise<void> {
  await custom.createNamespacedCustomObject({
    group: "testbed.resize-operator.dev",
    version: "v1",
    plural: "nodepools",
    namespace,
    body: {
      apiVersion: "testbed.resize-operator.dev/v1",
      kind: "NodePool",
      metadata: { name: pool },
      spec: { replicas: 0, ...shape },
    },
  });
  await createGroup(namespace, pool, {
    zone: "local-a",
    targetRef: { apiVersion: "testbed.resize-operator.dev/v1", kind: "NodePool", name: pool },
    maxSize,
    instanceShape: shape,
    provisioningRequests: { namespaces: "Same" },
    ...more,
  });
}

/**
 * Kueue's side of one queue named `name`: a ResourceFlavor, a ProvisioningRequestConfig (`config`, with
 * our class), an AdmissionCheck using it, a ClusterQueue with `quota` of that flavor, and a LocalQueue of
 * the same name in `namespace`.
 */
export async function createKueueQueue(
  cluster: ClusterObjects,
  namespace: string,
  name: string,
  o: {
    readonly flavor: object;
    readonly config: object;
    readonly quota: Readonly<Record<string, string>>;
  },
): Promise<void> {
  await cluster.create("ResourceFlavor", "resourceflavors", name, o.flavor);
  await admissionCheck(cluster, name, o.config);
  await queueOver(cluster, name, name, namespace, name, o.quota);
}

/** Resolves once the operator says it serves ProvisioningRequests (it found their CRD at start-up). */
export const untilServingProvisioningRequests = (operator: OperatorProcess): Promise<true> =>
  eventually("the operator to serve ProvisioningRequests", () =>
    Promise.resolve(
      readFileSync(operator.log, "utf8").includes('"msg":"serving ProvisioningRequests"') ? true : undefined,
    ),
  );

/**
 * Removes a test namespace and waits until it is gone: its Jobs and Workloads carry Kueue's finalizers,
 * so it goes while Kueue still runs, before the cluster-scoped Kueue objects and Kueue itself.
 */
export async function removeNamespace(ns: { name: string; remove(): Promise<void> }): Promise<void> {
  await ns.remove();
  await eventually(
    `namespace ${ns.name} gone`,
    async () => ((await core.readNamespace({ name: ns.name }).catch(() => undefined)) ? undefined : true),
    240_000,
  ).catch((err: unknown) => {
    console.warn(String(err));
  });
}

/** Creates a Job in `namespace`; its uid and when it was created (ms), for timing it. */
export async function createJob(
  namespace: string,
  job: k8s.V1Job,
): Promise<{ uid: string; created: number }> {
  const created = Date.now();
  const made = await batch.createNamespacedJob({ namespace, body: job });
  return { uid: made.metadata?.uid ?? "", created };
}

export const untilWorkload = (namespace: string, jobUid: string, what: string): Promise<Obj> =>
  eventually(`the Workload of ${what}`, () => workloadOf(namespace, jobUid));

/** The first ProvisioningRequest Kueue makes for a Workload. */
export async function untilProvisioningRequest(namespace: string, wl: Obj, what: string): Promise<Obj> {
  const [pr] = await eventually(`the ProvisioningRequest of ${what}`, async () => {
    const list = await provisioningRequestsOf(namespace, wl.metadata.uid ?? "");
    return list.length > 0 ? list : undefined;
  });
  if (!pr) throw new Error("unreachable");
  return pr;
}

/** The object as it is now (a ProvisioningRequest or a Workload of `namespace`). */
const reread =
  (where: { group: string; version: string; plural: string }) =>
  async (namespace: string, o: Obj): Promise<Obj> =>
    (await custom.getNamespacedCustomObject({ ...where, namespace, name: o.metadata.name })) as Obj;
export const readPr = reread(PROVISIONING);
export const readWorkload = reread({ ...KUEUE, plural: "workloads" });

/** The ResizeRequest the operator made for a ProvisioningRequest of `namespace`. */
export function untilResizeRequestFor(namespace: string, pr: Obj): Promise<ResizeRequest> {
  return eventually(`the ResizeRequest of ${pr.metadata.name}`, async () =>
    (await listRequests(namespace)).find(
      (rr) =>
        rr.metadata.annotations?.["compute.resize-operator.dev/provisioning-request"] ===
        `${namespace}/${pr.metadata.name}`,
    ),
  );
}

/**
 * Undoes a Kueue test file's set-up. Kueue's objects carry its finalizers: the namespace (Jobs,
 * Workloads) and the cluster-scoped objects go while Kueue still runs; the pools' nodes go while their
 * controller still runs.
 */
export async function tearDown(o: {
  ns: { name: string; remove(): Promise<void> } | undefined;
  cluster: ClusterObjects;
  operator: OperatorProcess | undefined;
  stack: { stop(): Promise<void> } | undefined;
}): Promise<void> {
  if (o.ns) await removeNamespace(o.ns);
  await o.cluster.deleteAll();
  if (o.operator) await stopAll([o.operator]);
  await o.stack?.stop();
}

/** The operator, scoped to `namespace`, once it serves ProvisioningRequests. */
export async function startProvisioner(
  namespace: string,
  args: readonly string[] = [],
): Promise<OperatorProcess> {
  const operator = startOperator({ namespace, name: "provisioner", args });
  await untilServingProvisioningRequests(operator);
  return operator;
}

/** A ResourceFlavor of the GPU nodes whose `example.com/pool` label is `pool` (tolerating their taint). */
export const gpuFlavor = (pool: string): object => ({
  nodeLabels: { "example.com/pool": pool },
  tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
});

/** The provisioning class the operator serves. */
export const OUR_CLASS = "queued-provisioning.compute.resize-operator.dev";

/**
 * A ProvisioningRequestConfig of our class for `nvidia.com/gpu` (no retries: a failed request fails the
 * Workload's check at once) and the AdmissionCheck named `name` that uses it.
 */
export const ourAdmissionCheck = (cluster: ClusterObjects, name: string): Promise<void> =>
  admissionCheck(cluster, name, {
    managedResources: ["nvidia.com/gpu"],
    retryStrategy: { backoffLimitCount: 0, backoffBaseSeconds: 1, backoffMaxSeconds: 1 },
  });

/** A ProvisioningRequestConfig `name` of our class (`config` its other fields) and the AdmissionCheck using it. */
export async function admissionCheck(cluster: ClusterObjects, name: string, config: object): Promise<void> {
  await cluster.create("ProvisioningRequestConfig", "provisioningrequestconfigs", name, {
    provisioningClassName: OUR_CLASS,
    ...config,
  });
  await cluster.create("AdmissionCheck", "admissionchecks", name, {
    controllerName: "kueue.x-k8s.io/provisioning-request",
    parameters: { apiGroup: KUEUE.group, kind: "ProvisioningRequestConfig", name },
  });
}

/**
 * A ClusterQueue named after `flavor` with ample quota of it and the admission check `check`, and the
 * LocalQueue `localQueue` in `namespace` that feeds it.
 */
export async function queueOver(
  cluster: ClusterObjects,
  flavor: string,
  check: string,
  namespace: string,
  localQueue: string,
  quota: Readonly<Record<string, string>> = { cpu: "1024", memory: "8Ti", "nvidia.com/gpu": "256" },
): Promise<void> {
  await cluster.create("ClusterQueue", "clusterqueues", flavor, {
    namespaceSelector: {},
    resourceGroups: [
      {
        coveredResources: Object.keys(quota),
        flavors: [
          { name: flavor, resources: Object.entries(quota).map(([n, q]) => ({ name: n, nominalQuota: q })) },
        ],
      },
    ],
    admissionChecksStrategy: { admissionChecks: [{ name: check }] },
  });
  await custom.createNamespacedCustomObject({
    ...KUEUE,
    plural: "localqueues",
    namespace,
    body: {
      apiVersion: `${KUEUE.group}/${KUEUE.version}`,
      kind: "LocalQueue",
      metadata: { name: localQueue },
      spec: { clusterQueue: flavor },
    },
  });
}
