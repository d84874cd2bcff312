// The local cluster's default StorageClass, as kind and minikube ship one: claims that name no class
// get a volume on the local disk. kube-controller-manager's in-tree host-path provisioner
// (`--enable-hostpath-provisioner`, meant for single-machine clusters like this one) creates each
// volume as a directory /tmp/hostpath_pv/<uuid> and removes it when the claim is deleted (reclaim
// policy Delete; its deleter only ever removes paths under /tmp/).

/** Added to kube-controller-manager's arguments. */
export const HOSTPATH_PROVISIONER_FLAG = "--enable-hostpath-provisioner=true";

export const DEFAULT_STORAGE_CLASS = "standard";

/** kind's name for its default class, so charts and docs written for kind work unchanged. */
export function defaultStorageClass(): object {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: {
      name: DEFAULT_STORAGE_CLASS,
      annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      labels: { "app.kubernetes.io/managed-by": "resize-operator-testbed" },
    },
    provisioner: "kubernetes.io/host-path",
    reclaimPolicy: "Delete",
    // Immediate: the host-path provisioner ignores topology, and kwok nodes all share this disk.
    volumeBindingMode: "Immediate",
  };
}
