// REST authentication's audience rule: a TokenReview asks for the configured audiences, and only an
// answer that names one of them (status.audiences) authenticates the caller.
import { loadConfig } from "../../../src/config.js";
import {
  Authenticator,
  Authorizer,
  DEFAULT_TOKEN_AUDIENCE,
  reviewedForAudience,
} from "../../../src/rest/auth.js";
import { BackendError, ForbiddenError, UnauthenticatedError } from "../../../src/rest/errors.js";
import type { TokenReview } from "../../../src/runtime/builtin-kinds.js";
import { reviewingClient } from "../../support/fake-reviews.js";

/** A cluster answering every TokenReview with `answer(spec)`, keeping the specs it was asked. */
function reviewingCluster(answer: (spec: TokenReview["spec"]) => TokenReview["status"]) {
  return reviewingClient((spec) => answer(spec as TokenReview["spec"]));
}

const ANN = { username: "system:serviceaccount:team-a:ann", groups: ["system:serviceaccounts"] };

test.each([
  { answered: ["resize-operator"], asked: ["resize-operator"], ok: true },
  { answered: ["b"], asked: ["a", "b"], ok: true },
  { answered: ["https://kubernetes.default.svc.cluster.local"], asked: ["resize-operator"], ok: false },
  { answered: [], asked: ["resize-operator"], ok: false },
  { answered: null, asked: ["resize-operator"], ok: false },
  { answered: undefined, asked: ["resize-operator"], ok: false },
])("reviewedForAudience(answered $answered, asked $asked) is $ok", ({ answered, asked, ok }) => {
  expect(reviewedForAudience({ audiences: answered }, asked)).toBe(ok);
});

test("the review asks for resize-operator by default, and a token valid for it authenticates", async () => {
  const cluster = reviewingCluster((spec) => ({ authenticated: true, user: ANN, audiences: spec.audiences }));
  const user = await new Authenticator(cluster.client).authenticate("Bearer t1");
  expect(user.username).toBe(ANN.username);
  expect(cluster.asked).toEqual([{ token: "t1", audiences: [DEFAULT_TOKEN_AUDIENCE] }]);
});

test.each([
  {
    case: "a token for another audience",
    status: { authenticated: false, error: "token audiences [x] is invalid" },
  },
  {
    case: "a reviewer that ignored the audiences",
    status: { authenticated: true, user: ANN, audiences: [] },
  },
  {
    case: "a reviewer that names another audience",
    status: { authenticated: true, user: ANN, audiences: ["x"] },
  },
])("$case is refused with 401 naming the audiences and the command", async ({ status }) => {
  const cluster = reviewingCluster(() => status);
  const auth = new Authenticator(cluster.client, { audiences: ["resize-operator", "other"] });
  const err = await auth.authenticate("Bearer t2").catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnauthenticatedError);
  expect((err as UnauthenticatedError).message).toBe(
    "Request had invalid authentication credentials. Expected a Kubernetes token for one of the audiences resize-operator, other (kubectl create token NAME --audience=resize-operator).",
  );
  expect(cluster.asked).toEqual([{ token: "t2", audiences: ["resize-operator", "other"] }]);
});

describe("--token-audiences (TOKEN_AUDIENCES)", () => {
  test.each([
    { given: undefined, audiences: ["resize-operator"] },
    {
      given: "resize-operator, https://kubernetes.default.svc.cluster.local",
      audiences: ["resize-operator", "https://kubernetes.default.svc.cluster.local"],
    },
    { given: "a,,a, b", audiences: ["a", "b"] },
  ])("$given → $audiences", ({ given, audiences }) => {
    const env = given === undefined ? {} : { TOKEN_AUDIENCES: given };
    expect(loadConfig([], env)["token-audiences"]).toEqual(audiences);
  });

  test("the flag wins over the environment, and an empty list is refused", () => {
    expect(loadConfig(["--token-audiences=flag"], { TOKEN_AUDIENCES: "env" })["token-audiences"]).toEqual([
      "flag",
    ]);
    expect(() => loadConfig(["--token-audiences= , "], {})).toThrow(
      /--token-audiences needs at least one audience/,
    );
  });
});

describe("a denial while the API server is not ready (linearizability V8)", () => {
  const check = { verb: "update", resource: "resizerequests", namespace: "team-a" };
  const user = { ...ANN, extra: {} };
  const denying = (): ReturnType<typeof reviewingClient> => reviewingClient(() => ({ allowed: false }));

  test("is 503 backendError, which clients retry, not a 403 they take as final", async () => {
    const authorizer = new Authorizer(denying().client, { apiServerReady: () => Promise.resolve(false) });
    await expect(authorizer.authorize(user, check)).rejects.toMatchObject({
      status: 503,
      reason: "backendError",
    });
  });

  test("a failed readiness probe counts as not ready", async () => {
    const authorizer = new Authorizer(denying().client, {
      apiServerReady: () => Promise.reject(new Error("connect ECONNREFUSED")),
    });
    await expect(authorizer.authorize(user, check)).rejects.toBeInstanceOf(BackendError);
  });

  test("from a ready API server it is 403, and an allowed call never asks", async () => {
    let asked = 0;
    const ready = (): Promise<boolean> => {
      asked++;
      return Promise.resolve(true);
    };
    await expect(
      new Authorizer(denying().client, { apiServerReady: ready }).authorize(user, check),
    ).rejects.toBeInstanceOf(ForbiddenError);
    expect(asked).toBe(1);
    const allowing = reviewingClient(() => ({ allowed: true }));
    await new Authorizer(allowing.client, { apiServerReady: ready }).authorize(user, check);
    expect(asked).toBe(1);
  });
});
