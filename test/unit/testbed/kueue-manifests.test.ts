import { parse, parseAllDocuments } from "yaml";
import {
  kueueConfiguration,
  QUEUE_NAME_LABEL,
  scopedWebhooks,
  WEBHOOK_CONFIGURATIONS,
} from "../../../testbed/kueue-manifests.js";

/** The shape of Kueue's config/components/webhook/manifests.yaml, cut down to one of each kind. */
const webhook = (name: string, path: string, apiGroup: string, resource: string): object => ({
  admissionReviewVersions: ["v1"],
  clientConfig: { service: { name: "webhook-service", namespace: "system", path } },
  failurePolicy: "Fail",
  name,
  rules: [{ apiGroups: [apiGroup], apiVersions: ["v1"], operations: ["CREATE"], resources: [resource] }],
  sideEffects: "None",
});
const manifests = (mutating: object[], validating: object[]): string =>
  [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: "mutating-webhook-configuration" },
      webhooks: mutating,
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "validating-webhook-configuration" },
      webhooks: validating,
    },
  ]
    .map((d) => JSON.stringify(d))
    .join("\n---\n");
const upstream = manifests(
  [
    webhook("mjob.kb.io", "/mutate-batch-v1-job", "batch", "jobs"),
    webhook("mpod.kb.io", "/mutate--v1-pod", "", "pods"),
    webhook("mdeployment.kb.io", "/mutate-apps-v1-deployment", "apps", "deployments"),
    webhook("mworkload.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-workload", "kueue.x-k8s.io", "workloads"),
  ],
  [
    webhook("vjob.kb.io", "/validate-batch-v1-job", "batch", "jobs"),
    webhook("vpod.kb.io", "/validate--v1-pod", "", "pods"),
    webhook("vcohort.kb.io", "/validate-kueue-x-k8s-io-v1beta2-cohort", "kueue.x-k8s.io", "cohorts"),
  ],
);

interface Hook {
  name: string;
  clientConfig: { url?: string; caBundle?: string; service?: unknown };
  objectSelector?: unknown;
  failurePolicy: string;
}
interface Config {
  kind: string;
  metadata: { name: string };
  webhooks: Hook[];
}
const configs = (stream: string): Config[] => parseAllDocuments(stream).map((d) => d.toJS() as Config);

test("only the Job and Kueue API webhooks remain, calling 127.0.0.1 with the CA bundle", () => {
  const [mutating, validating] = configs(scopedWebhooks(upstream, 9443, "Q0E="));
  expect(mutating?.metadata.name).toBe(WEBHOOK_CONFIGURATIONS.mutating);
  expect(validating?.metadata.name).toBe(WEBHOOK_CONFIGURATIONS.validating);
  expect(mutating?.webhooks.map((w) => w.name)).toEqual(["mjob.kb.io", "mworkload.kb.io"]);
  expect(validating?.webhooks.map((w) => w.name)).toEqual(["vjob.kb.io", "vcohort.kb.io"]);
  const all = [...(mutating?.webhooks ?? []), ...(validating?.webhooks ?? [])];
  for (const w of all) {
    expect(w.clientConfig.service).toBeUndefined();
    expect(w.clientConfig.caBundle).toBe("Q0E=");
    expect(w.clientConfig.url).toMatch(/^https:\/\/127\.0\.0\.1:9443\/(mutate|validate)-/);
    expect(w.failurePolicy).toBe("Fail");
  }
  expect(all.find((w) => w.name === "vcohort.kb.io")?.clientConfig.url).toBe(
    "https://127.0.0.1:9443/validate-kueue-x-k8s-io-v1beta2-cohort",
  );
});

test("the Job webhooks see only Jobs labelled with a queue name; Kueue's own objects are not scoped", () => {
  const hooks = configs(scopedWebhooks(upstream, 9443, "Q0E=")).flatMap((c) => c.webhooks);
  const selector = { matchExpressions: [{ key: QUEUE_NAME_LABEL, operator: "Exists" }] };
  expect(hooks.find((w) => w.name === "mjob.kb.io")?.objectSelector).toEqual(selector);
  expect(hooks.find((w) => w.name === "vjob.kb.io")?.objectSelector).toEqual(selector);
  expect(hooks.find((w) => w.name === "mworkload.kb.io")?.objectSelector).toBeUndefined();
});

test("a manifest without the Job webhooks is refused rather than installed half", () => {
  const noJobs = manifests(
    [webhook("mworkload.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-workload", "kueue.x-k8s.io", "workloads")],
    [webhook("vcohort.kb.io", "/validate-kueue-x-k8s-io-v1beta2-cohort", "kueue.x-k8s.io", "cohorts")],
  );
  expect(() => scopedWebhooks(noJobs, 9443, "Q0E=")).toThrow(/no batch\/v1 Job or Kueue API webhook/);
});

test("the Configuration: loopback ports, own certificates, one framework, no leader election", () => {
  const config = parse(kueueConfiguration({ webhook: 1, health: 2, metrics: 3 }, "/x/certs")) as Record<
    string,
    unknown
  >;
  expect(config).toMatchObject({
    apiVersion: "config.kueue.x-k8s.io/v1beta2",
    kind: "Configuration",
    namespace: "kueue-system",
    webhook: { host: "127.0.0.1", port: 1, certDir: "/x/certs" },
    health: { healthProbeBindAddress: "127.0.0.1:2" },
    metrics: { bindAddress: "127.0.0.1:3" },
    leaderElection: { leaderElect: false },
    internalCertManagement: { enable: false },
    integrations: { frameworks: ["batch/job"] },
    featureGates: { VisibilityOnDemand: false },
  });
});
