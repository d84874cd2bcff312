// Test infrastructure: the real Kueue (the pinned sigs.k8s.io/kueue, built into the tools cache by
// tools.ts) as a local process beside the testbed's control plane (cluster.ts), so the operator's tests
// run against Kueue's own admission, quota and ProvisioningRequest logic rather than an imitation.
//
// What `startKueue` does, and why:
// - installs the ProvisioningRequest CRD first: Kueue looks for the API once, at start, and without it
//   skips its provisioning admission-check controller for good (logging `Skipping provisioning
//   controller setup`) while still reporting ready;
// - installs Kueue's CRDs with server-side apply (the Workload CRD is too big for the annotation that
//   client-side apply keeps) and without conversion webhooks (tools cache asset; the testbed uses the
//   storage version v1beta2 only), and waits until they are Established;
// - issues a serving certificate for 127.0.0.1 from the cluster CA (`<dir>/pki`): Kueue's internal
//   certificate management only issues for `<service>.<namespace>.svc`, so it is turned off;
// - with it off, Kueue insists on a metrics certificate at the fixed path
//   /etc/kueue/metrics/certs/tls.{crt,key}. The machine's /etc is not written: Kueue runs in a private
//   mount namespace (`unshare --mount --propagation private`) whose /etc is an overlay of the real one
//   with an upper layer under `<dir>/kueue/etc` holding those two files; it disappears with the process;
// - writes the Configuration (kueue-manifests.ts says why each setting is there) and applies Kueue's
//   webhook configurations, cut down to what the testbed uses and scoped (kueue-manifests.ts);
// - runs as the cluster admin (its kubeconfig): the testbed checks Kueue's behaviour, not its RBAC;
// - records the process in `<dir>/cluster.json` like the control plane's, so `stopCluster` (and
//   `npm run cluster:down`) stop it too; logs go to `<dir>/logs/kueue.log`.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { readClusterState } from "./cluster.js";
import {
  KUEUE_NAMESPACE,
  kueueConfiguration,
  scopedWebhooks,
  WEBHOOK_CONFIGURATIONS,
  type KueuePorts,
} from "./kueue-manifests.js";
import { apply, installCrds, kubectl, deleteWebhookConfigurations } from "./kubectl.js";
import { recordedProcess, recordProcess, stillRunning } from "./process-record.js";
import {
  answersReadyz,
  freePort,
  startProcess,
  stopProcess,
  untilStarted,
  type ManagedProcess,
} from "./processes.js";
import type { Toolchain } from "./tools.js";

export { KEEP_RUNNING_LABEL } from "./tool-modules.js";
export { KUEUE_NAMESPACE, QUEUE_NAME_LABEL, WEBHOOK_CONFIGURATIONS } from "./kueue-manifests.js";

export interface KueueOptions {
  /** The cluster's folder (cluster.ts): `cluster.json`, `pki/`, `logs/`. Kueue's files go to `kueue/`. */
  readonly dir: string;
  /** An admin kubeconfig of that cluster. */
  readonly kubeconfig: string;
  readonly tools: Toolchain;
  readonly log?: (message: string) => void;
}

export interface Kueue {
  readonly process: ManagedProcess;
  readonly ports: KueuePorts;
  /** Stops Kueue, removes its record and its webhook configurations (Jobs are then left alone). */
  stop(): Promise<void>;
}

const PROCESS_NAME = "kueue";

/**
 * Installs the ProvisioningRequest CRD (autoscaling.x-k8s.io, the version Kueue is built against) and
 * waits until it is Established. Also for tests that need the API without Kueue.
 */
export async function installProvisioningRequestCrd(kubeconfig: string, tools: Toolchain): Promise<void> {
  await installCrds(tools, kubeconfig, tools.assets["provisioningrequest-crd.yaml"]);
}

function openssl(args: string[], cwd: string): void {
  const res = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (res.error) throw new Error(`openssl is required for Kueue's certificate: ${res.error.message}`);
  if (res.status !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${res.stderr}`);
}

/** A serving certificate for 127.0.0.1 (webhooks and metrics), signed by the cluster CA. */
function issueServingCert(pkiDir: string, certDir: string): void {
  mkdirSync(certDir, { recursive: true });
  writeFileSync(
    path.join(certDir, "tls.ext"),
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n" +
      "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
  );
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    ["req", "-new", ...ec, "-keyout", "tls.key", "-out", "tls.csr", "-subj", "/CN=kueue-webhook"],
    certDir,
  );
  openssl(
    [
      "x509",
      "-req",
      "-in",
      "tls.csr",
      "-CA",
      path.join(pkiDir, "ca.crt"),
      "-CAkey",
      path.join(pkiDir, "ca.key"),
      "-CAserial",
      "ca.srl",
      "-CAcreateserial",
      "-days",
      "3650",
      "-out",
      "tls.crt",
      "-extfile",
      "tls.ext",
    ],
    certDir,
  );
}

/**
 * Starts the process: `unshare` makes a private mount namespace, in which `sh` mounts the overlay on
 * /etc and execs Kueue, so the recorded pid is Kueue's own (and `isOurs` finds its binary).
 */
function startInMountNamespace(
  tools: Toolchain,
  kueueDir: string,
  logDir: string,
  args: string[],
): ManagedProcess {
  const etc = path.join(kueueDir, "etc");
  rmSync(etc, { recursive: true, force: true });
  const upper = path.join(etc, "upper");
  const certs = path.join(upper, "kueue", "metrics", "certs");
  mkdirSync(certs, { recursive: true });
  mkdirSync(path.join(etc, "work"));
  for (const f of ["tls.crt", "tls.key"]) copyFileSync(path.join(kueueDir, "certs", f), path.join(certs, f));
  // Root may make mount namespaces; anyone else needs a user namespace mapping them to root in it.
  const userns = process.getuid?.() === 0 ? [] : ["--user", "--map-root-user"];
  const overlay = `lowerdir=/etc,upperdir=${upper},workdir=${path.join(etc, "work")}`;
  const script = 'mount -t overlay overlay -o "$1" /etc && shift && exec "$@"';
  const proc = startProcess(
    PROCESS_NAME,
    "unshare",
    [
      ...userns,
      "--mount",
      "--propagation",
      "private",
      "--",
      "sh",
      "-c",
      script,
      "kueue-etc",
      overlay,
      tools.paths.kueue,
      ...args,
    ],
    logDir,
  );
  return { ...proc, binary: tools.paths.kueue };
}

/** Kueue's webhooks answer through the API server: a dry-run labelled Job comes back suspended. */
async function webhooksAnswer(tools: Toolchain, kubeconfig: string): Promise<boolean> {
  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: "kueue-webhook-probe",
      namespace: "default",
      labels: { "kueue.x-k8s.io/queue-name": "probe" },
    },
    spec: {
      template: {
        spec: { restartPolicy: "Never", containers: [{ name: "probe", image: "registry.invalid/probe:1" }] },
      },
    },
  };
  const flavor = {
    apiVersion: "kueue.x-k8s.io/v1beta2",
    kind: "ResourceFlavor",
    metadata: { name: "kueue-probe" },
  };
  const dryRun = ["create", "--dry-run=server", "-o", "json", "-f", "-"];
  const created = JSON.parse(await kubectl(tools, kubeconfig, dryRun, JSON.stringify(job))) as {
    spec?: { suspend?: boolean };
  };
  await kubectl(tools, kubeconfig, dryRun, JSON.stringify(flavor));
  return created.spec?.suspend === true;
}

function handle(
  dir: string,
  kubeconfig: string,
  tools: Toolchain,
  proc: ManagedProcess,
  ports: KueuePorts,
): Kueue {
  return { process: proc, ports, stop: () => stopKueue(dir, kubeconfig, tools) };
}

/**
 * Starts Kueue against the cluster in `dir` and resolves once it is ready and its webhooks answer.
 * Idempotent: a Kueue already running for that cluster is returned as it is.
 */
export async function startKueue(options: KueueOptions): Promise<Kueue> {
  const { dir, kubeconfig, tools } = options;
  const log = options.log ?? (() => undefined);
  const kueueDir = path.join(dir, "kueue");
  const portsFile = path.join(kueueDir, "ports.json");
  const running = stillRunning(dir, PROCESS_NAME, portsFile);
  if (running) {
    log(`Kueue already running (pid ${running.process.pid})`);
    return handle(dir, kubeconfig, tools, running.process, running.ports as KueuePorts);
  }
  if (!existsSync(tools.paths.kueue))
    throw new Error(`the Kueue binary is missing (${tools.paths.kueue}): run \`npm run tools\` to build it`);
  if (!readClusterState(dir)) throw new Error(`no cluster recorded in ${dir}`);
  const stale = recordedProcess(dir, PROCESS_NAME);
  if (stale) await stopProcess(stale);

  log("installing the ProvisioningRequest CRD and Kueue's CRDs");
  await installProvisioningRequestCrd(kubeconfig, tools);
  await installCrds(tools, kubeconfig, tools.assets["kueue-crds.yaml"]);
  await apply(
    tools,
    kubeconfig,
    "-",
    JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: KUEUE_NAMESPACE } }),
  );

  const certDir = path.join(kueueDir, "certs");
  issueServingCert(path.join(dir, "pki"), certDir);
  const [webhook, health, metrics] = await Promise.all([freePort(), freePort(), freePort()]);
  const ports: KueuePorts = { webhook, health, metrics };
  const configFile = path.join(kueueDir, "config.yaml");
  writeFileSync(configFile, kueueConfiguration(ports, certDir));
  writeFileSync(portsFile, JSON.stringify(ports));

  log(`applying Kueue's webhook configurations (https://127.0.0.1:${ports.webhook})`);
  const caBundle = readFileSync(path.join(dir, "pki", "ca.crt")).toString("base64");
  const manifests = readFileSync(tools.assets["kueue-webhooks.yaml"], "utf8");
  await apply(tools, kubeconfig, "-", scopedWebhooks(manifests, ports.webhook, caBundle));

  log("starting Kueue");
  const logDir = path.join(dir, "logs");
  mkdirSync(logDir, { recursive: true });
  const proc = startInMountNamespace(tools, kueueDir, logDir, [
    `--config=${configFile}`,
    `--kubeconfig=${kubeconfig}`,
  ]);
  recordProcess(dir, PROCESS_NAME, proc);
  // The pid stays the same through unshare's and sh's exec; once it is gone, Kueue has exited.
  try {
    await untilStarted(proc, "Kueue", [
      { what: "Kueue /readyz", check: () => answersReadyz(ports.health), timeoutMs: 180_000 },
      {
        what: "Kueue's webhooks (a dry-run labelled Job comes back suspended)",
        check: () => webhooksAnswer(tools, kubeconfig),
        timeoutMs: 60_000,
      },
    ]);
  } catch (err) {
    await stopKueue(dir, kubeconfig, tools);
    throw err;
  }
  log(`Kueue ready (pid ${proc.pid})`);
  return handle(dir, kubeconfig, tools, proc, ports);
}

/** Stops the Kueue recorded for `dir` (if any), removes its record and its webhook configurations. */
export async function stopKueue(dir: string, kubeconfig: string, tools: Toolchain): Promise<void> {
  const proc = recordedProcess(dir, PROCESS_NAME);
  if (proc) await stopProcess(proc);
  recordProcess(dir, PROCESS_NAME, undefined);
  await deleteWebhookConfigurations(tools, kubeconfig, WEBHOOK_CONFIGURATIONS);
}
