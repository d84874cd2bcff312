// Helpers for integration tests: API clients for the test cluster's admin identity and a fresh
// namespace per test file.
import * as k8s from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { GROUP, RESIZE_REQUEST, VERSION } from "../../src/api/names.js";
import { dependentsReport, dependentsRestarted, restartDependents } from "../../testbed/components.js";

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

/**
 * Waits (up to `timeoutMs`) until no namespace is Terminating: a file that deleted a namespace holding
 * a thousand objects leaves the controller-manager, the scheduler and kwok busy with it for a while,
 * and a test that measures how long attempts take must not take its figures from that. Past the bound
 * it goes on with a line on stderr naming them; the measurement decides then.
 */
export async function untilNamespacesSettled(timeoutMs = 120_000): Promise<void> {
  const core = kubeConfig().makeApiClient(k8s.CoreV1Api);
  await eventually(
    "no namespace Terminating",
    async () => {
      const terminating = (await core.listNamespace()).items.filter((n) => n.status?.phase === "Terminating");
      if (terminating.length === 0) return true;
      throw new Error(`still Terminating: ${terminating.map((n) => n.metadata?.name ?? "").join(", ")}`);
    },
    timeoutMs,
  ).catch((err: unknown) => {
    console.warn(`[cluster] ${err instanceof Error ? err.message : String(err)}`);
  });
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

/** Taints the node lifecycle controller puts on a node whose kubelet (here kwok) stopped reporting. */
const UNHEALTHY_TAINTS = new Set(["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]);

/**
 * After a test restarted the shared API server: waits until its controller-manager and scheduler run
 * again, every node is Ready without an unreachable/not-ready taint, and a new ReplicaSet gets a
 * ready pod (the replica-set controller, the scheduler and kwok all at work), so the next test file
 * finds the cluster as it was: in one CI run every StatefulSet of the files after an outage test
 * stalled with all nodes Ready. When no pod runs within a minute, the dependents are restarted (kwok
 * too) and the check repeats, as an operator of a real control plane would; each round's state is
 * written to stderr, and the final error says which component is not running and why.
 */
export async function untilClusterRecovered(): Promise<void> {
  await dependentsRestarted();
  const dir = process.env.TESTBED_DIR;
  if (!dir) throw new Error("TESTBED_DIR is not set: integration tests must run under the jest global setup");
  const kc = kubeConfig();
  for (let round = 1; ; round++) {
    try {
      await untilNodesHealthy(kc);
      await untilAPodRuns(kc);
      return;
    } catch (err) {
      const state = `${err instanceof Error ? err.message : String(err)}\n${dependentsReport(dir)}`;
      if (round === 3) throw new Error(`the cluster did not recover: ${state}`, { cause: err });
      process.stderr.write(
        `[testbed] cluster not recovered (round ${round}); restarting its dependents:\n${state}\n`,
      );
      await restartDependents(dir, { kwok: true });
    }
  }
}

async function untilNodesHealthy(kc: k8s.KubeConfig): Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await eventually(
    "every node Ready and untainted",
    async () => {
      const nodes = (await core.listNode()).items;
      const sick = nodes.filter(
        (n) =>
          !n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ||
          (n.spec?.taints ?? []).some((t) => UNHEALTHY_TAINTS.has(t.key)),
      );
      if (nodes.length > 0 && sick.length === 0) return true;
      throw new Error(`not recovered: ${sick.map((n) => n.metadata?.name ?? "").join(", ")}`);
    },
    120_000,
  );
}

/** Creates a one-replica ReplicaSet in `default`, waits for its pod to be ready, and deletes it. */
async function untilAPodRuns(kc: k8s.KubeConfig): Promise<void> {
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  // Its own label: a previous probe's pods, still terminating, are never adopted.
  const labels = { app: "recovery-probe", probe: String(Date.now()) };
  const created = await apps.createNamespacedReplicaSet({
    namespace: "default",
    body: {
      metadata: { generateName: "recovery-probe-" },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: "probe", image: "registry.invalid/probe:1" }] },
        },
      },
    },
  });
  const name = created.metadata?.name ?? "";
  try {
    await eventually(
      `a pod of ReplicaSet default/${name} ready (replica-set controller, scheduler and kwok at work)`,
      async () => {
        const rs = await apps.readNamespacedReplicaSet({ name, namespace: "default" });
        if ((rs.status?.readyReplicas ?? 0) >= 1) return true;
        throw new Error(
          `readyReplicas ${rs.status?.readyReplicas ?? 0}, replicas ${rs.status?.replicas ?? 0}`,
        );
      },
      60_000,
    );
  } finally {
    await apps
      .deleteNamespacedReplicaSet({ name, namespace: "default", propagationPolicy: "Foreground" })
      .catch(() => undefined);
  }
}
