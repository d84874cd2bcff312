// A cluster that answers SubjectAccessReviews as the test decides (fake-reviews.ts), and the dashboard's authz on
// the operator's Authorizer over it: for the unit tests of what RBAC lets the dashboard show.
import { DashboardAuthz } from "../../src/dashboard/authz.js";
import { clusterAuth } from "../../src/operator.js";
import type { KubeClient } from "../../src/runtime/resource-client.js";
import { FakeClock } from "./fake-clock.js";
import { reviewingClient } from "./fake-reviews.js";

/** What the Authorizer asks in a SubjectAccessReview, as far as the tests read it. */
export interface Review {
  readonly spec?: { readonly user?: string; readonly resourceAttributes?: object };
}

/** A cluster answering every SubjectAccessReview with `allowed(review)`, counting them. */
export function reviewingCluster(allowed: (review: Review) => boolean | Error): {
  client: KubeClient;
  reviews: () => number;
} {
  const { client, asked } = reviewingClient((spec) => {
    const answer = allowed({ spec } as Review);
    return answer instanceof Error ? answer : { allowed: answer };
  });
  return { client, reviews: () => asked.length };
}

/** The dashboard's authz on the operator's Authorizer (--token-cache-ttl=`tokenCacheTtl`) over `cluster`. */
export function onCluster(cluster: { client: KubeClient }, tokenCacheTtl: number, ttlMs?: number) {
  const clock = new FakeClock();
  const { authorizer } = clusterAuth(
    cluster.client,
    { "token-cache-ttl": tokenCacheTtl, "token-audiences": ["resize-operator"] },
    clock,
  );
  const authz = new DashboardAuthz(authorizer, { clock, ...(ttlMs !== undefined && { ttlMs }) });
  return { clock, authorizer, authz };
}
