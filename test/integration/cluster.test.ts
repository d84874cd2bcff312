// Proves the testbed is a real cluster: the controller-manager, scheduler and kwok nodes do their jobs.
import * as k8s from "@kubernetes/client-node";
import { createTestNamespace, eventually, kubeConfig } from "../support/kube.js";

const kc = kubeConfig();
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);
let ns: Awaited<ReturnType<typeof createTestNamespace>>;

beforeAll(async () => {
  ns = await createTestNamespace("cluster");
});
afterAll(async () => {
  await ns.remove();
});

test("four Ready kwok nodes, each with 8 nvidia.com/gpu", async () => {
  const nodes = await core.listNode();
  const kwok = nodes.items.filter((n) => n.metadata?.annotations?.["kwok.x-k8s.io/node"] === "fake");
  expect(kwok).toHaveLength(4);
  for (const node of kwok) {
    expect(node.status?.allocatable?.["nvidia.com/gpu"]).toBe("8");
    expect(node.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  }
});

test("a Deployment scaled to 3 gets 3 Ready pods on kwok nodes", async () => {
  const labels = { app: "web" };
  await apps.createNamespacedDeployment({
    namespace: ns.name,
    body: {
      metadata: { name: "web" },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: "web", image: "registry.invalid/web:1" }] },
        },
      },
    },
  });
  await apps.patchNamespacedDeploymentScale(
    { name: "web", namespace: ns.name, body: { spec: { replicas: 3 } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
  await eventually("3 ready replicas", async () => {
    const d = await apps.readNamespacedDeployment({ name: "web", namespace: ns.name });
    return d.status?.readyReplicas === 3 ? d : undefined;
  });
  const pods = await core.listNamespacedPod({ namespace: ns.name, labelSelector: "app=web" });
  expect(pods.items).toHaveLength(3);
  for (const pod of pods.items) {
    expect(pod.spec?.nodeName).toMatch(/^kwok-node-\d$/);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  }
});

test("a pod asking for more GPUs than any node has stays Pending as Unschedulable", async () => {
  await core.createNamespacedPod({
    namespace: ns.name,
    body: {
      metadata: { name: "too-big" },
      spec: {
        containers: [
          {
            name: "train",
            image: "registry.invalid/train:1",
            resources: { limits: { "nvidia.com/gpu": "9" } },
          },
        ],
      },
    },
  });
  const condition = await eventually("a PodScheduled=False condition", async () => {
    const pod = await core.readNamespacedPod({ name: "too-big", namespace: ns.name });
    return pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  });
  expect(condition.reason).toBe("Unschedulable");
  expect(condition.message).toMatch(/Insufficient nvidia\.com\/gpu/);
  const pod = await core.readNamespacedPod({ name: "too-big", namespace: ns.name });
  expect(pod.status?.phase).toBe("Pending");
  expect(pod.spec?.nodeName).toBeUndefined();
});
