// Helpers for tests of the resize controller: typed access to groups, requests and their targets.
import * as k8s from "@kubernetes/client-node";
import { GROUP, INSTANCE_GROUP_MANAGER, RESIZE_REQUEST, VERSION } from "../../src/api/names.js";
import type { ResizeRequest } from "../../src/api/resize-request.js";
import type { InstanceGroupManager } from "../../src/api/instance-group-manager.js";
import { eventually, kubeConfig } from "./kube.js";

const kc = kubeConfig();
export const custom = kc.makeApiClient(k8s.CustomObjectsApi);
export const apps = kc.makeApiClient(k8s.AppsV1Api);
export const core = kc.makeApiClient(k8s.CoreV1Api);
const merge = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);

type Json = Record<string, unknown>;

/** A StatefulSet of fake workers; `gpus` per pod (0: none; more than a node has: unschedulable). */
export async function createWorkers(namespace: string, name: string, gpus = 1, replicas = 0): Promise<void> {
  const labels = { app: name };
  await apps.createNamespacedStatefulSet({
    namespace,
    body: {
      metadata: { name },
      spec: {
        replicas,
        serviceName: name,
        podManagementPolicy: "Parallel",
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: "worker",
                image: "registry.invalid/worker:1",
                ...(gpus > 0 && { resources: { limits: { "nvidia.com/gpu": String(gpus) } } }),
              },
            ],
          },
        },
      },
    },
  });
}

export async function createGroup(namespace: string, name: string, spec: Json): Promise<void> {
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: INSTANCE_GROUP_MANAGER.plural,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: INSTANCE_GROUP_MANAGER.kind,
      metadata: { name },
      // Zonal in local-a unless the test gives a region (a group has exactly one of the two).
      spec: {
        ...("region" in spec ? {} : { zone: "local-a" }),
        targetRef: { apiVersion: "apps/v1", kind: "StatefulSet", name },
        ...spec,
      },
    },
  });
}

export async function createRequest(namespace: string, name: string, spec: Json): Promise<void> {
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: RESIZE_REQUEST.plural,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: RESIZE_REQUEST.kind, metadata: { name }, spec },
  });
}

export async function getRequest(namespace: string, name: string): Promise<ResizeRequest> {
  return (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: RESIZE_REQUEST.plural,
    name,
  })) as ResizeRequest;
}

export async function getGroup(namespace: string, name: string): Promise<InstanceGroupManager> {
  return (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: INSTANCE_GROUP_MANAGER.plural,
    name,
  })) as InstanceGroupManager;
}

export async function cancelRequest(namespace: string, name: string): Promise<void> {
  await custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace,
      plural: RESIZE_REQUEST.plural,
      name,
      body: { spec: { cancel: true } },
    },
    merge,
  );
}

/** Sets labels on a group (a change its watchers see, and nothing else). */
export async function labelGroup(
  namespace: string,
  name: string,
  labels: Record<string, string>,
): Promise<void> {
  await custom.patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace,
      plural: INSTANCE_GROUP_MANAGER.plural,
      name,
      body: { metadata: { labels } },
    },
    merge,
  );
}

export async function deleteRequest(namespace: string, name: string): Promise<void> {
  await custom.deleteNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: RESIZE_REQUEST.plural,
    name,
  });
}

export async function replicasOf(
  namespace: string,
  name: string,
): Promise<{ replicas: number; ready: number }> {
  const sts = await apps.readNamespacedStatefulSet({ namespace, name });
  return { replicas: sts.spec?.replicas ?? 0, ready: sts.status?.readyReplicas ?? 0 };
}

/** Waits until the request's state is one of `states` and returns the request. */
export function untilState(
  namespace: string,
  name: string,
  states: readonly string[],
  timeoutMs = 60_000,
): Promise<ResizeRequest> {
  return eventually(
    `${namespace}/${name} in ${states.join("|")}`,
    async () => {
      const rr = await getRequest(namespace, name);
      return states.includes(rr.status?.state ?? "") ? rr : undefined;
    },
    timeoutMs,
  );
}

export async function listRequests(namespace: string): Promise<ResizeRequest[]> {
  const list = (await custom.listNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: RESIZE_REQUEST.plural,
  })) as { items: ResizeRequest[] };
  return list.items;
}
