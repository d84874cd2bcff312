// The dashboard's RBAC answers: cached per identity and check, and asked of the operator's Authorizer,
// the one REST uses, so --token-cache-ttl holds for the dashboard too.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { NotFoundError } from "../../../src/rest/errors.js";
import type { AccessCheck, UserInfo } from "../../../src/rest/auth.js";
import { onCluster, reviewingCluster } from "../../support/reviewing-cluster.js";

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

describe("who sees what (visibility.ts, asked through DashboardAuthz)", () => {
  /** A cluster that allows exactly the resource attributes listed (as JSON), recording every review. */
  function allowing(...allowed: object[]) {
    const asked: object[] = [];
    const cluster = reviewingCluster((review) => {
      const attributes = review.spec?.resourceAttributes ?? {};
      asked.push(attributes);
      return allowed.some((a) => JSON.stringify(a) === JSON.stringify(attributes));
    });
    return { ...onCluster(cluster, 60_000), asked };
  }

  test.each([
    { shown: "request", asks: { group: "compute.resize-operator.dev", resource: "resizerequests" } },
    { shown: "group", asks: { group: "compute.resize-operator.dev", resource: "instancegroupmanagers" } },
    { shown: "booking", asks: { group: "compute.resize-operator.dev", resource: "futurereservations" } },
    // The core group's events: what `kubectl auth can-i list events` answers.
    { shown: "event", asks: { group: "", resource: "events" } },
  ] as const)(
    "$shown: list $asks.resource of group '$asks.group' in the namespace",
    async ({ shown, asks }) => {
      const { authz, asked } = allowing({ ...asks, verb: "list", namespace: "team-a" });
      await expect(authz.sees(ANN, shown, "team-a")).resolves.toBe(true);
      await expect(authz.sees(ANN, shown, "team-b")).resolves.toBe(false);
      await expect(authz.visible(ANN, ["team-a", "team-b"], shown)).resolves.toEqual(new Set(["team-a"]));
      expect(asked).toEqual([
        { ...asks, verb: "list", namespace: "team-a" },
        { ...asks, verb: "list", namespace: "team-b" },
      ]);
    },
  );

  test("listing requests does not show Events, nor the other way round", async () => {
    const { authz } = allowing({
      group: "compute.resize-operator.dev",
      resource: "resizerequests",
      verb: "list",
      namespace: "team-a",
    });
    await expect(authz.sees(ANN, "request", "team-a")).resolves.toBe(true);
    await expect(authz.sees(ANN, "event", "team-a")).resolves.toBe(false);
  });

  test("find: a missing object and one the caller may not get are the same NotFoundError", async () => {
    const getR1 = {
      group: "compute.resize-operator.dev",
      resource: "resizerequests",
      verb: "get",
      namespace: "team-a",
      name: "r1",
    };
    const looked: string[] = [];
    const cached = (exists: boolean) => () => {
      looked.push(exists ? "present" : "missing");
      return exists ? { name: "r1" } : undefined;
    };
    const mayGet = allowing(getR1).authz;
    const mayNot = allowing().authz;
    await expect(mayGet.find(ANN, "request", "team-a", "r1", cached(true))).resolves.toEqual({ name: "r1" });
    const failure = (found: Promise<unknown>) =>
      found.then(
        () => new Error("found"),
        (err: unknown) => err,
      );
    const missing = await failure(mayGet.find(ANN, "request", "team-a", "r1", cached(false)));
    const hidden = await failure(mayNot.find(ANN, "request", "team-a", "r1", cached(true)));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(hidden).toBeInstanceOf(NotFoundError);
    expect(hidden).toEqual(missing);
    expect((hidden as Error).message).toBe("Resize request team-a/r1 not found.");
    // Whoever may not get the object does not even have the cache read for it.
    expect(looked).toEqual(["present", "missing"]);
    await expect(mayNot.find(ANN, "group", "team-a", "g", () => ({}))).rejects.toThrow(
      "Group team-a/g not found.",
    );
  });
});
