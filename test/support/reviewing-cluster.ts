// A cluster that answers SubjectAccessReviews only, as the test decides, and the dashboard's authz on
// the operator's Authorizer over it: for the unit tests of what RBAC lets the dashboard show.
import { DashboardAuthz } from "../../src/dashboard/authz.js";
import { clusterAuth } from "../../src/operator.js";
import type { Addressable, KubeClient, ResourceClient } from "../../src/runtime/resource-client.js";
import type { ResourceKind } from "../../src/runtime/resource-kind.js";
import { FakeClock } from "./fake-clock.js";

/** What the Authorizer asks in a SubjectAccessReview, as far as the tests read it. */
export interface Review {
  readonly spec?: { readonly user?: string; readonly resourceAttributes?: object };
}

/** A cluster answering every SubjectAccessReview with `allowed(review)`, counting them. */
export function reviewingCluster(allowed: (review: Review) => boolean | Error): {
  client: KubeClient;
  reviews: () => number;
} {
  let reviews = 0;
  const unused = (): Promise<never> => Promise.reject(new Error("not used by the Authorizer"));
  const client: KubeClient = {
    resource: <T extends Addressable>(kind: ResourceKind<T>): ResourceClient<T> => ({
      kind,
      create: async (review) => {
        reviews++;
        await Promise.resolve();
        const answer = allowed(review as Review);
        if (answer instanceof Error) throw answer;
        return kind.schema.parse({ ...review, status: { allowed: answer } });
      },
      get: unused,
      list: unused,
      update: unused,
      updateStatus: unused,
      mergePatch: unused,
      delete: unused,
    }),
    serverResources: () => Promise.resolve(undefined),
  };
  return { client, reviews: () => reviews };
}

/** The dashboard's authz on the operator's Authorizer (--token-cache-ttl=`tokenCacheTtl`) over `cluster`. */
export function onCluster(cluster: { client: KubeClient }, tokenCacheTtl: number, ttlMs?: number) {
  const clock = new FakeClock();
  const { authorizer } = clusterAuth(cluster.client, { "token-cache-ttl": tokenCacheTtl }, clock);
  const authz = new DashboardAuthz(authorizer, { clock, ...(ttlMs !== undefined && { ttlMs }) });
  return { clock, authorizer, authz };
}
