// TEST INFRASTRUCTURE. The decisions of the testbed's kwok-backed Cluster API providers (the process
// kwok-machines.ts), kept pure so a table test can cover them: from the KwokClusters, KwokControlPlanes,
// KwokMachines, Machines and provider Nodes observed, what to write. The process only performs it.
//
// What each object gets, per Cluster API's v1beta2 provider contracts (v1.14):
// - KwokCluster: `status.initialization.provisioned: true` at once (the "network" exists already), which
//   lets Cluster API connect to the workload cluster through the `<cluster>-kubeconfig` Secret;
// - KwokControlPlane: `status.initialization.controlPlaneInitialized: true`, which sets the Cluster's
//   ControlPlaneInitialized condition; Cluster API reads a Machine's Node conditions (and so its Ready
//   condition) only after that. `status.externalManagedControlPlane: true` says it has no Machines (as a
//   cloud's managed control plane), so Cluster API deletes a deleted Machine's Node;
// - KwokMachine, once its owner Machine exists and names its bootstrap data: a Node named after the
//   Machine with `spec.providerID: kwok://<name>`, then the same providerID in its spec and
//   `status.initialization.provisioned: true`. Cluster API then finds the Node by providerID, sets the
//   Machine's nodeRef and mirrors the Node's conditions, which kwok makes Ready;
// - a deleted KwokMachine: its Node is deleted, then the provider's finalizer is removed.
import type { V1Node } from "@kubernetes/client-node";
import {
  KWOK_MACHINE_FINALIZER,
  machineNode,
  PROVIDER_ID_PREFIX,
  PROVIDER_NODE_OWNER,
  type KwokMachineSpec,
} from "./cluster-api-manifests.js";

export interface Meta {
  readonly name: string;
  readonly namespace: string;
  readonly resourceVersion?: string;
  readonly deletionTimestamp?: string;
  readonly finalizers?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly { kind: string; name: string; apiVersion: string }[];
}

export interface Obj {
  readonly metadata: Meta;
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
}

export interface Observed {
  readonly clusters: readonly Obj[];
  readonly controlPlanes: readonly Obj[];
  readonly kwokMachines: readonly Obj[];
  readonly machines: readonly Obj[];
  /** The Nodes labelled PROVIDER_NODE_LABEL. */
  readonly nodes: readonly V1Node[];
  /** Every Node's name, to leave a Node the provider does not own alone. */
  readonly allNodeNames: ReadonlySet<string>;
}

export type Kind = "KwokCluster" | "KwokControlPlane" | "KwokMachine";

export interface Plan {
  /** Merge patches of status. */
  readonly status: readonly { kind: Kind; namespace: string; name: string; status: object }[];
  /** Merge patches of a KwokMachine's spec (its providerID). */
  readonly spec: readonly { namespace: string; name: string; spec: object }[];
  /** Finalizer lists to write (with the resourceVersion they were computed from). */
  readonly finalizers: readonly {
    namespace: string;
    name: string;
    finalizers: string[];
    resourceVersion?: string;
  }[];
  readonly createNodes: readonly { owner: string; node: ReturnType<typeof machineNode> }[];
  readonly deleteNodes: readonly { owner: string; node: string; reason: string }[];
  /** Why an object waits, by `<kind> <namespace>/<name>`, for the log. */
  readonly waiting: readonly string[];
}

const key = (m: Meta): string => `${m.namespace}/${m.name}`;
const nested = (o: Record<string, unknown> | undefined, ...path: string[]): unknown =>
  path.reduce<unknown>((v, p) => (v as Record<string, unknown> | undefined)?.[p], o);

export function plan(observed: Observed): Plan {
  const status: Plan["status"][number][] = [];
  const spec: Plan["spec"][number][] = [];
  const finalizers: Plan["finalizers"][number][] = [];
  const createNodes: Plan["createNodes"][number][] = [];
  const deleteNodes: Plan["deleteNodes"][number][] = [];
  const waiting: string[] = [];

  for (const c of observed.clusters) {
    if (c.metadata.deletionTimestamp || nested(c.status, "initialization", "provisioned") === true) continue;
    const { namespace, name } = c.metadata;
    status.push({ kind: "KwokCluster", namespace, name, status: { initialization: { provisioned: true } } });
  }
  for (const cp of observed.controlPlanes) {
    const done =
      nested(cp.status, "initialization", "controlPlaneInitialized") === true &&
      nested(cp.status, "externalManagedControlPlane") === true;
    if (cp.metadata.deletionTimestamp || done) continue;
    status.push({
      kind: "KwokControlPlane",
      namespace: cp.metadata.namespace,
      name: cp.metadata.name,
      status: { initialization: { controlPlaneInitialized: true }, externalManagedControlPlane: true },
    });
  }

  const machines = new Map(observed.machines.map((m) => [key(m.metadata), m]));
  const nodesByOwner = new Map<string, V1Node[]>();
  for (const node of observed.nodes) {
    const owner = node.metadata?.annotations?.[PROVIDER_NODE_OWNER] ?? "";
    nodesByOwner.set(owner, [...(nodesByOwner.get(owner) ?? []), node]);
  }
  const live = new Set<string>();

  for (const km of observed.kwokMachines) {
    const meta = km.metadata;
    const owner = key(meta);
    const own = nodesByOwner.get(owner) ?? [];
    const held = (meta.finalizers ?? []).includes(KWOK_MACHINE_FINALIZER);
    if (meta.deletionTimestamp) {
      // The "VM" goes with its KwokMachine: its Node first, then the finalizer (next pass, once gone).
      const gone = own.filter((n) => !n.metadata?.deletionTimestamp);
      for (const n of gone)
        deleteNodes.push({ owner, node: n.metadata?.name ?? "", reason: "KwokMachine deleted" });
      if (own.length === 0 && held)
        finalizers.push({
          namespace: meta.namespace,
          name: meta.name,
          finalizers: (meta.finalizers ?? []).filter((f) => f !== KWOK_MACHINE_FINALIZER),
          resourceVersion: meta.resourceVersion,
        });
      continue;
    }
    live.add(owner);
    if (!held) {
      finalizers.push({
        namespace: meta.namespace,
        name: meta.name,
        finalizers: [...(meta.finalizers ?? []), KWOK_MACHINE_FINALIZER],
        resourceVersion: meta.resourceVersion,
      });
      continue; // provisions once the finalizer is in place, so no Node is ever left behind
    }
    const ref = meta.ownerReferences?.find(
      (r) => r.kind === "Machine" && r.apiVersion.startsWith("cluster.x-k8s.io/"),
    );
    const machine = ref ? machines.get(`${meta.namespace}/${ref.name}`) : undefined;
    if (!machine) {
      waiting.push(`KwokMachine ${owner}: waiting for its owner Machine`);
      continue;
    }
    if (!nested(machine.spec, "bootstrap", "dataSecretName")) {
      waiting.push(`KwokMachine ${owner}: waiting for Machine ${machine.metadata.name}'s bootstrap data`);
      continue;
    }
    const nodeName = machine.metadata.name;
    const providerID = `${PROVIDER_ID_PREFIX}${nodeName}`;
    if (own.length === 0) {
      if (observed.allNodeNames.has(nodeName)) {
        waiting.push(`KwokMachine ${owner}: a Node ${nodeName} exists that the provider did not make`);
        continue;
      }
      const shape = (km.spec ?? {}) as KwokMachineSpec;
      createNodes.push({ owner, node: machineNode(nodeName, owner, shape, machine.metadata.labels ?? {}) });
    }
    if (km.spec?.providerID !== providerID)
      spec.push({ namespace: meta.namespace, name: meta.name, spec: { providerID } });
    if (nested(km.status, "initialization", "provisioned") !== true)
      status.push({
        kind: "KwokMachine",
        namespace: meta.namespace,
        name: meta.name,
        status: {
          initialization: { provisioned: true },
          addresses: [{ type: "Hostname", address: nodeName }],
        },
      });
  }

  // A Node whose KwokMachine is gone altogether (deleted while the provider was down) goes too.
  for (const [owner, nodes] of nodesByOwner) {
    if (live.has(owner) || observed.kwokMachines.some((k) => key(k.metadata) === owner)) continue;
    for (const n of nodes)
      if (!n.metadata?.deletionTimestamp)
        deleteNodes.push({ owner, node: n.metadata?.name ?? "", reason: "KwokMachine gone" });
  }
  return { status, spec, finalizers, createNodes, deleteNodes, waiting };
}
