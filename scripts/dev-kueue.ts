// `npm run dev -- --kueue`: beside the local operator, the real Kueue (after the ProvisioningRequest CRD,
// which both Kueue and the operator read at start-up) and the testbed's node pool controller, with the
// sample of manifests/samples/kueue/ (a NodePool, its group — whose owner lets the ProvisioningRequests
// of its namespace draw on it, which no group does by default — and Kueue's queue objects).
// docs/kueue.md walks through it.
import type { ClusterState } from "../testbed/cluster.js";
import { startKueue } from "../testbed/kueue.js";
import { startNodePoolController } from "../testbed/node-pool.js";
import type { Toolchain } from "../testbed/tools.js";

export const KUEUE_FLAG = "--kueue";
export const KUEUE_SAMPLES = "manifests/samples/kueue/";

export const wantsKueue = (argv: readonly string[]): boolean => argv.includes(KUEUE_FLAG);

/** Starts Kueue and the node pool controller (both idempotent: a running one is reused). */
export async function startDevKueue(
  cluster: ClusterState,
  tools: Toolchain,
  say: (line: string) => void,
): Promise<void> {
  const log = (m: string): void => {
    say(`[dev] ${m}`);
  };
  await startKueue({ dir: cluster.dir, kubeconfig: cluster.kubeconfig, tools, log });
  await startNodePoolController({ dir: cluster.dir, kubeconfig: cluster.kubeconfig, log });
}

/** What to try, printed with the rest of `npm run dev`'s summary. */
export const KUEUE_TRY = [
  "Kueue (docs/kueue.md): a Job on the sample LocalQueue gets its 4 GPU nodes through a ProvisioningRequest:",
  "  npm run kubectl -- create -f manifests/samples/kueue/jobs/train.yaml",
  "  npm run kubectl -- get provisioningrequests,rr,workloads,nodes",
];
