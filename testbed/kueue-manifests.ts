// What testbed/kueue.ts gives Kueue: its Configuration file and the admission webhook configurations,
// rewritten from Kueue's own manifests (tools cache asset `kueue-webhooks.yaml`) to reach the local
// process. Pure functions, so the unit tests check them without a cluster.
import { parseAllDocuments, stringify } from "yaml";

export const KUEUE_NAMESPACE = "kueue-system";
/** The label that puts a Job under Kueue (the name of a LocalQueue in the Job's namespace). */
export const QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name";
/** Names of the webhook configurations, as Kueue's release manifests name them. */
export const WEBHOOK_CONFIGURATIONS = {
  mutating: "kueue-mutating-webhook-configuration",
  validating: "kueue-validating-webhook-configuration",
} as const;

export interface KueuePorts {
  readonly webhook: number;
  readonly health: number;
  readonly metrics: number;
}

/**
 * Kueue's Configuration (config.kueue.x-k8s.io/v1beta2). Why each setting:
 * - internalCertManagement off: Kueue's own rotator issues only for `<service>.<namespace>.svc` and
 *   waits on CRD conversion webhooks; a process on loopback has neither. `certDir` holds the
 *   testbed's certificate for 127.0.0.1 instead (and makes Kueue read its metrics certificate from
 *   /etc/kueue/metrics/certs, provided in a private mount namespace: kueue.ts);
 * - webhook, health and metrics on free loopback ports, so any number of clusters run side by side;
 * - leader election off: one replica, and no Lease to wait for when it is restarted;
 * - `batch/job` only: the only integration the testbed needs; every other framework's controller
 *   would wait for CRDs (JobSet, Ray, Kubeflow…) that are not installed;
 * - VisibilityOnDemand off: its API server needs `/visibility/tls.crt` and exits Kueue without it;
 * - client QPS/burst of Kueue's release manifest (the library default, 20/30, slows admission).
 */
export function kueueConfiguration(ports: KueuePorts, certDir: string): string {
  return stringify({
    apiVersion: "config.kueue.x-k8s.io/v1beta2",
    kind: "Configuration",
    namespace: KUEUE_NAMESPACE,
    health: { healthProbeBindAddress: `127.0.0.1:${ports.health}` },
    metrics: { bindAddress: `127.0.0.1:${ports.metrics}` },
    webhook: { host: "127.0.0.1", port: ports.webhook, certDir },
    leaderElection: { leaderElect: false },
    internalCertManagement: { enable: false },
    integrations: { frameworks: ["batch/job"] },
    featureGates: { VisibilityOnDemand: false },
    clientConnection: { qps: 50, burst: 100 },
  });
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
}
interface Webhook {
  name: string;
  clientConfig: { service?: { path?: string }; url?: string; caBundle?: string };
  rules?: Rule[];
  objectSelector?: unknown;
  [key: string]: unknown;
}
interface WebhookConfiguration {
  apiVersion: string;
  kind: "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration";
  metadata: { name: string };
  webhooks: Webhook[];
}

const isKueueApi = (w: Webhook): boolean =>
  (w.rules ?? []).length > 0 &&
  (w.rules ?? []).every((r) => r.apiGroups?.every((g) => g === "kueue.x-k8s.io"));
const isBatchJob = (w: Webhook): boolean =>
  (w.rules ?? []).some((r) => r.apiGroups?.includes("batch") && r.resources?.includes("jobs"));

/**
 * Kueue's webhook configurations for the testbed: only the webhooks of Kueue's own API objects
 * (Workload, ClusterQueue, Cohort, ResourceFlavor, … whatever the pinned version ships) and of batch/v1
 * Jobs; each calls `https://127.0.0.1:<port><path>` with `caBundle` (as envtest does) instead of a
 * Service. Kueue's webhooks fail closed (`failurePolicy: Fail`), so the Job webhooks get an
 * objectSelector: only Jobs labelled with a queue name are sent to Kueue, and no other Job is ever
 * blocked or changed, Kueue running or not. The pod, Deployment, StatefulSet and other frameworks'
 * webhooks are dropped: a pod webhook would block the whole cluster whenever Kueue is down.
 */
export function scopedWebhooks(manifests: string, port: number, caBundle: string): string {
  const configs = parseAllDocuments(manifests)
    .map((d) => d.toJS() as unknown)
    .filter((c): c is WebhookConfiguration => {
      const kind = (c as { kind?: unknown } | null)?.kind;
      return typeof kind === "string" && kind.endsWith("WebhookConfiguration");
    });
  const out = configs.map((config) => {
    const mutating = config.kind === "MutatingWebhookConfiguration";
    const webhooks = config.webhooks
      .filter((w) => isKueueApi(w) || isBatchJob(w))
      .map((w): Webhook => {
        const urlPath = w.clientConfig.service?.path;
        if (!urlPath) throw new Error(`Kueue webhook ${w.name} has no service path`);
        const scoped: Webhook = {
          ...w,
          clientConfig: { url: `https://127.0.0.1:${port}${urlPath}`, caBundle },
        };
        if (isBatchJob(w))
          scoped.objectSelector = { matchExpressions: [{ key: QUEUE_NAME_LABEL, operator: "Exists" }] };
        return scoped;
      });
    if (!webhooks.some(isBatchJob) || !webhooks.some(isKueueApi))
      throw new Error(
        `Kueue's ${config.kind} has no batch/v1 Job or Kueue API webhook: has the manifest changed?`,
      );
    const name = mutating ? WEBHOOK_CONFIGURATIONS.mutating : WEBHOOK_CONFIGURATIONS.validating;
    return { ...config, metadata: { name }, webhooks };
  });
  if (out.length !== 2) throw new Error(`expected Kueue's two webhook configurations, found ${out.length}`);
  return out.map((c) => JSON.stringify(c)).join("\n---\n");
}
