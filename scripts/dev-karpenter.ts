// `npm run dev -- --karpenter`: beside the local operator, the real Karpenter (its kwok provider,
// testbed/karpenter.ts, started by dev.ts) and the static NodePool `static-gpu` of
// manifests/samples/karpenter/, whose nodes appear when it is scaled through /scale. docs/karpenter.md
// describes it.
export const KARPENTER_FLAG = "--karpenter";
/** The sample NodePool; its group (instancegroupmanager.yaml beside it) is not applied by dev. */
export const KARPENTER_SAMPLES = "manifests/samples/karpenter/static-gpu.yaml";

/** What to try, printed with the rest of `npm run dev`'s summary. */
export const KARPENTER_TRY = [
  "Karpenter (docs/karpenter.md): the static NodePool static-gpu adds gpu-8x nodes when scaled:",
  "  npm run kubectl -- scale nodepool.karpenter.sh/static-gpu --replicas=2",
  "  npm run kubectl -- get nodepools.karpenter.sh,nodeclaims",
  "  npm run kubectl -- get nodes -l karpenter.sh/nodepool=static-gpu",
];
