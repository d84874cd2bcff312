// The dashboard's RBAC answers: cached per identity and check, and asked of the operator's Authorizer,
// the one REST uses, so --token-cache-ttl holds for the dashboard too.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DashboardAuthz } from "../../../src/dashboard/authz.js";
import { clusterAuth } from "../../../src/operator.js";
import type { AccessCheck, UserInfo } from "../../../src/rest/auth.js";
import type { Addressable, KubeClient, ResourceClient } from "../../../src/runtime/resource-client.js";
import type { ResourceKind } from "../../../src/runtime/resource-kind.js";
import { FakeClock } from "../../support/fake-clock.js";

/** A cluster answering every SubjectAccessReview with `allowed()`, counting them. */
function reviewingCluster(allowed: () => boolean | Error): { client: KubeClient; reviews: () => number } {
  let reviews = 0;
  const unused = (): Promise<never> => Promise.reject(new Error("not used by the Authorizer"));
  const client: KubeClient = {
    resource: <T extends Addressable>(kind: ResourceKind<T>): ResourceClient<T> => ({
      kind,
      create: async (review) => {
        reviews++;
        await Promise.resolve();
        const answer = allowed();
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
function onCluster(cluster: { client: KubeClient }, tokenCacheTtl: number, ttlMs?: number) {
  const clock = new FakeClock();
  const { authorizer } = clusterAuth(cluster.client, { "token-cache-ttl": tokenCacheTtl }, clock);
  const authz = new DashboardAuthz(authorizer, { clock, ...(ttlMs !== undefined && { ttlMs }) });
  return { clock, authorizer, authz };
}

const ANN: UserInfo = { username: "dashboard:ann@example.com", groups: ["dashboard:sre"], extra: {} };
const LIST: AccessCheck = { verb: "list", resource: "resizerequests", namespace: "team-a" };

describe("the dashboard on the operator's Authorizer", () => {
  test.each([
    // With the Authorizer's default of 10 s (the dashboard's own Authorizer before), 30 s would ask again.
    { allowed: true, ttl: 60_000, at: 30_000, reviews: 1 },
    { allowed: true, ttl: 60_000, at: 60_001, reviews: 2 },
    { allowed: true, ttl: 20_000, at: 15_000, reviews: 1 },
    { allowed: true, ttl: 6_000, at: 7_000, reviews: 2 },
    // The dashboard's own answers (denials included) last 5 s, or the flag's TTL where that is shorter.
    { allowed: false, ttl: 2_000, at: 2_000, reviews: 2 },
    { allowed: false, ttl: 2_000, at: 1_999, reviews: 1 },
    { allowed: false, ttl: 60_000, at: 5_000, reviews: 2 },
  ])(
    "--token-cache-ttl=$ttl ms: an answer (allowed: $allowed) asked again at $at ms costs $reviews review(s) in all",
    async ({ allowed, ttl, at, reviews }) => {
      const cluster = reviewingCluster(() => allowed);
      const { clock, authz } = onCluster(cluster, ttl);
      await expect(authz.can(ANN, LIST)).resolves.toBe(allowed);
      await clock.advance(at);
      await expect(authz.can(ANN, LIST)).resolves.toBe(allowed);
      expect(cluster.reviews()).toBe(reviews);
    },
  );

  test("REST and the dashboard share the one Authorizer's answers", async () => {
    const cluster = reviewingCluster(() => true);
    const { authorizer, authz } = onCluster(cluster, 60_000);
    await authorizer.authorize(ANN, LIST);
    await expect(authz.can(ANN, LIST)).resolves.toBe(true);
    expect(cluster.reviews()).toBe(1);
  });
});

test("the operator builds the one Authorizer: no other file makes its own (which would ignore the flag)", () => {
  const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src");
  const builders = readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .filter((file) => /new (Authorizer|Authenticator)\(/.test(readFileSync(path.join(src, file), "utf8")));
  expect(builders).toEqual(["operator.ts"]);
});

describe("DashboardAuthz", () => {
  test("a denial is an answer, cached for the dashboard's TTL", async () => {
    const cluster = reviewingCluster(() => false);
    const { clock, authz } = onCluster(cluster, 60_000, 5_000);
    await expect(authz.can(ANN, LIST)).resolves.toBe(false);
    await clock.advance(4_999);
    await expect(authz.can(ANN, LIST)).resolves.toBe(false);
    expect(cluster.reviews()).toBe(1);
    await clock.advance(1);
    await expect(authz.can(ANN, LIST)).resolves.toBe(false);
    expect(cluster.reviews()).toBe(2);
    await expect(authz.require(ANN, LIST)).rejects.toThrow("may not list resizerequests in team-a");
  });

  test("the live stream's concurrent checks of one identity cost one review", async () => {
    const cluster = reviewingCluster(() => true);
    const { authz } = onCluster(cluster, 1_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => authz.can(ANN, LIST)));
    expect(answers.every(Boolean)).toBe(true);
    expect(cluster.reviews()).toBe(1);
  });

  test("a failed review is not an answer: it rejects and is asked again", async () => {
    let down = true;
    const cluster = reviewingCluster(() => (down ? new Error("connect ECONNREFUSED") : true));
    const { authz } = onCluster(cluster, 1_000);
    await expect(authz.can(ANN, LIST)).rejects.toThrow("ECONNREFUSED");
    down = false;
    await expect(authz.can(ANN, LIST)).resolves.toBe(true);
    expect(cluster.reviews()).toBe(2);
  });

  test("visible: the candidate namespaces where the user may list", async () => {
    const cluster = reviewingCluster(() => true);
    const { authz } = onCluster(cluster, 1_000);
    await expect(authz.visible(ANN, ["a", "b", "a"], "request")).resolves.toEqual(new Set(["a", "b"]));
    expect(cluster.reviews()).toBe(2);
  });
});
