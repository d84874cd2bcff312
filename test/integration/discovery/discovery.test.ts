// The discovery service against the live operator (real cluster, real Redis): the documents validate
// against the JSON Schema of the discovery format and are public and cacheable; `google.discoverAPI` builds a
// client from the live document that drives insert → wait → get → list; a batch of calls succeeds
// through the batch path; and the common parameters are honoured.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { google } from "googleapis";
import { installApi } from "../api/install.js";
import { createTestNamespace } from "../../support/kube.js";
import { stopAll } from "../../support/operator.js";
import { createGroup, createWorkers } from "../../support/resize.js";
import {
  call,
  fullAccess,
  googleError,
  serviceAccountToken,
  startRestOperator,
  type RestOperator,
} from "../../support/rest.js";

const ZONE = "local-a";
const GROUP_NAME = "workers";
const schema: unknown = JSON.parse(
  readFileSync(new URL("../../../src/discovery/discovery.schema.json", import.meta.url), "utf8"),
);
const ajv = new Ajv2020({ allErrors: true });
const validate = ajv.compile(schema as object);

let ns: { name: string; remove: () => Promise<void> };
let operator: RestOperator;
let token: string;

beforeAll(async () => {
  await installApi();
  ns = await createTestNamespace("discovery");
  await createWorkers(ns.name, GROUP_NAME);
  await createGroup(ns.name, GROUP_NAME, { maxSize: 20 });
  token = await serviceAccountToken(ns.name, "client", fullAccess());
  operator = await startRestOperator(ns.name, process.env.REDIS_URL ?? "", [
    "--discovery-endpoints=local-a=https://zone-a.example/",
  ]);
});

afterAll(async () => {
  await stopAll([operator.process]);
  await ns.remove();
});

const collection = () =>
  `/compute/v1/projects/${ns.name}/zones/${ZONE}/instanceGroupManagers/${GROUP_NAME}/resizeRequests`;

function valid(value: unknown): string {
  return validate(value) ? "" : ajv.errorsText(validate.errors, { separator: "\n" });
}

test("apis.list and the REST description: public, valid, rooted at the public URL, cacheable", async () => {
  const list = await fetch(`${operator.baseUrl}/discovery/v1/apis`);
  expect(list.status).toBe(200);
  const directory: unknown = await list.json();
  expect(valid(directory)).toBe("");
  const restUrl = `${operator.baseUrl}/discovery/v1/apis/compute/v1/rest`;
  expect(directory).toMatchObject({
    kind: "discovery#directoryList",
    discoveryVersion: "v1",
    items: [
      { kind: "discovery#directoryItem", id: "compute:v1", discoveryRestUrl: restUrl, preferred: true },
    ],
  });
  for (const [query, count] of [
    ["name=compute", 1],
    ["name=storage", 0],
    ["preferred=true", 1],
    ["name=compute&preferred=false", 1],
  ] as const) {
    const filtered = (await (await fetch(`${operator.baseUrl}/discovery/v1/apis?${query}`)).json()) as {
      items: unknown[];
    };
    expect([query, filtered.items.length]).toEqual([query, count]);
  }
  expect(
    googleError(await call("GET", `${operator.baseUrl}/discovery/v1/apis?preferred=maybe`)),
  ).toMatchObject({
    code: 400,
    errors: [{ reason: "invalidParameter", location: "preferred" }],
  });

  const res = await fetch(restUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.headers.get("cache-control")).toMatch(/public/);
  const etag = res.headers.get("etag") ?? "";
  expect(etag).toMatch(/^"[^"]+"$/);
  const doc = (await res.json()) as Record<string, unknown> & {
    icons: { x16: string };
    documentationLink: string;
  };
  expect(valid(doc)).toBe("");
  expect(doc).toMatchObject({
    rootUrl: `${operator.baseUrl}/`,
    baseUrl: `${operator.baseUrl}/compute/v1/`,
    servicePath: "compute/v1/",
    batchPath: "batch",
    endpoints: [{ endpointUrl: "https://zone-a.example/", location: "local-a", deprecated: false }],
  });
  const again = await fetch(restUrl, { headers: { "If-None-Match": etag } });
  expect(again.status).toBe(304);
  expect(await again.text()).toBe("");
  // Another rendering is another entity: a compact document has its own ETag.
  const compact = await fetch(`${restUrl}?prettyPrint=false`);
  expect(compact.headers.get("etag")).not.toBe(etag);
  expect(await compact.text()).not.toContain("\n");

  const icon = await fetch(doc.icons.x16);
  expect([icon.status, icon.headers.get("content-type")]).toEqual([200, "image/png"]);
  const page = await fetch(doc.documentationLink);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("compute.instanceGroupManagerResizeRequests.insert");
});

interface CallResult {
  readonly status: number;
  readonly data: Record<string, unknown>;
}
type Method = (params: Record<string, unknown>) => Promise<CallResult>;
interface DiscoveredCompute {
  readonly instanceGroupManagerResizeRequests: {
    readonly insert: Method;
    readonly get: Method;
    readonly list: Method;
  };
  readonly zoneOperations: { readonly wait: Method };
}

test("google.discoverAPI builds a working client from the live document: insert → wait → get → list", async () => {
  const client = await google.discoverAPI<DiscoveredCompute>(
    `${operator.baseUrl}/discovery/v1/apis/compute/v1/rest`,
  );
  const auth = new google.auth.OAuth2();
  auth.setCredentials({ access_token: token, expiry_date: Date.now() + 3_600_000 });
  const target = { project: ns.name, zone: ZONE, instanceGroupManager: GROUP_NAME, auth };
  const inserted = await client.instanceGroupManagerResizeRequests.insert({
    ...target,
    requestId: randomUUID(),
    requestBody: { name: "discovered", resizeBy: 1, requestedRunDuration: { seconds: "3600" } },
  });
  expect(inserted.status).toBe(200);
  expect(inserted.data).toMatchObject({ kind: "compute#operation" });
  let op = inserted.data;
  while (op.status !== "DONE") {
    op = (await client.zoneOperations.wait({ project: ns.name, zone: ZONE, operation: op.name, auth })).data;
  }
  expect(op.error).toBeUndefined();
  const got = await client.instanceGroupManagerResizeRequests.get({ ...target, resizeRequest: "discovered" });
  expect(got.data).toMatchObject({
    kind: "compute#instanceGroupManagerResizeRequest",
    name: "discovered",
    resizeBy: 1,
    requestedRunDuration: { seconds: "3600" },
  });
  const listed = await client.instanceGroupManagerResizeRequests.list({ ...target, maxResults: 10 });
  expect(listed.data).toMatchObject({ kind: "compute#instanceGroupManagerResizeRequestList" });
  expect((listed.data.items as { name: string }[]).map((i) => i.name)).toContain("discovered");
});

/** A multipart/mixed batch answer split into its parts' status lines, headers and bodies. */
function parseBatchAnswer(contentType: string, text: string) {
  const boundary = /boundary=([^;\s]+)/.exec(contentType)?.[1] ?? "";
  return text
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [mime = "", http = ""] = part.replace(/^\r\n/, "").split(/\r\n\r\n(?=HTTP)/);
      const [head = "", ...body] = http.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = head.split("\r\n");
      return {
        contentId: /Content-ID: (.*)/i.exec(mime)?.[1],
        status: Number(statusLine.split(" ")[1]),
        headers: headerLines.join("\n"),
        body: body.join("\r\n\r\n").replace(/\r\n$/, ""),
      };
    });
}

test("a batch of two gets and an insert succeeds through the batch path", async () => {
  const created = await call("POST", `${operator.baseUrl}${collection()}`, {
    token,
    body: { name: "batch-a", resizeBy: 1 },
  });
  expect(created.status).toBe(200);
  const boundary = "batch_test_boundary";
  const part = (id: string, request: string, body?: unknown) =>
    `--${boundary}\r\nContent-Type: application/http\r\nContent-ID: <${id}>\r\n\r\n${request}\r\n` +
    (body === undefined ? "\r\n" : `Content-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n`);
  const body =
    part("get-1", `GET ${collection()}/batch-a`) +
    part("get-2", `GET ${collection()}/batch-a?fields=name,state`) +
    part("insert-1", `POST ${collection()}`, { name: "batch-b", resizeBy: 1 }) +
    `--${boundary}--\r\n`;
  for (const path of ["/batch", "/batch/compute/v1"]) {
    const res = await fetch(`${operator.baseUrl}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": `multipart/mixed; boundary=${boundary}` },
      body: path === "/batch" ? body : body.replace("batch-b", "batch-c"),
    });
    expect(res.status).toBe(200);
    const contentType = res.headers.get("content-type") ?? "";
    expect(contentType).toMatch(/^multipart\/mixed; boundary=/);
    const parts = parseBatchAnswer(contentType, await res.text());
    expect(parts.map((p) => [p.contentId, p.status])).toEqual([
      ["<response-get-1>", 200],
      ["<response-get-2>", 200],
      ["<response-insert-1>", 200],
    ]);
    expect(JSON.parse(parts[0]?.body ?? "")).toMatchObject({ name: "batch-a", resizeBy: 1 });
    expect(Object.keys(JSON.parse(parts[1]?.body ?? "") as object).sort()).toEqual(["name", "state"]);
    expect(JSON.parse(parts[2]?.body ?? "")).toMatchObject({
      kind: "compute#operation",
      operationType: "compute.instanceGroupManagerResizeRequests.insert",
    });
  }
  const b = await call("GET", `${operator.baseUrl}${collection()}/batch-b`, { token });
  expect(b.status).toBe(200);
});

test("a batch authenticates every part: a part's own Authorization wins over the outer one", async () => {
  const boundary = "b";
  const body =
    `--${boundary}\r\nContent-Type: application/http\r\n\r\nGET ${collection()}\r\n\r\n` +
    `--${boundary}\r\nContent-Type: application/http\r\n\r\nGET ${collection()}\r\nAuthorization: Bearer not-a-token\r\n\r\n` +
    `--${boundary}--`;
  const res = await fetch(`${operator.baseUrl}/batch`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": `multipart/mixed; boundary=${boundary}` },
    body,
  });
  const parts = parseBatchAnswer(res.headers.get("content-type") ?? "", await res.text());
  expect(parts.map((p) => p.status)).toEqual([200, 401]);
  // Without any credentials, every part is refused on its own.
  const anonymous = await fetch(`${operator.baseUrl}/batch`, {
    method: "POST",
    headers: { "Content-Type": `multipart/mixed; boundary=${boundary}` },
    body,
  });
  expect(
    parseBatchAnswer(anonymous.headers.get("content-type") ?? "", await anonymous.text()).map(
      (p) => p.status,
    ),
  ).toEqual([401, 401]);
  // Only this API's calls can be batched.
  const other = await fetch(`${operator.baseUrl}/batch`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": `multipart/mixed; boundary=${boundary}` },
    body: `--${boundary}\r\nContent-Type: application/http\r\n\r\nGET /discovery/v1/apis\r\n\r\n--${boundary}--`,
  });
  expect(other.status).toBe(400);
});

test("fields trims a response, prettyPrint=false is compact, pretty is the default", async () => {
  await call("POST", `${operator.baseUrl}${collection()}`, { token, body: { name: "trimmed", resizeBy: 1 } });
  const url = `${operator.baseUrl}${collection()}/trimmed`;
  const headers = { Authorization: `Bearer ${token}` };
  const trimmed = await fetch(`${url}?fields=name,state`, { headers });
  expect(trimmed.status).toBe(200);
  expect(Object.keys((await trimmed.json()) as object).sort()).toEqual(["name", "state"]);

  // fields keeps the comparison clear of the state, which the controller changes meanwhile.
  const stable = "fields=kind,name,id,resizeBy,selfLink";
  const compact = await (await fetch(`${url}?prettyPrint=false&${stable}`, { headers })).text();
  expect(compact).not.toMatch(/\n/);
  expect(compact).toBe(JSON.stringify(JSON.parse(compact)));
  const pretty = await (await fetch(`${url}?${stable}`, { headers })).text();
  expect(pretty).toContain('\n  "name": "trimmed"');
  expect(JSON.parse(pretty)).toEqual(JSON.parse(compact));
  expect(Object.keys(JSON.parse(compact) as object)).toHaveLength(5);

  const list = (await (
    await fetch(`${operator.baseUrl}${collection()}?fields=items(name),nextPageToken&quotaUser=me&alt=json`, {
      headers,
    })
  ).json()) as { items: object[] };
  expect(list.items.length).toBeGreaterThan(0);
  for (const item of list.items) expect(Object.keys(item)).toEqual(["name"]);

  for (const fields of ["nosuchfield", "items(", "name/first"]) {
    const bad = await call("GET", `${url}?fields=${encodeURIComponent(fields)}`, { token });
    expect(googleError(bad)).toMatchObject({
      code: 400,
      errors: [{ reason: "invalidParameter", location: "fields", locationType: "parameter" }],
    });
  }
  // A bad selection is refused before a mutation happens.
  const refused = await call("POST", `${operator.baseUrl}${collection()}?fields=nosuch`, {
    token,
    body: { name: "never", resizeBy: 1 },
  });
  expect(refused.status).toBe(400);
  expect((await call("GET", `${operator.baseUrl}${collection()}/never`, { token })).status).toBe(404);
});
