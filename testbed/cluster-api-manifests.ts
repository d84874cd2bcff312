// TEST INFRASTRUCTURE. What testbed/cluster-api.ts gives the real Cluster API core manager and what a test
// applies to it: the manager's flags, its admission webhooks rewritten to reach the local process, the
// CRDs of the testbed's kwok-backed providers (KwokCluster, KwokMachine, KwokMachineTemplate: the
// "cloud"; KwokControlPlane: the testbed's own control plane, managed outside Cluster API as a cloud's
// managed Kubernetes is) and the manifests of a workload cluster and its MachineDeployments. Pure, so
// unit tests can check them without a cluster.
import type { V1Node } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { NODE_ALLOCATABLE, NODE_INSTANCE_TYPE, ZONE } from "./cluster.js";

export const CAPI = { group: "cluster.x-k8s.io", version: "v1beta2" } as const;
/** The testbed infrastructure provider's API (KwokCluster, KwokMachine, KwokMachineTemplate). */
export const INFRA = { group: "infrastructure.testbed.resize-operator.dev", version: "v1alpha1" } as const;
/** The testbed control-plane provider's API (KwokControlPlane). */
export const CONTROL_PLANE = {
  group: "controlplane.testbed.resize-operator.dev",
  version: "v1alpha1",
} as const;

/** On every Machine (and MachineSet) of a MachineDeployment, valued with its name. */
export const DEPLOYMENT_NAME_LABEL = "cluster.x-k8s.io/deployment-name";
export const CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name";
/** A Machine carrying it (any value) is the first a MachineSet deletes when it scales down. */
export const DELETE_MACHINE_ANNOTATION = "cluster.x-k8s.io/delete-machine";
/**
 * Put on each Machine of a MachineDeployment by machineDeployment() and copied to its Node, valued with
 * the MachineDeployment's name: Cluster API itself keeps `node.cluster.x-k8s.io/*` labels of a Machine
 * in sync on its Node; the provider sets them at creation, so a nodeSelector matches at once.
 */
export const NODE_DEPLOYMENT_LABEL = "node.cluster.x-k8s.io/machine-deployment";
/** On every Node the provider made (value "true"), so it finds its own and no other. */
export const PROVIDER_NODE_LABEL = `${INFRA.group}/kwok-machine`;
/** On each such Node: `<namespace>/<name>` of the KwokMachine it stands for. */
export const PROVIDER_NODE_OWNER = `${INFRA.group}/owner`;
/** Held by the provider on each KwokMachine until its Node is deleted. */
export const KWOK_MACHINE_FINALIZER = `${INFRA.group}/node`;
export const PROVIDER_ID_PREFIX = "kwok://";
/** The providers' process (kwok-machines.ts) logs this line once its first pass succeeded. */
export const PROVIDER_READY = "ready: serving KwokClusters, KwokControlPlanes and KwokMachines";

export interface ClusterApiPorts {
  readonly webhook: number;
  readonly health: number;
  readonly diagnostics: number;
}

/**
 * The manager's flags. Why each one:
 * - leader election off: one replica, no Lease to wait for when it is restarted;
 * - health, diagnostics (metrics, plain HTTP on loopback) and webhook on free ports, so any number of
 *   clusters run side by side; the webhook serves `certName`/`keyName` of `certDir`;
 * - `--v=1`: each reconcile step Cluster API logs at info, without its level-2 chatter;
 * - default feature gates: MachineSet preflight checks only run against a control plane that reports a
 *   version, which KwokControlPlane does not; ClusterTopology (ClusterClass) stays off.
 */
export function clusterApiArgs(
  kubeconfig: string,
  ports: ClusterApiPorts,
  cert: { dir: string; certName: string; keyName: string },
): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    "--leader-elect=false",
    `--health-addr=127.0.0.1:${ports.health}`,
    `--diagnostics-address=127.0.0.1:${ports.diagnostics}`,
    "--insecure-diagnostics=true",
    `--webhook-port=${ports.webhook}`,
    `--webhook-cert-dir=${cert.dir}`,
    `--webhook-cert-name=${cert.certName}`,
    `--webhook-key-name=${cert.keyName}`,
    "--v=1",
  ];
}

/** Names of the webhook configurations the testbed registers (and removes when the manager stops). */
export const WEBHOOK_CONFIGURATIONS = {
  mutating: "capi-mutating-webhook-configuration",
  validating: "capi-validating-webhook-configuration",
} as const;

interface Webhook {
  name: string;
  clientConfig: { service?: { path?: string }; url?: string; caBundle?: string };
  rules?: { apiGroups?: string[] }[];
  [key: string]: unknown;
}
interface WebhookConfiguration {
  kind: "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration";
  metadata: { name: string };
  webhooks: Webhook[];
}

/**
 * Cluster API's webhook configurations for the testbed: the webhooks of the cluster.x-k8s.io objects
 * only (Cluster, Machine, MachineSet, MachineDeployment, MachineHealthCheck, …: the defaulting that
 * fills in a MachineDeployment's selector and labels, and the validation), each calling
 * `https://127.0.0.1:<port><path>` with `caBundle` instead of a Service. The addons, IPAM and runtime
 * groups' webhooks are dropped: nothing in the testbed uses them. They only ever see Cluster API's own
 * objects, so they need no selector; they fail closed, and stopClusterApi removes them.
 */
export function scopedWebhooks(manifests: string, port: number, caBundle: string): string {
  const configs = parseAllDocuments(manifests)
    .map((d) => d.toJS() as unknown)
    .filter((c): c is WebhookConfiguration => {
      const kind = (c as { kind?: unknown } | null)?.kind;
      return typeof kind === "string" && kind.endsWith("WebhookConfiguration");
    });
  const core = (w: Webhook): boolean =>
    (w.rules ?? []).length > 0 && (w.rules ?? []).every((r) => r.apiGroups?.every((g) => g === CAPI.group));
  const out = configs.map((config) => {
    const webhooks = config.webhooks.filter(core).map((w): Webhook => {
      const urlPath = w.clientConfig.service?.path;
      if (!urlPath) throw new Error(`Cluster API webhook ${w.name} has no service path`);
      return { ...w, clientConfig: { url: `https://127.0.0.1:${port}${urlPath}`, caBundle } };
    });
    if (!webhooks.some((w) => w.name.includes("machinedeployment")))
      throw new Error(
        `Cluster API's ${config.kind} has no MachineDeployment webhook: has the manifest changed?`,
      );
    const mutating = config.kind === "MutatingWebhookConfiguration";
    const name = mutating ? WEBHOOK_CONFIGURATIONS.mutating : WEBHOOK_CONFIGURATIONS.validating;
    return { ...config, metadata: { name }, webhooks };
  });
  if (out.length !== 2)
    throw new Error(`expected Cluster API's two webhook configurations, found ${out.length}`);
  return out.map((c) => JSON.stringify(c)).join("\n---\n");
}

const map = { type: "object", additionalProperties: { type: "string" } };
/** What a KwokMachine (and a KwokMachineTemplate's spec.template.spec) declares about its Node. */
const machineSpecSchema = {
  type: "object",
  properties: {
    providerID: { type: "string", description: "kwok://<node name>, set by the provider." },
    allocatable: { ...map, description: "The Node's allocatable and capacity (default: the gpu-8x shape)." },
    labels: { ...map, description: "Labels of the Node, beside the provider's defaults." },
    taints: {
      type: "array",
      "x-kubernetes-list-type": "atomic",
      items: {
        type: "object",
        required: ["key", "effect"],
        properties: { key: { type: "string" }, value: { type: "string" }, effect: { type: "string" } },
      },
    },
  },
};
const openObject = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

function crd(api: { group: string; version: string }, kind: string, spec: object, status: boolean) {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${plural}.${api.group}`,
      // The contract label: Cluster API reads which of the provider's versions implement its v1beta2
      // contract from here (and finds no object of a CRD without it).
      labels: { [`${CAPI.group}/${CAPI.version}`]: api.version },
    },
    spec: {
      group: api.group,
      scope: "Namespaced",
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: api.version,
          served: true,
          storage: true,
          ...(status && { subresources: { status: {} } }),
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: `Testbed only (resize-operator): ${kind} of the kwok-backed Cluster API providers.`,
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec,
                ...(status && { status: openObject }),
              },
            },
          },
        },
      ],
    },
  };
}

/** The providers' CRDs: status left open, as Cluster API reads it by contract paths, not by schema. */
export function providerCrds(): object[] {
  const endpoint = {
    type: "object",
    properties: { host: { type: "string" }, port: { type: "integer", format: "int32" } },
  };
  const template = {
    type: "object",
    required: ["template"],
    properties: {
      template: {
        type: "object",
        required: ["spec"],
        properties: { metadata: openObject, spec: machineSpecSchema },
      },
    },
  };
  return [
    crd(INFRA, "KwokCluster", { type: "object", properties: { controlPlaneEndpoint: endpoint } }, true),
    crd(INFRA, "KwokMachine", machineSpecSchema, true),
    crd(INFRA, "KwokMachineTemplate", template, false),
    crd(CONTROL_PLANE, "KwokControlPlane", openObject, true),
  ];
}

export interface KwokMachineSpec {
  readonly allocatable?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly { key: string; value?: string; effect: string }[];
}

/** A KwokMachineTemplate: the shape of the Nodes of the MachineDeployments naming it. */
export function kwokMachineTemplate(namespace: string, name: string, spec: KwokMachineSpec = {}): object {
  return {
    apiVersion: `${INFRA.group}/${INFRA.version}`,
    kind: "KwokMachineTemplate",
    metadata: { name, namespace },
    spec: { template: { spec } },
  };
}

/** The Secret of bootstrap data every Machine names (no bootstrap provider runs; kwok boots nothing). */
export const bootstrapSecretName = (cluster: string): string => `${cluster}-bootstrap`;

/**
 * A workload cluster that is the testbed's own control plane: its `<name>-kubeconfig` Secret (key
 * `value`, labelled with the cluster's name as Cluster API's Secret cache requires) holds `kubeconfig`,
 * an admin kubeconfig of the testbed; the KwokCluster carries the API server's endpoint; the
 * KwokControlPlane stands for a control plane managed outside Cluster API; a KwokMachineTemplate named
 * after the cluster is the default shape of its Machines; and the bootstrap data Secret.
 */
export function workloadCluster(namespace: string, name: string, kubeconfig: string, server: URL): object[] {
  const labels = { [CLUSTER_NAME_LABEL]: name };
  const secret = (secretName: string, data: Record<string, string>, type: string) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: secretName, namespace, labels },
    type,
    stringData: data,
  });
  const ref = (api: { group: string }, kind: string) => ({ apiGroup: api.group, kind, name });
  return [
    secret(`${name}-kubeconfig`, { value: kubeconfig }, "cluster.x-k8s.io/secret"),
    secret(
      bootstrapSecretName(name),
      { value: "#!/bin/sh\n# kwok boots nothing\n" },
      "cluster.x-k8s.io/secret",
    ),
    {
      apiVersion: `${INFRA.group}/${INFRA.version}`,
      kind: "KwokCluster",
      metadata: { name, namespace },
      spec: { controlPlaneEndpoint: { host: server.hostname, port: Number(server.port || 443) } },
    },
    {
      apiVersion: `${CONTROL_PLANE.group}/${CONTROL_PLANE.version}`,
      kind: "KwokControlPlane",
      metadata: { name, namespace },
      spec: {},
    },
    kwokMachineTemplate(namespace, name),
    {
      apiVersion: `${CAPI.group}/${CAPI.version}`,
      kind: "Cluster",
      metadata: { name, namespace },
      spec: {
        infrastructureRef: ref(INFRA, "KwokCluster"),
        controlPlaneRef: ref(CONTROL_PLANE, "KwokControlPlane"),
      },
    },
  ];
}

/**
 * A MachineDeployment of `replicas` kwok Machines in `cluster`, shaped by the KwokMachineTemplate
 * `template` (default: the cluster's own). Selector and template labels are spelled out (the defaulting
 * webhook would add the same), bootstrap data is named directly, and each Machine carries
 * NODE_DEPLOYMENT_LABEL, which reaches its Node.
 */
export function machineDeployment(
  namespace: string,
  name: string,
  cluster: string,
  replicas: number,
  template = cluster,
): object {
  const labels = { [DEPLOYMENT_NAME_LABEL]: name };
  return {
    apiVersion: `${CAPI.group}/${CAPI.version}`,
    kind: "MachineDeployment",
    metadata: { name, namespace },
    spec: {
      clusterName: cluster,
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: { ...labels, [NODE_DEPLOYMENT_LABEL]: name } },
        spec: {
          clusterName: cluster,
          bootstrap: { dataSecretName: bootstrapSecretName(cluster) },
          infrastructureRef: { apiGroup: INFRA.group, kind: "KwokMachineTemplate", name: template },
        },
      },
    },
  };
}

/** The Node that stands for a Machine: a kwok Node (Ready within a second) with the declared shape. */
export function machineNode(
  machine: string,
  owner: string,
  spec: KwokMachineSpec,
  machineLabels: object,
): V1Node & { metadata: { name: string } } {
  const synced = Object.entries(machineLabels as Record<string, string>).filter(([k]) =>
    k.startsWith("node.cluster.x-k8s.io/"),
  );
  const allocatable = spec.allocatable ?? NODE_ALLOCATABLE;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: machine,
      // kwok in this testbed manages only Nodes carrying this annotation (cluster.ts).
      annotations: {
        "kwok.x-k8s.io/node": "fake",
        "node.alpha.kubernetes.io/ttl": "0",
        [PROVIDER_NODE_OWNER]: owner,
      },
      labels: {
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": NODE_INSTANCE_TYPE,
        "topology.kubernetes.io/zone": ZONE,
        type: "kwok",
        ...spec.labels,
        ...Object.fromEntries(synced),
        "kubernetes.io/hostname": machine,
        [PROVIDER_NODE_LABEL]: "true",
      },
    },
    spec: {
      providerID: `${PROVIDER_ID_PREFIX}${machine}`,
      ...(spec.taints && spec.taints.length > 0 && { taints: spec.taints.map((t) => ({ ...t })) }),
    },
    status: { allocatable, capacity: allocatable },
  };
}
