// The official compute client, unchanged, against the operator: insert → wait → get → list with
// paging → cancel → delete, with a real ServiceAccount token and RBAC.
import { randomUUID } from "node:crypto";
import { auth, compute, type compute_v1 } from "@googleapis/compute";
import { Redis } from "ioredis";
import { installApi } from "../api/install.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers, getRequest, untilState } from "../../support/resize.js";
import { fullAccess, serviceAccountToken, startRestOperator, type RestOperator } from "../../support/rest.js";

const ZONE = "local-a";
const GROUP_NAME = "workers";
let ns: { name: string; remove: () => Promise<void> };
let operator: RestOperator;
let client: compute_v1.Compute;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("rest-client");
  await createWorkers(ns.name, GROUP_NAME);
  await createGroup(ns.name, GROUP_NAME, { maxSize: 5 });
  const token = await serviceAccountToken(ns.name, "client", fullAccess());
  operator = await startRestOperator(ns.name, process.env.REDIS_URL ?? "");
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  client = compute({ version: "v1", rootUrl: `${operator.baseUrl}/`, auth: oauth });
});

afterAll(async () => {
  await stopAll([operator.process]);
  await ns.remove();
});

const target = () => ({ project: ns.name, zone: ZONE, instanceGroupManager: GROUP_NAME });

async function waitDone(op: compute_v1.Schema$Operation): Promise<compute_v1.Schema$Operation> {
  let current = op;
  while (current.status !== "DONE") {
    current = (
      await client.zoneOperations.wait({ project: ns.name, zone: ZONE, operation: current.name ?? "" })
    ).data;
  }
  return current;
}

test("insert, wait, get, list with paging, cancel and delete through the official client", async () => {
  const requestId = randomUUID();
  const inserted = await client.instanceGroupManagerResizeRequests.insert({
    ...target(),
    requestId,
    requestBody: { name: "first", resizeBy: 2, description: "two workers" },
  });
  expect(inserted.status).toBe(200);
  expect(inserted.data).toMatchObject({
    kind: "compute#operation",
    operationType: "compute.instanceGroupManagerResizeRequests.insert",
    clientOperationId: requestId,
    user: `system:serviceaccount:${ns.name}:client`,
    targetLink: `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}/instanceGroupManagers/${GROUP_NAME}/resizeRequests/first`,
    zone: `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}`,
  });
  expect(["PENDING", "RUNNING"]).toContain(inserted.data.status);

  const done = await waitDone(inserted.data);
  expect(done).toMatchObject({ status: "DONE", progress: 100 });
  expect(done.error).toBeUndefined();
  expect(Date.parse(done.endTime ?? "")).toBeGreaterThanOrEqual(Date.parse(done.startTime ?? ""));
  expect(done.instancesBulkInsertOperationMetadata?.perLocationStatus?.[ZONE]).toMatchObject({
    targetVmCount: 2,
  });
  const fetched = await client.zoneOperations.get({
    project: ns.name,
    zone: ZONE,
    operation: done.name ?? "",
  });
  expect(fetched.data).toEqual(done);

  const rr = (await client.instanceGroupManagerResizeRequests.get({ ...target(), resizeRequest: "first" }))
    .data;
  expect(rr).toMatchObject({
    kind: "compute#instanceGroupManagerResizeRequest",
    name: "first",
    description: "two workers",
    resizeBy: 2,
    selfLink: done.targetLink,
  });
  expect(["ACCEPTED", "SUCCEEDED"]).toContain(rr.state);
  expect(rr.id).toMatch(/^[0-9]+$/);
  const byId = await client.instanceGroupManagerResizeRequests.get({
    ...target(),
    resizeRequest: rr.id ?? "",
  });
  expect(byId.data.name).toBe("first");

  for (const name of ["second", "third", "fourth"]) {
    await client.instanceGroupManagerResizeRequests.insert({
      ...target(),
      requestBody: { name, resizeBy: 1 },
    });
  }
  const seen: string[] = [];
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const page = await client.instanceGroupManagerResizeRequests.list({
      ...target(),
      maxResults: 3,
      pageToken,
    });
    expect(page.data.kind).toBe("compute#instanceGroupManagerResizeRequestList");
    seen.push(...(page.data.items ?? []).map((i) => i.name ?? ""));
    pageToken = page.data.nextPageToken ?? undefined;
    pages++;
  } while (pageToken);
  expect(pages).toBe(2);
  expect(seen).toEqual(["first", "fourth", "second", "third"]);
  const filtered = await client.instanceGroupManagerResizeRequests.list({
    ...target(),
    filter: 'name != "first"',
  });
  expect(filtered.data.items?.map((i) => i.name)).toEqual(["fourth", "second", "third"]);

  // The group is full once these succeed, so "queued" waits in the queue and can be cancelled.
  await untilState(ns.name, "first", ["SUCCEEDED"]);
  await client.instanceGroupManagerResizeRequests.insert({
    ...target(),
    requestBody: { name: "queued", resizeBy: 4 },
  });
  await untilState(ns.name, "queued", ["ACCEPTED"]);
  const cancel = await client.instanceGroupManagerResizeRequests.cancel({
    ...target(),
    resizeRequest: "queued",
  });
  expect(cancel.data.operationType).toBe("compute.instanceGroupManagerResizeRequests.cancel");
  const cancelled = await waitDone(cancel.data);
  expect(cancelled.error).toBeUndefined();
  expect((await getRequest(ns.name, "queued")).status?.state).toBe("CANCELLED");

  // Too late: a finished request cannot be cancelled; the operation says so.
  const late = await waitDone(
    (await client.instanceGroupManagerResizeRequests.cancel({ ...target(), resizeRequest: "first" })).data,
  );
  expect(late).toMatchObject({ status: "DONE", httpErrorStatusCode: 400 });
  expect(late.error?.errors?.[0]?.code).toBe("CONDITION_NOT_MET");

  const deletion = await client.instanceGroupManagerResizeRequests.delete({
    ...target(),
    resizeRequest: "queued",
  });
  expect(deletion.data.operationType).toBe("compute.instanceGroupManagerResizeRequests.delete");
  expect((await waitDone(deletion.data)).error).toBeUndefined();
  await expect(
    client.instanceGroupManagerResizeRequests.get({ ...target(), resizeRequest: "queued" }),
  ).rejects.toMatchObject({ status: 404 });

  const ops = await client.zoneOperations.list({ project: ns.name, zone: ZONE, maxResults: 2 });
  expect(ops.data.kind).toBe("compute#operationList");
  expect(ops.data.items).toHaveLength(2);
  expect(ops.data.nextPageToken).toBeTruthy();
  const removed = await client.zoneOperations.delete({
    project: ns.name,
    zone: ZONE,
    operation: late.name ?? "",
  });
  expect(removed.status).toBe(204);
});

test("wait returns within a second of the operation finishing, woken by the change", async () => {
  // The group's target does not exist: the request stays CREATING for the admission grace (3 s in
  // tests), then fails, so the operation finishes while wait is in progress.
  await createGroup(ns.name, "ghost", {});
  const redis = new Redis(process.env.REDIS_URL ?? "");
  const doneAt = new Map<string, number>();
  try {
    // Every change of an operation is published on its channel; the test listens to them all.
    redis.on("pmessage", (_pattern: string, channel: string, message: string) => {
      if (message !== "" && (JSON.parse(message) as { status?: string }).status === "DONE")
        doneAt.set(channel.split(":").pop() ?? "", Date.now());
    });
    await redis.psubscribe(`resize-operator:op:${ns.name}:${ZONE}:*`);
    const op = (
      await client.instanceGroupManagerResizeRequests.insert({
        project: ns.name,
        zone: ZONE,
        instanceGroupManager: "ghost",
        requestBody: { name: "timed", resizeBy: 1 },
      })
    ).data;
    const name = op.name ?? "";
    const waited = await client.zoneOperations.wait({ project: ns.name, zone: ZONE, operation: name });
    const returnedAt = Date.now();
    expect(waited.data).toMatchObject({ status: "DONE", httpErrorStatusCode: 404 });
    expect(waited.data.error?.errors?.[0]?.code).toBe("RESOURCE_NOT_FOUND");
    const finished = await eventually("DONE published", () => Promise.resolve(doneAt.get(name)));
    const latency = returnedAt - finished;
    process.stdout.write(`zoneOperations.wait returned ${latency} ms after the operation was DONE\n`);
    expect(latency).toBeLessThan(1000);
    expect(returnedAt - Date.parse(op.insertTime ?? "")).toBeGreaterThan(1000);
  } finally {
    redis.disconnect();
  }
});
