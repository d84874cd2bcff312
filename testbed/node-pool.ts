// TEST INFRASTRUCTURE, standing in for the cloud as kwok stands in for kubelets: a NodePool is a small
// scalable custom resource whose replicas are kwok Nodes with declared allocatable, labels and taints.
// In production an InstanceGroupManager's target that adds capacity is a Cluster API MachineDeployment
// or a cloud node-pool operator's resource; the operator sees only its /scale subresource and
// status.readyReplicas, so it cannot tell this one from those. node-pool-controller.ts is the process
// that makes the nodes (decisions in node-pool-plan.ts); this module defines the API and starts it.
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as k8s from "@kubernetes/client-node";
import { readClusterState } from "./cluster.js";
import { recordProcess, updateRecord } from "./process-record.js";
import { isOurs, startProcess, stopProcess, tail, type ManagedProcess } from "./processes.js";

export const NODE_POOL = {
  group: "testbed.resize-operator.dev",
  version: "v1",
  kind: "NodePool",
  plural: "nodepools",
} as const;

/** On every node of a pool, valued `<namespace>.<pool>`: how the controller knows its nodes. */
export const POOL_LABEL = `${NODE_POOL.group}/node-pool`;

export interface NodePoolTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

export interface NodePoolSpec {
  /** Defaults to 0 (the CRD's default). */
  readonly replicas?: number;
  /** Resource name → quantity, e.g. { cpu: "32", memory: "256Gi", "nvidia.com/gpu": "8" }. */
  readonly allocatable: Readonly<Record<string, string | number>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly NodePoolTaint[];
}

export interface NodePoolStatus {
  readonly replicas?: number;
  readonly readyReplicas?: number;
  readonly selector?: string;
  readonly observedGeneration?: number;
}

export interface NodePool {
  readonly apiVersion: `${typeof NODE_POOL.group}/${typeof NODE_POOL.version}`;
  readonly kind: typeof NODE_POOL.kind;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly generation?: number;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly spec: NodePoolSpec;
  readonly status?: NodePoolStatus;
}

/** A NodePool manifest, ready to create. */
export function nodePool(namespace: string, name: string, spec: NodePoolSpec): NodePool {
  return {
    apiVersion: `${NODE_POOL.group}/${NODE_POOL.version}`,
    kind: NODE_POOL.kind,
    metadata: { name, namespace },
    spec,
  };
}

const CRD_NAME = `${NODE_POOL.plural}.${NODE_POOL.group}`;
const count = (description: string): object => ({
  type: "integer",
  format: "int32",
  minimum: 0,
  description,
});

/**
 * The CustomResourceDefinition, as a plain manifest: namespaced (a group's targetRef is in the group's
 * namespace), with /scale. Plain JSON keys (`default`, `x-kubernetes-*`): client-node's typed
 * apiextensions client would silently drop them, as it serializes only its models' camel-cased fields.
 */
export function nodePoolCrd() {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: CRD_NAME },
    spec: {
      group: NODE_POOL.group,
      scope: "Namespaced",
      names: {
        kind: NODE_POOL.kind,
        listKind: `${NODE_POOL.kind}List`,
        plural: NODE_POOL.plural,
        singular: "nodepool",
      },
      versions: [
        {
          name: NODE_POOL.version,
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: {
              specReplicasPath: ".spec.replicas",
              statusReplicasPath: ".status.replicas",
              labelSelectorPath: ".status.selector",
            },
          },
          additionalPrinterColumns: [
            { name: "Desired", type: "integer", jsonPath: ".spec.replicas" },
            { name: "Current", type: "integer", jsonPath: ".status.replicas" },
            { name: "Ready", type: "integer", jsonPath: ".status.readyReplicas" },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description:
                "Testbed only: a pool of kwok Nodes that stands in for a cloud node pool or a Cluster API MachineDeployment.",
              required: ["spec"],
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: { type: "object" },
                spec: {
                  type: "object",
                  required: ["allocatable"],
                  properties: {
                    replicas: {
                      type: "integer",
                      format: "int32",
                      minimum: 0,
                      // A bound as a real pool has one; kwok nodes are cheap, a runaway loop is not.
                      maximum: 1000,
                      default: 0,
                      description: "How many nodes the pool has.",
                    },
                    allocatable: {
                      type: "object",
                      minProperties: 1,
                      // Bounds keep the per-value rule's estimated cost within the API server's budget.
                      maxProperties: 32,
                      description: "Each node's allocatable (and capacity): resource name → quantity.",
                      additionalProperties: {
                        // Quantities as a Node accepts them: `cpu: 32` as well as `memory: 256Gi`.
                        "x-kubernetes-int-or-string": true,
                        anyOf: [{ type: "integer" }, { type: "string" }],
                        maxLength: 64,
                        "x-kubernetes-validations": [
                          {
                            rule: "type(self) == int ? self >= 0 : isQuantity(self) && !quantity(self).isLessThan(quantity('0'))",
                            message: "must be a non-negative quantity such as 32, 256Gi or 500m",
                          },
                        ],
                      },
                    },
                    labels: {
                      type: "object",
                      description: "Labels of each node, beside the ones every kwok node of the testbed has.",
                      additionalProperties: { type: "string" },
                    },
                    taints: {
                      type: "array",
                      description: "Taints of each node.",
                      "x-kubernetes-list-type": "atomic",
                      items: {
                        type: "object",
                        required: ["key", "effect"],
                        properties: {
                          key: { type: "string", minLength: 1 },
                          value: { type: "string" },
                          effect: { type: "string", enum: ["NoSchedule", "PreferNoSchedule", "NoExecute"] },
                        },
                      },
                    },
                  },
                },
                status: {
                  type: "object",
                  properties: {
                    replicas: count("The pool's nodes that exist."),
                    readyReplicas: count("The pool's nodes whose Ready condition is True."),
                    selector: { type: "string", description: "A label selector matching the pool's nodes." },
                    observedGeneration: { type: "integer", format: "int64" },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** The CRD through the custom-objects client, which sends a body as it is given (see nodePoolCrd). */
const CRDS = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" } as const;

/** Creates or updates the CRD (server-side apply) and waits until it is Established (served). */
export async function installNodePoolCrd(kubeconfig: string): Promise<void> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  await custom.patchClusterCustomObject(
    { ...CRDS, name: CRD_NAME, body: nodePoolCrd(), fieldManager: "testbed-node-pool", force: true },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.ServerSideApply),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    const crd = (await custom.getClusterCustomObject({ ...CRDS, name: CRD_NAME })) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    if (Date.now() > deadline) throw new Error(`CRD ${CRD_NAME} not Established after 30s`);
    await sleep(100);
  }
}

/** Its record's name in cluster.json. */
export const CONTROLLER_NAME = "node-pool-controller";
/** The controller logs this line once its first pass succeeded. */
export const CONTROLLER_READY = "ready: serving NodePools";

export interface NodePoolController {
  readonly process: ManagedProcess;
  /** Stops the process and removes its record (nodes stay, as VMs outlive their cloud controller). */
  stop(): Promise<void>;
}

export interface NodePoolControllerOptions {
  /** The cluster's directory (cluster.json, logs/). */
  readonly dir: string;
  readonly kubeconfig: string;
  readonly log?: (message: string) => void;
}

function handle(dir: string, proc: ManagedProcess): NodePoolController {
  return {
    process: proc,
    stop: async () => {
      // The record goes first, as stopCluster does: a recorded process that is gone would make
      // isClusterRunning (npm run cluster:up) take the whole cluster for dead.
      updateRecord(dir, (ps) => ps.filter((p) => p.pid !== proc.pid));
      await stopProcess(proc);
    },
  };
}

/**
 * Installs the CRD and starts the controller (once: a recorded controller that still runs is reused),
 * recorded in `<dir>/cluster.json` like the cluster's own processes, so stopCluster and
 * `npm run cluster:down` stop it too. Resolves once its first pass over the cluster succeeded.
 */
export async function startNodePoolController(
  options: NodePoolControllerOptions,
): Promise<NodePoolController> {
  const { dir, kubeconfig } = options;
  const log = options.log ?? (() => undefined);
  const state = readClusterState(dir);
  if (!state) throw new Error(`no cluster recorded in ${dir}`);
  await installNodePoolCrd(kubeconfig);
  const running = state.processes.find((p) => p.name === CONTROLLER_NAME && isOurs(p));
  if (running) {
    log(`node-pool controller already running (pid ${running.pid})`);
    return handle(dir, running);
  }
  const logDir = path.join(dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${CONTROLLER_NAME}.log`);
  // The log is appended to: only what this process writes counts as its readiness.
  const from = existsSync(logFile) ? statSync(logFile).size : 0;
  // Absolute paths: the process must not depend on the caller's working directory.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const script = fileURLToPath(new URL("./node-pool-controller.ts", import.meta.url));
  const proc = startProcess(
    CONTROLLER_NAME,
    process.execPath,
    ["--import", tsx, script, `--kubeconfig=${kubeconfig}`],
    logDir,
  );
  // A controller recorded earlier but gone (a crash) is replaced, never listed twice.
  recordProcess(dir, CONTROLLER_NAME, proc);
  log(`starting the node-pool controller (pid ${proc.pid}, log ${proc.log})`);
  const deadline = Date.now() + 60_000;
  while (!readFileSync(logFile).subarray(from).toString("utf8").includes(CONTROLLER_READY)) {
    if (!isOurs(proc) || Date.now() > deadline) {
      const why = isOurs(proc) ? "not ready after 60s" : "exited";
      await handle(dir, proc).stop();
      throw new Error(`the node-pool controller ${why}:\n${tail(logFile)}`);
    }
    await sleep(100);
  }
  return handle(dir, proc);
}
