// Helpers for groups over Deployments, zonal (spec.zone) or regional (spec.region), for tests that
// need both flavours of the REST API. resize.ts's createGroup only makes zonal StatefulSet groups.
import { GROUP, INSTANCE_GROUP_MANAGER, VERSION } from "../../src/api/names.js";
import { apps, custom } from "./resize.js";

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

/** Where a group lives: exactly one of a zone or a region (DESIGN §3.1). */
export type Location = { readonly zone: string } | { readonly region: string };

/** A group over the Deployment of the same name, at `location`. */
export async function createDeploymentGroup(
  namespace: string,
  name: string,
  location: Location,
  spec: Record<string, unknown> = {},
): Promise<void> {
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: INSTANCE_GROUP_MANAGER.plural,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: INSTANCE_GROUP_MANAGER.kind,
      metadata: { name },
      spec: { ...location, targetRef: { apiVersion: "apps/v1", kind: "Deployment", name }, ...spec },
    },
  });
}
