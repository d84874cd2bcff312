// The local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok, on
// free loopback ports, with kwok fake nodes and a default StorageClass (storage.ts). Used by `npm run cluster:up`, `npm run dev` and jest's
// global setup. Everything it starts is recorded in `<dir>/cluster.json`, and `stopCluster` stops
// exactly those processes.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import path from "node:path";
import { stringify } from "yaml";
import { createPki, type ClientCert } from "./pki.js";
import {
  freePort,
  isOurs,
  startProcess,
  stopProcess,
  tail,
  waitFor,
  type ManagedProcess,
} from "./processes.js";
import { defaultStorageClass, HOSTPATH_PROVISIONER_FLAG } from "./storage.js";
import type { Toolchain } from "./tools.js";

export const NODE_COUNT = 4;
export const GPUS_PER_NODE = 8;
/** The zone of every node (label topology.kubernetes.io/zone); groups of the samples name it. */
export const ZONE = "local-a";
/** The instance type of the fixed nodes (label node.kubernetes.io/instance-type). */
export const NODE_INSTANCE_TYPE = "gpu-8x";
/** Each fixed node's allocatable and capacity; Karpenter's `gpu-8x` shape is the same (karpenter-manifests.ts). */
export const NODE_ALLOCATABLE: Readonly<Record<string, string>> = {
  cpu: "32",
  memory: "256Gi",
  pods: "110",
  "ephemeral-storage": "500Gi",
  "nvidia.com/gpu": String(GPUS_PER_NODE),
};

export interface ClusterState {
  readonly dir: string;
  readonly server: string;
  readonly kubeconfig: string;
  readonly processes: readonly ManagedProcess[];
}

export interface StartOptions {
  readonly dir: string;
  readonly tools: Toolchain;
  readonly nodes?: number;
  readonly log?: (message: string) => void;
}

const stateFile = (dir: string): string => path.join(dir, "cluster.json");

export function readClusterState(dir: string): ClusterState | undefined {
  if (!existsSync(stateFile(dir))) return undefined;
  return JSON.parse(readFileSync(stateFile(dir), "utf8")) as ClusterState;
}

function writeKubeconfig(
  file: string,
  server: string,
  caCert: string,
  user: string,
  client: ClientCert,
): void {
  const b64 = (f: string): string => readFileSync(f).toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "local", cluster: { server, "certificate-authority-data": b64(caCert) } }],
    users: [
      {
        name: user,
        user: { "client-certificate-data": b64(client.cert), "client-key-data": b64(client.key) },
      },
    ],
    contexts: [{ name: "local", context: { cluster: "local", user, namespace: "default" } }],
    "current-context": "local",
  };
  writeFileSync(file, stringify(config), { mode: 0o600 });
}

/** A minimal HTTPS client for the launcher's own checks (the admin identity, the cluster CA). */
class AdminClient {
  constructor(
    private readonly server: string,
    private readonly ca: Buffer,
    private readonly client: { cert: Buffer; key: Buffer },
  ) {}

  call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const url = new URL(urlPath, this.server);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ca: this.ca,
          cert: this.client.cert,
          key: this.client.key,
          headers: { "content-type": "application/json" },
          timeout: 5000,
        },
        (res) => {
          let data = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (data += c));
          res.on("end", () => {
            let json: unknown = data;
            try {
              json = JSON.parse(data);
            } catch {
              // plain-text endpoints such as /readyz
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", reject);
      if (body !== undefined) req.write(JSON.stringify(body));
      req.end();
    });
  }
}

function fakeNode(index: number): object {
  const name = `kwok-node-${index}`;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: { "kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": NODE_INSTANCE_TYPE,
        "topology.kubernetes.io/zone": ZONE,
        type: "kwok",
      },
    },
    status: { allocatable: NODE_ALLOCATABLE, capacity: NODE_ALLOCATABLE },
  };
}

interface NodeList {
  items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
}

export async function startCluster(options: StartOptions): Promise<ClusterState> {
  const { dir, tools } = options;
  const log = options.log ?? (() => undefined);
  const nodes = options.nodes ?? NODE_COUNT;
  const pkiDir = path.join(dir, "pki");
  const logDir = path.join(dir, "logs");
  for (const d of [pkiDir, logDir, path.join(dir, "etcd")]) mkdirSync(d, { recursive: true });

  log("creating certificates");
  const pki = createPki(pkiDir);
  const [etcdClient, etcdPeer, apiPort, cmPort, schedPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const server = `https://127.0.0.1:${apiPort}`;
  const kubeconfig = path.join(dir, "kubeconfig");
  const cmKubeconfig = path.join(pkiDir, "controller-manager.kubeconfig");
  const schedKubeconfig = path.join(pkiDir, "scheduler.kubeconfig");
  writeKubeconfig(kubeconfig, server, pki.caCert, "admin", pki.clients.admin);
  writeKubeconfig(
    cmKubeconfig,
    server,
    pki.caCert,
    "system:kube-controller-manager",
    pki.clients.controllerManager,
  );
  writeKubeconfig(schedKubeconfig, server, pki.caCert, "system:kube-scheduler", pki.clients.scheduler);

  const processes: ManagedProcess[] = [];
  const save = (): ClusterState => {
    const state = { dir, server, kubeconfig, processes };
    writeFileSync(stateFile(dir), JSON.stringify(state, null, 2));
    return state;
  };
  const started = (p: ManagedProcess): ManagedProcess => {
    processes.push(p);
    save();
    return p;
  };
  const admin = new AdminClient(server, readFileSync(pki.caCert), {
    cert: readFileSync(pki.clients.admin.cert),
    key: readFileSync(pki.clients.admin.key),
  });

  try {
    log(`starting etcd on 127.0.0.1:${etcdClient}`);
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    const etcd = started(
      startProcess(
        "etcd",
        tools.paths.etcd,
        [
          "--name=local",
          `--data-dir=${path.join(dir, "etcd")}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=local=${peerUrl}`,
          "--unsafe-no-fsync=true",
          // The memory benchmark keeps 250,000 requests with their statuses (and their history until the
          // API server compacts it): more than etcd's default 2 GiB quota, which stops every write.
          "--quota-backend-bytes=8589934592",
          "--log-level=warn",
        ],
        logDir,
      ),
    );
    await waitFor(
      "etcd",
      async () => (await fetch(`${etcdUrl}/health`)).ok,
      30_000,
      () => tail(etcd.log),
    );

    log(`starting kube-apiserver on ${server}`);
    const apiserver = started(
      startProcess(
        "kube-apiserver",
        tools.paths["kube-apiserver"],
        [
          `--etcd-servers=${etcdUrl}`,
          "--bind-address=127.0.0.1",
          "--advertise-address=127.0.0.1",
          `--secure-port=${apiPort}`,
          `--cert-dir=${pkiDir}`,
          `--tls-cert-file=${pki.serverCert}`,
          `--tls-private-key-file=${pki.serverKey}`,
          `--client-ca-file=${pki.caCert}`,
          "--authorization-mode=RBAC",
          "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
          `--service-account-key-file=${pki.saPub}`,
          `--service-account-signing-key-file=${pki.saKey}`,
          "--service-cluster-ip-range=10.96.0.0/16",
          // Endpoints for the `kubernetes` Service would point at loopback, which no pod can reach anyway.
          "--endpoint-reconciler-type=none",
          "--allow-privileged=true",
          "--profiling=false",
          "--v=1",
        ],
        logDir,
      ),
    );
    await waitFor(
      "kube-apiserver /readyz",
      async () => (await admin.call("GET", "/readyz")).status === 200,
      90_000,
      () => tail(apiserver.log),
    );

    log("starting kube-controller-manager and kube-scheduler");
    const cm = started(
      startProcess(
        "kube-controller-manager",
        tools.paths["kube-controller-manager"],
        [
          `--kubeconfig=${cmKubeconfig}`,
          `--authentication-kubeconfig=${cmKubeconfig}`,
          `--authorization-kubeconfig=${cmKubeconfig}`,
          "--bind-address=127.0.0.1",
          `--secure-port=${cmPort}`,
          `--cert-dir=${pkiDir}`,
          "--leader-elect=false",
          "--use-service-account-credentials=true",
          `--service-account-private-key-file=${pki.saKey}`,
          `--root-ca-file=${pki.caCert}`,
          `--cluster-signing-cert-file=${pki.caCert}`,
          `--cluster-signing-key-file=${pki.caKey}`,
          HOSTPATH_PROVISIONER_FLAG,
          "--v=1",
        ],
        logDir,
      ),
    );
    const scheduler = started(
      startProcess(
        "kube-scheduler",
        tools.paths["kube-scheduler"],
        [
          `--kubeconfig=${schedKubeconfig}`,
          `--authentication-kubeconfig=${schedKubeconfig}`,
          `--authorization-kubeconfig=${schedKubeconfig}`,
          "--bind-address=127.0.0.1",
          `--secure-port=${schedPort}`,
          "--leader-elect=false",
          "--v=1",
        ],
        logDir,
      ),
    );
    log("starting kwok");
    const kwok = started(
      startProcess(
        "kwok",
        tools.paths.kwok,
        [
          `--kubeconfig=${kubeconfig}`,
          `--config=${tools.kwokStages}`,
          "--manage-all-nodes=false",
          "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
          "--node-lease-duration-seconds=40",
          "--cidr=10.244.0.0/16",
          "--node-ip=10.0.0.1",
        ],
        logDir,
      ),
    );

    await waitFor(
      "the default namespace",
      async () => (await admin.call("GET", "/api/v1/namespaces/default")).status === 200,
      30_000,
    );
    log("creating the default StorageClass (host-path provisioner)");
    const sc = await admin.call("POST", "/apis/storage.k8s.io/v1/storageclasses", defaultStorageClass());
    if (sc.status !== 201 && sc.status !== 409)
      throw new Error(`creating the default StorageClass: ${sc.status} ${JSON.stringify(sc.json)}`);
    log(`creating ${nodes} kwok nodes (${GPUS_PER_NODE} nvidia.com/gpu each)`);
    for (let i = 0; i < nodes; i++) {
      const res = await admin.call("POST", "/api/v1/nodes", fakeNode(i));
      if (res.status !== 201 && res.status !== 409)
        throw new Error(`creating node ${i}: ${res.status} ${JSON.stringify(res.json)}`);
    }
    await waitFor(
      `${nodes} Ready nodes`,
      async () => {
        const list = (await admin.call("GET", "/api/v1/nodes")).json as NodeList;
        const ready = list.items.filter((n) =>
          n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
        );
        return ready.length >= nodes;
      },
      60_000,
      () => tail(kwok.log),
    );
    for (const p of [cm, scheduler]) {
      if (!isOurs(p)) throw new Error(`${p.name} exited during start-up:\n${tail(p.log)}`);
    }
    log("cluster ready");
    return save();
  } catch (err) {
    await stopProcesses(processes);
    throw err;
  }
}

async function stopProcesses(processes: readonly ManagedProcess[]): Promise<void> {
  // Reverse start order: clients first, etcd last.
  for (const p of [...processes].reverse()) await stopProcess(p);
}

/** Stops every process recorded for the cluster in `dir`; with `wipe`, removes its data too. */
export async function stopCluster(dir: string, wipe = false): Promise<void> {
  const state = readClusterState(dir);
  // The record goes first: a supervisor of restarted components (components.ts) stops when it is gone.
  rmSync(stateFile(dir), { force: true });
  if (state) await stopProcesses(state.processes);
  if (wipe) rmSync(dir, { recursive: true, force: true });
}

/** A recorded cluster whose processes are all still running and whose API server answers. */
export async function isClusterRunning(dir: string): Promise<boolean> {
  const state = readClusterState(dir);
  if (!state || !state.processes.every(isOurs)) return false;
  return isApiServerReady(dir);
}

/** The recorded cluster's kube-apiserver answers /readyz with 200 (false when there is no cluster). */
export async function isApiServerReady(dir: string): Promise<boolean> {
  const state = readClusterState(dir);
  if (!state) return false;
  const pkiDir = path.join(dir, "pki");
  const admin = new AdminClient(state.server, readFileSync(path.join(pkiDir, "ca.crt")), {
    cert: readFileSync(path.join(pkiDir, "admin.crt")),
    key: readFileSync(path.join(pkiDir, "admin.key")),
  });
  return (await admin.call("GET", "/readyz").catch(() => ({ status: 0 }))).status === 200;
}
