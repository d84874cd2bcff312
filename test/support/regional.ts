// Helpers for groups over Deployments (zonal or regional with resize.ts's createGroup), for tests that
// need both flavours of the REST API.
import { apps } from "./resize.js";

/** A Deployment of fake workers with no resource requests: kwok nodes make its pods ready at once. */
export async function createDeployment(namespace: string, name: string, replicas = 0): Promise<void> {
  const labels = { app: name };
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: "worker", image: "registry.invalid/worker:1" }] },
        },
      },
    },
  });
}

/** The targetRef of a group over the Deployment `name` (resize.ts's createGroup defaults to a StatefulSet). */
export const deployment = (name: string) => ({ apiVersion: "apps/v1", kind: "Deployment", name });
