// What `ensureTools()` (tools.ts) builds: each pinned Go module under hack/tools, the binaries built from
// it, the link flags that stamp their versions, and the files copied from the pinned modules into the
// tools cache beside them (kwok's stage definitions, Kueue's CRDs and webhook manifests, the
// ProvisioningRequest CRD, Karpenter's CRDs, Cluster API's CRDs and webhook manifests). Everything here is part of the cache key of the tool it belongs to.
import { parseAllDocuments, parseDocument } from "yaml";

export type BinaryName =
  | "kube-apiserver"
  | "kube-controller-manager"
  | "kube-scheduler"
  | "kubectl"
  | "etcd"
  | "kwok"
  | "helm"
  | "kueue"
  | "karpenter"
  | "cluster-api";

export type AssetName =
  | "kwok-stages.yaml"
  | "kueue-crds.yaml"
  | "kueue-webhooks.yaml"
  | "provisioningrequest-crd.yaml"
  | "karpenter-crds.yaml"
  | "cluster-api-crds.yaml"
  | "cluster-api-webhooks.yaml";

/** A file written into a tool's cache folder from files of a pinned module. */
export interface Asset {
  /** The module the files come from, at the version the tool's go.mod pins. */
  readonly module: string;
  /**
   * Paths inside the module, joined as one YAML stream in this order. A path ending in `/` stands for
   * every `*.yaml` file of that folder, by name.
   */
  readonly files: readonly string[];
  /** Rewrites the joined stream; its source text is part of the cache key, so editing it rebuilds. */
  readonly edit?: (text: string) => string;
}

export interface ToolModule {
  /** Folder under hack/tools holding the go.mod that pins it. */
  readonly dir: string;
  /** The module whose version (read from go.mod) is the tool's version. */
  readonly module: string;
  readonly binaries: Partial<Record<BinaryName, string>>;
  /** -X flags so `--version` reports the real release rather than a development placeholder. */
  readonly ldflags: (version: string) => string[];
  readonly assets?: Partial<Record<AssetName, Asset>>;
}

export const kubeVersionFlags = (version: string): string[] => {
  const [major, minor] = version.replace(/^v/, "").split(".");
  const vars = { gitVersion: version, gitMajor: major ?? "", gitMinor: minor ?? "", gitTreeState: "clean" };
  return ["k8s.io/client-go/pkg/version", "k8s.io/component-base/version"].flatMap((pkg) =>
    Object.entries(vars).map(([key, value]) => `-X ${pkg}.${key}=${value}`),
  );
};

export const KWOK_STAGES = [
  "kustomize/stage/node/fast/node-initialize.yaml",
  "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
  "kustomize/stage/pod/fast/pod-ready.yaml",
  "kustomize/stage/pod/fast/pod-complete.yaml",
  "kustomize/stage/pod/fast/pod-delete.yaml",
];

/**
 * A pod carrying this label (any non-empty value) is not completed by kwok: it stays Running until the
 * label is removed (kwok then completes it at once, as any Job pod) or the pod is deleted. Put it on a
 * Job's pod template. Pods without it are completed as upstream's `pod-complete` stage always does.
 */
export const KEEP_RUNNING_LABEL = "testbed.resize-operator.dev/keep-running";

/**
 * kwok's `pod-complete` stage (fast) completes every Running pod owned by a Job at once; one more
 * requirement in its selector leaves the pods labelled KEEP_RUNNING_LABEL alone. kwok re-evaluates a
 * pod's stages on every change of the pod, so removing the label completes it.
 */
export function holdableStages(text: string): string {
  const docs = text.split(/^---$/m).map((part) => {
    const doc = parseDocument(part);
    if (doc.getIn(["metadata", "name"]) !== "pod-complete") return part;
    const key = `.metadata.labels["${KEEP_RUNNING_LABEL}"]`;
    doc.addIn(["spec", "selector", "matchExpressions"], doc.createNode({ key, operator: "DoesNotExist" }));
    return `\n${doc.toString()}`;
  });
  if (!docs.some((d) => d.includes(KEEP_RUNNING_LABEL))) throw new Error("kwok has no pod-complete stage");
  return docs.join("---");
}

/**
 * CRDs as one stream of JSON documents (valid YAML; Kueue's Workload CRD is half the size as JSON),
 * with any conversion webhook removed: it would name a Service of Kueue's that the testbed does not
 * run, so every served version is converted by the API server itself (strategy None). The testbed
 * uses the storage version (v1beta2) only.
 */
export function crdsWithoutConversion(text: string): string {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .filter((crd): crd is { kind: string; spec: Record<string, unknown> } => {
      return (
        typeof crd === "object" &&
        crd !== null &&
        (crd as { kind?: unknown }).kind === "CustomResourceDefinition"
      );
    })
    .map((crd) => {
      delete crd.spec.conversion;
      return JSON.stringify(crd);
    })
    .join("\n---\n");
}

export const TOOL_MODULES: readonly ToolModule[] = [
  {
    dir: "etcd",
    module: "go.etcd.io/etcd/server/v3",
    binaries: { etcd: "go.etcd.io/etcd/server/v3" },
    ldflags: () => [],
  },
  {
    dir: "kwok",
    module: "sigs.k8s.io/kwok",
    binaries: { kwok: "sigs.k8s.io/kwok/cmd/kwok" },
    ldflags: (v) => [`-X sigs.k8s.io/kwok/pkg/consts.Version=${v.replace(/^v/, "")}`],
    assets: { "kwok-stages.yaml": { module: "sigs.k8s.io/kwok", files: KWOK_STAGES, edit: holdableStages } },
  },
  {
    dir: "helm",
    module: "helm.sh/helm/v4",
    binaries: { helm: "helm.sh/helm/v4/cmd/helm" },
    ldflags: (v) => [`-X helm.sh/helm/v4/internal/version.version=${v}`],
  },
  {
    dir: "kubernetes",
    module: "k8s.io/kubernetes",
    binaries: {
      "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
      "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
      "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
      kubectl: "k8s.io/kubernetes/cmd/kubectl",
    },
    ldflags: kubeVersionFlags,
  },
  {
    dir: "kueue",
    module: "sigs.k8s.io/kueue",
    binaries: { kueue: "sigs.k8s.io/kueue/cmd/kueue" },
    ldflags: (v) => [`-X sigs.k8s.io/kueue/pkg/version.GitVersion=${v}`],
    assets: {
      "kueue-crds.yaml": {
        module: "sigs.k8s.io/kueue",
        files: ["config/components/crd/bases/"],
        edit: crdsWithoutConversion,
      },
      // Rewritten when Kueue starts (testbed/kueue.ts): which webhooks, where, and with which CA.
      "kueue-webhooks.yaml": {
        module: "sigs.k8s.io/kueue",
        files: ["config/components/webhook/manifests.yaml"],
      },
      // The version Kueue's go.mod requires, so the CRD matches the client Kueue was built with.
      "provisioningrequest-crd.yaml": {
        module: "k8s.io/autoscaler/cluster-autoscaler/apis",
        files: ["config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml"],
        edit: crdsWithoutConversion,
      },
    },
  },
  {
    dir: "karpenter",
    module: "sigs.k8s.io/karpenter",
    // Karpenter's kwok provider: real Karpenter whose "cloud" creates kwok Nodes (testbed/karpenter.ts).
    binaries: { karpenter: "sigs.k8s.io/karpenter/kwok" },
    ldflags: (v) => [`-X sigs.k8s.io/karpenter/pkg/operator.Version=${v}`],
    assets: {
      // NodePool, NodeClaim, NodeOverlay, CapacityBuffer and the kwok provider's KWOKNodeClass, as the
      // module ships them (no conversion webhooks to remove).
      "karpenter-crds.yaml": {
        module: "sigs.k8s.io/karpenter",
        files: ["pkg/apis/crds/", "kwok/apis/crds/"],
      },
    },
  },
  {
    dir: "cluster-api",
    module: "sigs.k8s.io/cluster-api",
    // The core controller manager (Cluster, MachineDeployment, MachineSet, Machine controllers and their
    // webhooks), run beside the testbed with a kwok-backed infrastructure provider (testbed/cluster-api.ts).
    binaries: { "cluster-api": "sigs.k8s.io/cluster-api/core" },
    ldflags: (v) => {
      const [major, minor] = v.replace(/^v/, "").split(".");
      const vars = { gitVersion: v, gitMajor: major ?? "", gitMinor: minor ?? "", gitTreeState: "clean" };
      return Object.entries(vars).map(([key, value]) => `-X sigs.k8s.io/cluster-api/version.${key}=${value}`);
    },
    assets: {
      // Every core CRD (the manager starts controllers for ClusterResourceSets, MachinePools, IPAM and
      // ExtensionConfigs too, which wait for theirs); the testbed uses v1beta2 only.
      "cluster-api-crds.yaml": {
        module: "sigs.k8s.io/cluster-api",
        files: ["core/config/crd/bases/"],
        edit: crdsWithoutConversion,
      },
      // Rewritten when Cluster API starts (cluster-api-manifests.ts): which webhooks, where, which CA.
      "cluster-api-webhooks.yaml": {
        module: "sigs.k8s.io/cluster-api",
        files: ["core/config/webhook/manifests.yaml"],
      },
    },
  },
];
