// Helpers for integration tests: API clients for the test cluster's admin identity and a fresh
// namespace per test file.
import * as k8s from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { GROUP, RESIZE_REQUEST, VERSION } from "../../src/api/names.js";

export function kubeConfig(): k8s.KubeConfig {
  const file = process.env.KUBECONFIG;
  if (!file) throw new Error("KUBECONFIG is not set: integration tests must run under the jest global setup");
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(file);
  return kc;
}

/** Creates a namespace for one test file; returns its name and a function that deletes it. */
export async function createTestNamespace(
  prefix: string,
): Promise<{ name: string; remove: () => Promise<void> }> {
  const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
  const ns = await core.createNamespace({ body: { metadata: { generateName: `${prefix}-` } } });
  const name = ns.metadata?.name;
  if (!name) throw new Error("namespace without a name");
  return {
    name,
    remove: async () => {
      await core.deleteNamespace({ name });
      // The test's operator is gone by now: requests still holding its finalizer would keep the
      // namespace Terminating for ever, and later tests that act on every namespace (the docs'
      // `kubectl delete rr --all -A --wait`) would wait on them.
      const custom = kubeConfig().makeApiClient(k8s.CustomObjectsApi);
      const api = { group: GROUP, version: VERSION, namespace: name, plural: RESIZE_REQUEST.plural };
      // Files that never installed the CRDs have no requests to clean up.
      const list = (await custom.listNamespacedCustomObject(api).catch(() => ({ items: [] }))) as {
        items?: { metadata?: { name?: string; finalizers?: string[] } }[];
      };
      for (const item of list.items ?? []) {
        if ((item.metadata?.finalizers ?? []).length === 0) continue;
        await custom
          .patchNamespacedCustomObject(
            { ...api, name: item.metadata?.name ?? "", body: { metadata: { finalizers: null } } },
            k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
          )
          .catch(() => undefined); // deleted meanwhile
      }
    },
  };
}

/** Polls `probe` until it returns a value other than undefined, or fails with the last observation. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
    await sleep(250);
  }
}
