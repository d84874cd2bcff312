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
const REGION = "local";
const GROUP_NAME = "workers";
let ns: { name: string; remove: () => Promise<void> };
let operator: RestOperator;
let client: compute_v1.Compute;
let token: string;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("rest-client");
  await createWorkers(ns.name, GROUP_NAME);
  await createGroup(ns.name, GROUP_NAME, { maxSize: 5 });
  token = await serviceAccountToken(ns.name, "client", fullAccess());
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

/** A Google API error as the official client throws it: the HTTP status and the first error's reason. */
function refused(status: number, reason: string) {
  return {
    status,
    response: { data: { error: { code: status, errors: [expect.objectContaining({ reason })] } } },
  };
}

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
  // GCE's rule: an active request cannot be deleted through REST; it must be cancelled first.
  await expect(
    client.instanceGroupManagerResizeRequests.delete({ ...target(), resizeRequest: "queued" }),
  ).rejects.toMatchObject(refused(400, "invalidResourceUsage"));
  expect((await getRequest(ns.name, "queued")).status?.state).toBe("ACCEPTED");
  const cancel = await client.instanceGroupManagerResizeRequests.cancel({
    ...target(),
    resizeRequest: "queued",
  });
  expect(cancel.data.operationType).toBe("compute.instanceGroupManagerResizeRequests.cancel");
  const cancelled = await waitDone(cancel.data);
  expect(cancelled.error).toBeUndefined();
  expect((await getRequest(ns.name, "queued")).status?.state).toBe("CANCELLED");

  // Too late: a finished request cannot be cancelled (GCE cancels only active requests).
  await expect(
    client.instanceGroupManagerResizeRequests.cancel({ ...target(), resizeRequest: "first" }),
  ).rejects.toMatchObject(refused(400, "invalidResourceUsage"));

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
  // Operations are addressed by numeric id as well as by name.
  const byNumericId = await client.zoneOperations.get({
    project: ns.name,
    zone: ZONE,
    operation: cancelled.id ?? "",
  });
  expect(byNumericId.data.name).toBe(cancelled.name);
  const removed = await client.zoneOperations.delete({
    project: ns.name,
    zone: ZONE,
    operation: cancelled.name ?? "",
  });
  expect(removed.status).toBe(204);
});

test("instances travel as PerInstanceConfig objects and a StatefulSet's next pods are honoured by name; a regional group is served under regions/", async () => {
  // A StatefulSet names its pods <name>-<ordinal>: a name it would never give is refused with a 400,
  // before anything is created.
  await expect(
    client.instanceGroupManagerResizeRequests.insert({
      ...target(),
      requestBody: { name: "stray", instances: [{ name: "runner-a" }] },
    }),
  ).rejects.toMatchObject(refused(400, "invalid"));
  await expect(getRequest(ns.name, "stray")).rejects.toThrow();

  await createWorkers(ns.name, "named");
  await createGroup(ns.name, "named", { maxSize: 2 });
  const named = { project: ns.name, zone: ZONE, instanceGroupManager: "named" };
  const inserted = await client.instanceGroupManagerResizeRequests.insert({
    ...named,
    requestBody: { name: "named", instances: [{ name: "named-0" }, { name: "named-1" }] },
  });
  const done = await waitDone(inserted.data);
  expect(done.error).toBeUndefined();
  const listed = await client.instanceGroupManagerResizeRequests.list({ ...named, filter: "name = named" });
  expect(listed.data.items?.[0]?.instances).toEqual([{ name: "named-0" }, { name: "named-1" }]);
  // The insert's operation is DONE once the request exists; once it succeeds it holds exactly the pods
  // it named.
  expect((await untilState(ns.name, "named", ["SUCCEEDED", "FAILED"])).status?.instances).toEqual([
    { kind: "Pod", name: "named-0" },
    { kind: "Pod", name: "named-1" },
  ]);
  await expect(
    client.instanceGroupManagerResizeRequests.insert({
      ...target(),
      requestBody: { name: "stateful", instances: [{ name: "a", preservedState: { metadata: { k: "v" } } }] },
    }),
  ).rejects.toThrow(/preservedState/);

  await createWorkers(ns.name, "regional");
  await createGroup(ns.name, "regional", { maxSize: 2, region: REGION });
  const regional = { project: ns.name, region: REGION, instanceGroupManager: "regional" };
  // A zonal path naming a regional group is a 404, as in GCE.
  await expect(
    client.instanceGroupManagerResizeRequests.list({
      project: ns.name,
      zone: ZONE,
      instanceGroupManager: "regional",
    }),
  ).rejects.toMatchObject({ status: 404 });
  const op = (
    await client.regionInstanceGroupManagerResizeRequests.insert({
      ...regional,
      requestBody: { name: "r1", resizeBy: 1 },
    })
  ).data;
  expect(op).toMatchObject({
    operationType: "compute.regionInstanceGroupManagerResizeRequests.insert",
    region: `${operator.baseUrl}/compute/v1/projects/${ns.name}/regions/${REGION}`,
  });
  expect(op.zone).toBeUndefined();
  let current = op;
  while (current.status !== "DONE")
    current = (
      await client.regionOperations.wait({ project: ns.name, region: REGION, operation: current.name ?? "" })
    ).data;
  expect(current.error).toBeUndefined();
  const rr = (await client.regionInstanceGroupManagerResizeRequests.get({ ...regional, resizeRequest: "r1" }))
    .data;
  expect(rr).toMatchObject({ name: "r1", region: current.region });
  expect(["ACCEPTED", "SUCCEEDED"]).toContain(rr.state);
  expect(rr.zone).toBeUndefined();
  const page = (await client.regionInstanceGroupManagerResizeRequests.list(regional)).data;
  expect(page.kind).toBe("compute#regionInstanceGroupManagerResizeRequestList");
  expect(page.items?.map((i) => i.name)).toEqual(["r1"]);
  const ops = (await client.regionOperations.list({ project: ns.name, region: REGION })).data;
  expect(ops.items?.map((o) => o.name)).toContain(op.name);
  const byId = (
    await client.regionOperations.get({ project: ns.name, region: REGION, operation: op.id ?? "" })
  ).data;
  expect(byId.name).toBe(op.name);
});

test("Google's standard parameters: access_token is a bearer token, callback (JSONP) is refused", async () => {
  const url = `${operator.baseUrl}/compute/v1/projects/${ns.name}/zones/${ZONE}/operations`;
  const withToken = await fetch(
    `${url}?access_token=${encodeURIComponent(token)}&key=ignored&userIp=1.2.3.4&%24.xgafv=2`,
  );
  expect(withToken.status).toBe(200);
  const viaOauth = await fetch(`${url}?oauth_token=${encodeURIComponent(token)}`);
  expect(viaOauth.status).toBe(200);
  const jsonp = await fetch(`${url}?access_token=${encodeURIComponent(token)}&callback=steal`);
  expect(jsonp.status).toBe(400);
  expect(await jsonp.json()).toMatchObject({
    error: { code: 400, errors: [{ reason: "invalidParameter" }] },
  });
  const none = await fetch(url);
  expect(none.status).toBe(401);
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
    await redis.psubscribe(`resize-operator:{${ns.name}}:op:${ZONE}:*`);
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
