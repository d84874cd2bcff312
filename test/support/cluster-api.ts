// What the Cluster API test files share: the real Cluster API with the testbed's kwok providers
// (testbed/cluster-api.ts) started for the run's testbed, a workload cluster over the testbed's own API
// server, a MachineDeployment's Machines (label-selected), Nodes and /scale, and waits on them.
import * as k8s from "@kubernetes/client-node";
import {
  createWorkloadCluster as createCluster,
  removeClusterApiCrds,
  startClusterApi,
  type ClusterApi,
} from "../../testbed/cluster-api.js";
import {
  CAPI,
  DELETE_MACHINE_ANNOTATION,
  DEPLOYMENT_NAME_LABEL,
  machineDeployment,
} from "../../testbed/cluster-api-manifests.js";
import { apply } from "../../testbed/kubectl.js";
import { ensureTools, type Toolchain } from "../../testbed/tools.js";
import { testbedEnv } from "./karpenter.js";
import { eventually, kubeConfig } from "./kube.js";

export { DELETE_MACHINE_ANNOTATION, DEPLOYMENT_NAME_LABEL, machineDeployment };

const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
const api = (namespace: string, plural: string) => ({ ...CAPI, namespace, plural });
const merge = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The fields of a v1beta2 Machine the tests read. */
export interface Machine {
  readonly metadata: {
    readonly name: string;
    readonly deletionTimestamp?: string;
    readonly annotations?: Record<string, string>;
  };
  readonly spec: { readonly providerID?: string };
  readonly status?: { readonly nodeRef?: { name?: string }; readonly conditions?: Condition[] };
}

export interface MachineDeploymentStatus {
  readonly replicas?: number;
  readonly readyReplicas?: number;
  readonly availableReplicas?: number;
  readonly selector?: string;
  readonly conditions?: Condition[];
}

let tools: Toolchain | undefined;
let running: ClusterApi | undefined;

/** Cluster API and the kwok providers for the run's testbed (started once per file; idempotent). */
export async function startClusterApiForTests(): Promise<{ capi: ClusterApi; tools: Toolchain }> {
  tools ??= await ensureTools();
  running = await startClusterApi({
    dir: testbedEnv("TESTBED_DIR"),
    kubeconfig: testbedEnv("KUBECONFIG"),
    tools,
    log: (m) => process.stderr.write(`[cluster-api] ${m}\n`),
  });
  return { capi: running, tools };
}

/**
 * Deletes every Cluster (Cluster API removes their Machines, the providers their Nodes), stops Cluster
 * API and the providers and removes the CRDs, so the file leaves the testbed as it found it.
 */
export async function stopClusterApiForTests(): Promise<void> {
  if (!tools) return;
  await running?.stop();
  running = undefined;
  await removeClusterApiCrds(testbedEnv("TESTBED_DIR"), testbedEnv("KUBECONFIG"), tools);
}

function toolchain(): Toolchain {
  if (!tools) throw new Error("call startClusterApiForTests first");
  return tools;
}

/** A workload cluster `name` over the testbed's API server, initialised and probed by Cluster API. */
export async function createWorkloadCluster(namespace: string, name: string): Promise<void> {
  await createCluster(toolchain(), testbedEnv("KUBECONFIG"), namespace, name);
}

/** Creates (server-side applies) `manifest` (e.g. machineDeployment(...)). */
export async function applyManifest(manifest: object): Promise<void> {
  await apply(toolchain(), testbedEnv("KUBECONFIG"), "-", JSON.stringify(manifest));
}

/** The Machines of MachineDeployment `md` (label cluster.x-k8s.io/deployment-name=<md>), by name. */
export async function machinesOf(namespace: string, md: string): Promise<Machine[]> {
  const list = (await custom.listNamespacedCustomObject({
    ...api(namespace, "machines"),
    labelSelector: `${DEPLOYMENT_NAME_LABEL}=${md}`,
  })) as { items: Machine[] };
  return list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

export const conditionOf = (
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined => conditions?.find((c) => c.type === type);

/** Ready=True (Cluster API's summary of bootstrap, infrastructure and Node health) and a nodeRef. */
export const isReadyMachine = (m: Machine): boolean =>
  !m.metadata.deletionTimestamp &&
  conditionOf(m.status?.conditions, "Ready")?.status === "True" &&
  Boolean(m.status?.nodeRef?.name);

export async function getMachineDeploymentStatus(
  namespace: string,
  md: string,
): Promise<MachineDeploymentStatus> {
  const obj = (await custom.getNamespacedCustomObject({
    ...api(namespace, "machinedeployments"),
    name: md,
  })) as {
    status?: MachineDeploymentStatus;
  };
  return obj.status ?? {};
}

/** The MachineDeployment's Scale (autoscaling/v1), as a group's targetRef reads it. */
export async function getScale(namespace: string, md: string): Promise<k8s.V1Scale> {
  return (await custom.getNamespacedCustomObjectScale({
    ...api(namespace, "machinedeployments"),
    name: md,
  })) as k8s.V1Scale;
}

/** Sets spec.replicas through /scale, as the operator does. */
export async function setScale(namespace: string, md: string, replicas: number): Promise<void> {
  await custom.patchNamespacedCustomObjectScale(
    { ...api(namespace, "machinedeployments"), name: md, body: { spec: { replicas } } },
    merge,
  );
}

/** Marks a Machine to be the first its MachineSet deletes on the next scale-down. */
export async function markForDeletion(namespace: string, machine: string): Promise<void> {
  await custom.patchNamespacedCustomObject(
    {
      ...api(namespace, "machines"),
      name: machine,
      body: { metadata: { annotations: { [DELETE_MACHINE_ANNOTATION]: "yes" } } },
    },
    merge,
  );
}

/** Names of existing Nodes among `names`. */
export async function existingNodes(names: readonly string[]): Promise<string[]> {
  const all = (await core.listNode()).items;
  return all.map((n) => n.metadata?.name ?? "").filter((n) => names.includes(n));
}

/**
 * Waits until `md` has exactly `count` Machines, every one Ready with a nodeRef, and its status says
 * `count` ready replicas; resolves with the Machines.
 */
export async function untilReadyMachines(
  namespace: string,
  md: string,
  count: number,
  timeoutMs = 120_000,
): Promise<Machine[]> {
  return eventually(
    `${count} Ready Machines of MachineDeployment ${namespace}/${md}`,
    async () => {
      const machines = await machinesOf(namespace, md);
      const status = await getMachineDeploymentStatus(namespace, md);
      const ready = machines.length === count && machines.every(isReadyMachine);
      if (ready && (status.readyReplicas ?? 0) === count && (status.replicas ?? 0) === count) return machines;
      const states = machines.map(
        (m) => `${m.metadata.name}: ${conditionOf(m.status?.conditions, "Ready")?.message ?? "?"}`,
      );
      throw new Error(
        `${machines.length} Machines, readyReplicas ${status.readyReplicas}; ${states.join("; ")}`,
      );
    },
    timeoutMs,
  );
}
