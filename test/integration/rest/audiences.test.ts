// REST tokens and their audience, against the real API server: the operator's TokenReview asks for
// --token-audiences (default resize-operator) and accepts only an answer that names one of them, so a
// token made with `kubectl create token NAME --audience=resize-operator` works, while a token made for
// the API server itself (no --audience) or for another service gets a 401 with Google's error body.
// With the API server's own audience added to the flag, its tokens work too.
import { installApi, kubectl } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createWorkers } from "../../support/resize.js";
import type { RestOperator } from "../../support/rest.js";
import { call, fullAccess, googleError, serviceAccountToken, startRestOperator } from "../../support/rest.js";

let ns: { name: string; remove: () => Promise<void> };
let strict: RestOperator;
const processes: OperatorProcess[] = [];
/** Tokens of one ServiceAccount (RBAC allows it everything here), by the audience they are made for. */
const tokens: Record<"operator" | "apiServer" | "other", string> = { operator: "", apiServer: "", other: "" };
/** The API server's own audience, as it put it into a token made without --audience. */
let apiAudience = "";

const createToken = async (...audience: string[]): Promise<string> =>
  (await kubectl("-n", ns.name, "create", "token", "client", ...audience)).trim();

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("rest-audiences");
  await createWorkers(ns.name, "workers");
  await createGroup(ns.name, "workers", {});
  await serviceAccountToken(ns.name, "client", fullAccess());
  tokens.operator = await createToken("--audience=resize-operator");
  tokens.apiServer = await createToken();
  tokens.other = await createToken("--audience=some-other-service");
  const claims = JSON.parse(Buffer.from(tokens.apiServer.split(".")[1] ?? "", "base64url").toString()) as {
    aud: string[];
  };
  [apiAudience = ""] = claims.aud;
  expect(apiAudience).not.toBe("resize-operator");
  strict = await startRestOperator(ns.name, process.env.REDIS_URL ?? "");
  processes.push(strict.process);
});

afterAll(async () => {
  await stopAll(processes);
  await ns.remove();
});

const requests = (op: RestOperator) =>
  `${op.baseUrl}/compute/v1/projects/${ns.name}/zones/local-a/instanceGroupManagers/workers/resizeRequests`;

function expectUnauthenticated(reply: { status: number; body: unknown }): void {
  expect(reply.status).toBe(401);
  const error = googleError(reply);
  expect(error).toMatchObject({ code: 401, errors: [{ domain: "global", reason: "required" }] });
  expect(error.message).toContain("Expected a Kubernetes token for the audience resize-operator");
  expect(error.message).toContain("kubectl create token NAME --audience=resize-operator");
}

test("by default a token made with --audience=resize-operator is accepted, in the header and in access_token", async () => {
  expect((await call("GET", requests(strict), { token: tokens.operator })).status).toBe(200);
  const query = await fetch(`${requests(strict)}?access_token=${encodeURIComponent(tokens.operator)}`);
  expect(query.status).toBe(200);
});

test("by default a token for the API server, or for another service, is 401 with Google's error body", async () => {
  expectUnauthenticated(await call("GET", requests(strict), { token: tokens.apiServer }));
  expectUnauthenticated(await call("GET", requests(strict), { token: tokens.other }));
  // The refusal is about the audience: the same identity's operator token is let through.
  expect((await call("GET", requests(strict), { token: tokens.operator })).status).toBe(200);
});

test("--token-audiences=resize-operator,<the API server's> accepts both, and still no other service's", async () => {
  const both = await startRestOperator(ns.name, process.env.REDIS_URL ?? "", [
    `--token-audiences=resize-operator,${apiAudience}`,
  ]);
  processes.push(both.process);
  expect((await call("GET", requests(both), { token: tokens.operator })).status).toBe(200);
  expect((await call("GET", requests(both), { token: tokens.apiServer })).status).toBe(200);
  const other = await call("GET", requests(both), { token: tokens.other });
  expect(other.status).toBe(401);
  expect(googleError(other).message).toContain(`one of the audiences resize-operator, ${apiAudience}`);
});
