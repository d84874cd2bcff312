// What the Karpenter test files read of the cluster: the testbed's folder and kubeconfig, Nodes' Ready
// condition and a pool's NodeClaims (label-selected).
import * as k8s from "@kubernetes/client-node";
import { KARPENTER, UNREGISTERED_TAINT } from "../../testbed/karpenter-manifests.js";
import { kubeConfig } from "./kube.js";

const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);

export function testbedEnv(name: "TESTBED_DIR" | "KUBECONFIG"): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is set by the jest global setup`);
  return value;
}

export const isReadyNode = (n: k8s.V1Node): boolean =>
  n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** The NodeClaims matching `selector` (e.g. karpenter.sh/nodepool=<pool>). */
export async function nodeClaimsOf(selector: string): Promise<unknown[]> {
  const list = (await custom.listClusterCustomObject({
    ...KARPENTER,
    plural: "nodeclaims",
    labelSelector: selector,
  })) as { items: unknown[] };
  return list.items;
}

/**
 * Ready, registered (no `karpenter.sh/unregistered` taint) and not being deleted: a Node pods can be
 * placed on. The testbed's own pool's Nodes carry no such taint, so the same test reads both.
 */
export const isServingNode = (n: k8s.V1Node): boolean =>
  isReadyNode(n) &&
  !n.metadata?.deletionTimestamp &&
  !(n.spec?.taints ?? []).some((t) => t.key === UNREGISTERED_TAINT);
