// Retention of finished requests on the local cluster: a finished request is deleted after its group's
// finishedRequestRetention (an Event records it), a request whose run-duration release is still due
// stays until its instances are released, and the operator's default applies to groups without one.
import { auth, compute, type compute_v1 } from "@googleapis/compute";
import { installApi, kubectl } from "../api/install.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { fullAccess, serviceAccountToken, startRestOperator, type RestOperator } from "../../support/rest.js";
import {
  createGroup,
  createRequest,
  createWorkers,
  getRequest,
  listRequests,
  replicasOf,
  untilState,
} from "../../support/resize.js";

let ns: Awaited<ReturnType<typeof createTestNamespace>>;
let operator: RestOperator;
let client: compute_v1.Compute;

const gone = async (name: string): Promise<true | undefined> =>
  (await listRequests(ns.name)).some((r) => r.metadata.name === name) ? undefined : true;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("retention");
  // The operator's default (groups without spec.finishedRequestRetention) is 0s here: deleted at once.
  operator = await startRestOperator(ns.name, process.env.REDIS_URL ?? "", [
    "--finished-request-retention=0s",
  ]);
  const oauth = new auth.OAuth2();
  const token = await serviceAccountToken(ns.name, "client", fullAccess());
  oauth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  client = compute({ version: "v1", rootUrl: `${operator.baseUrl}/`, auth: oauth });
});
afterAll(async () => {
  await stopAll([operator.process]);
  await ns.remove();
});

test("a finished request is deleted after its group's retention, with an Event", async () => {
  await createWorkers(ns.name, "short");
  await createGroup(ns.name, "short", { maxSize: 10, finishedRequestRetention: "3s" });
  await createRequest(ns.name, "done", { instanceGroupManager: "short", resizeBy: 1 });
  const succeeded = await untilState(ns.name, "done", ["SUCCEEDED"]);
  await eventually("the finished request to be deleted", () => gone("done"));
  const deletedAfterMs = Date.now() - Date.parse(succeeded.status?.succeededTime ?? "");
  // Not before its retention (a lower bound only: when exactly is the controller's business).
  expect(deletedAfterMs).toBeGreaterThanOrEqual(3000);
  const events = await kubectl("events", "-n", ns.name, "--for", "resizerequest/done");
  expect(events).toMatch(/RetentionExpired.*finishedRequestRetention of 3s/);
  // Its instance stays: retention deletes the record, never the capacity.
  expect((await replicasOf(ns.name, "short")).replicas).toBe(1);
});

test("a request whose release is due stays until its instances are released, then goes", async () => {
  await createWorkers(ns.name, "held");
  await createGroup(ns.name, "held", { maxSize: 10, finishedRequestRetention: "0s" });
  await createRequest(ns.name, "running", {
    instanceGroupManager: "held",
    resizeBy: 2,
    requestedRunDuration: { seconds: "8" },
  });
  await untilState(ns.name, "running", ["SUCCEEDED"]);
  // Retention 0s is long past, but the run duration is not: the request and its release stay.
  const kept = await getRequest(ns.name, "running");
  expect(kept.status?.runUntil).toBeDefined();
  expect(kept.status?.release).toBeUndefined();
  expect((await replicasOf(ns.name, "held")).replicas).toBe(2);
  // The release happens first (the target is back at 0 by the time the request is gone).
  await eventually("the released request to be deleted", () => gone("running"), 90_000);
  expect((await replicasOf(ns.name, "held")).replicas).toBe(0);
  const events = await kubectl("events", "-n", ns.name, "--for", "resizerequest/running");
  for (const reason of ["RunDurationElapsed", "RetentionExpired"]) expect(events).toContain(reason);
});

test("without a group setting the operator's default applies; failed requests expire too", async () => {
  await createWorkers(ns.name, "fallback");
  await createGroup(ns.name, "fallback", { maxSize: 1 });
  // Asks for more than maxSize: FAILED with QUOTA_EXCEEDED at admission, then deleted (default 0s).
  await createRequest(ns.name, "too-big", { instanceGroupManager: "fallback", resizeBy: 2 });
  await eventually("the failed request to be deleted", () => gone("too-big"));
  const events = await kubectl("events", "-n", ns.name, "--for", "resizerequest/too-big");
  expect(events).toContain("AdmissionFailed");
  expect(events).toContain("RetentionExpired");
});

test("REST keeps working across a deletion: list without it, its insert Operation still answers", async () => {
  await createWorkers(ns.name, "rest");
  await createGroup(ns.name, "rest", { maxSize: 10, finishedRequestRetention: "1s" });
  const target = { project: ns.name, zone: "local-a", instanceGroupManager: "rest" };
  const inserted = await client.instanceGroupManagerResizeRequests.insert({
    ...target,
    requestBody: { name: "via-rest", resizeBy: 1 },
  });
  const operation = inserted.data.name ?? "";
  await untilState(ns.name, "via-rest", ["SUCCEEDED"]);
  await eventually("the REST request to be deleted", () => gone("via-rest"));
  const listed = await client.instanceGroupManagerResizeRequests.list(target);
  expect(listed.status).toBe(200);
  expect((listed.data.items ?? []).map((r) => r.name)).not.toContain("via-rest");
  const op = await client.zoneOperations.get({ project: ns.name, zone: "local-a", operation });
  expect(op.data).toMatchObject({
    status: "DONE",
    operationType: "compute.instanceGroupManagerResizeRequests.insert",
  });
  await expect(
    client.instanceGroupManagerResizeRequests.get({ ...target, resizeRequest: "via-rest" }),
  ).rejects.toMatchObject({ status: 404 });
});
