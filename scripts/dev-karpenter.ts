// `npm run dev -- --karpenter`: beside the local operator, the real Karpenter (its kwok provider,
// testbed/karpenter.ts, started by dev.ts) and the static NodePool `static-gpu` of
// manifests/samples/karpenter/ with its group (instancegroupmanager.yaml: a ResizeRequest naming it scales
// the pool). With `--kueue` too, manifests/samples/kueue-karpenter/ adds Kueue's queue over that pool: a
// Job on the LocalQueue static-gpu gets its nodes from Karpenter through a ProvisioningRequest of ours.
// docs/karpenter.md describes both.
export const KARPENTER_FLAG = "--karpenter";
/** The sample NodePool and its group (`kubectl apply -f` of the folder). */
export const KARPENTER_SAMPLES = "manifests/samples/karpenter/";

/** What to try, printed with the rest of `npm run dev`'s summary. */
export const KARPENTER_TRY = [
  "Karpenter (docs/karpenter.md): the static NodePool static-gpu adds gpu-8x nodes when scaled:",
  "  npm run kubectl -- scale nodepool.karpenter.sh/static-gpu --replicas=2",
  "  npm run kubectl -- get nodepools.karpenter.sh,nodeclaims",
  "  npm run kubectl -- get nodes -l karpenter.sh/nodepool=static-gpu",
  "  its group static-gpu (namespace default) takes ResizeRequests: kubectl resize / REST / the dashboard",
];

/** Kueue's queue over the Karpenter pool (with both `--kueue` and `--karpenter`), applied after both samples. */
export const KUEUE_KARPENTER_SAMPLES = "manifests/samples/kueue-karpenter/";

export const KUEUE_KARPENTER_TRY = [
  "Kueue on Karpenter (docs/karpenter.md): a Job on the LocalQueue static-gpu gets 4 Karpenter nodes:",
  "  npm run kubectl -- create -f manifests/samples/kueue-karpenter/jobs/train.yaml",
  "  npm run kubectl -- get workloads,provisioningrequests,rr",
  "  npm run kubectl -- get nodes -l karpenter.sh/nodepool=static-gpu",
];
