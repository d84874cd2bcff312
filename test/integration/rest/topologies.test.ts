// The REST core (insert, requestId replay, get, list with paging, wait across two operator replicas,
// cancel) against the replicated Redis topologies: a Sentinel set (master, two replicas, three
// Sentinels) and a 3-master/3-replica Cluster, each real and started by this file. In the Cluster,
// two projects whose hash tags live on different masters are used, so scripts run on more than one
// node and a wait's wake-up crosses nodes. Then the start-up checks (a Cluster node as --redis-url, a
// refused password), a password from a file that never reaches the logs, and TLS with a private CA.
// The single-server REST core is client.test.ts.
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  command,
  SENTINEL_MASTER,
  startRedisCluster,
  startSentinelSet,
  type RedisClusterSet,
  type SentinelSet,
} from "../../../testbed/redis-topologies.js";
import { startRedis, stopRedis } from "../../../testbed/redis.js";
import { installApi } from "../api/install.js";
import { createTestNamespace, eventually } from "../../support/kube.js";
import { secretsInLogs } from "../../support/reliability.js";
import { freePort } from "../../../testbed/processes.js";
import { startOperator, stopAll, type OperatorProcess } from "../../support/operator.js";
import { createGroup, createWorkers, untilState } from "../../support/resize.js";
import {
  call,
  fullAccess,
  serviceAccountToken,
  startRestOperator,
  type RestOperator,
} from "../../support/rest.js";

const ZONE = "local-a";

interface Operation {
  readonly name: string;
  readonly status: string;
  readonly operationType: string;
  readonly clientOperationId?: string;
  readonly error?: unknown;
}

interface Project {
  readonly name: string;
  readonly token: string;
}

const processes: OperatorProcess[] = [];
const namespaces: { remove: () => Promise<void> }[] = [];
let sentinel: SentinelSet | undefined;
let cluster: RedisClusterSet | undefined;

beforeAll(async () => {
  await installApi();
  const dir = process.env.TESTBED_DIR ?? "";
  [sentinel, cluster] = await Promise.all([
    startSentinelSet(path.join(dir, "topology-sentinel")),
    startRedisCluster(path.join(dir, "topology-cluster")),
  ]);
}, 120_000);

afterAll(async () => {
  await stopAll(processes);
  await Promise.all([sentinel?.stop(), cluster?.stop()]);
  await Promise.all(namespaces.map((ns) => ns.remove()));
});

async function project(prefix: string): Promise<Project & { remove: () => Promise<void> }> {
  const ns = await createTestNamespace(prefix);
  namespaces.push(ns);
  await createWorkers(ns.name, "workers", 0);
  await createGroup(ns.name, "workers", { maxSize: 4 });
  const token = await serviceAccountToken(ns.name, "client", fullAccess());
  return { ...ns, token };
}

/** The master port serving a project's hash tag in the cluster. */
const masterOf = async (projectName: string) => (await cluster?.masterOf(`{${projectName}}`)) ?? -1;

/** Two operator replicas of one topology, serving every project given (one namespace each is watched). */
async function replicas(redisFlags: readonly string[], ns: string): Promise<[RestOperator, RestOperator]> {
  const started = await Promise.all(
    ["a", "b"].map(() => startRestOperator(ns, redisFlags, ["--leader-elect=true"])),
  );
  processes.push(...started.map((r) => r.process));
  return started as [RestOperator, RestOperator];
}

/** The REST core in `p`, with calls spread over the two replicas. */
async function restCore(p: Project, [a, b]: [RestOperator, RestOperator]): Promise<void> {
  const zone = (r: RestOperator) => `${r.baseUrl}/compute/v1/projects/${p.name}/zones/${ZONE}`;
  const requests = (r: RestOperator) => `${zone(r)}/instanceGroupManagers/workers/resizeRequests`;
  const { token } = p;

  const requestId = randomUUID();
  const first = await call("POST", `${requests(a)}?requestId=${requestId}`, {
    token,
    body: { name: "first", resizeBy: 1 },
  });
  expect(first.status).toBe(200);
  const op = first.body as Operation;
  expect(op.clientOperationId).toBe(requestId);
  // The replay, on the other replica, returns the same Operation.
  const replay = await call("POST", `${requests(b)}?requestId=${requestId}`, {
    token,
    body: { name: "first", resizeBy: 1 },
  });
  expect(replay.status).toBe(200);
  expect((replay.body as Operation).name).toBe(op.name);

  // wait on the replica that did not insert: woken through pub/sub, whichever replica reconciles.
  const waited = await eventually("insert DONE through wait", async () => {
    const reply = await call("POST", `${zone(b)}/operations/${op.name}/wait`, { token });
    expect(reply.status).toBe(200);
    const body = reply.body as Operation;
    return body.status === "DONE" ? body : undefined;
  });
  expect(waited.error).toBeUndefined();
  const got = await call("GET", `${zone(a)}/operations/${op.name}`, { token });
  expect(got).toMatchObject({ status: 200, body: { name: op.name, status: "DONE" } });

  for (const name of ["second", "third"]) {
    const reply = await call("POST", requests(b), { token, body: { name, resizeBy: 1 } });
    expect(reply.status).toBe(200);
  }
  // The group (maxSize 4) is full once these run: a request for 4 more queues and can be cancelled.
  await untilState(p.name, "first", ["SUCCEEDED"]);
  const queued = await call("POST", requests(a), { token, body: { name: "queued", resizeBy: 4 } });
  expect(queued.status).toBe(200);
  await untilState(p.name, "queued", ["ACCEPTED"]);
  const cancel = await call("POST", `${requests(b)}/queued/cancel?requestId=${randomUUID()}`, { token });
  expect(cancel.status).toBe(200);
  const cancelOp = cancel.body as Operation;
  expect(cancelOp.operationType).toBe("compute.instanceGroupManagerResizeRequests.cancel");
  await eventually("cancel DONE", async () => {
    const reply = await call("POST", `${zone(a)}/operations/${cancelOp.name}/wait`, { token });
    return (reply.body as Operation).status === "DONE" ? true : undefined;
  });
  await untilState(p.name, "queued", ["CANCELLED"]);

  // Paging through the project's operations, two at a time: five operations, each once. (On one
  // replica: a page token is bound to the collection's URL, which includes each test replica's own
  // public URL.)
  const seen: string[] = [];
  let pageToken = "";
  let pages = 0;
  do {
    const reply = await call(
      "GET",
      `${zone(b)}/operations?maxResults=2${pageToken && `&pageToken=${encodeURIComponent(pageToken)}`}`,
      { token },
    );
    expect(reply.status).toBe(200);
    const body = reply.body as { items?: Operation[]; nextPageToken?: string };
    seen.push(...(body.items ?? []).map((o) => o.name));
    pageToken = body.nextPageToken ?? "";
    pages++;
  } while (pageToken);
  expect(pages).toBe(3);
  expect(new Set(seen).size).toBe(5);
  expect(seen).toContain(op.name);
  expect(seen).toContain(cancelOp.name);
}

test("Sentinel: the REST core through two operator replicas", async () => {
  const p = await project("topo-sentinel");
  const flags = [
    `--redis-sentinels=${sentinel?.sentinelsFlag ?? ""}`,
    `--redis-sentinel-master=${SENTINEL_MASTER}`,
  ];
  await restCore(p, await replicas(flags, p.name));
});

test("Cluster: the REST core in projects on different masters", async () => {
  // Namespace names are random: take two whose hash tags are served by different masters.
  const first = await project("topo-cluster");
  let second = await project("topo-cluster");
  while ((await masterOf(second.name)) === (await masterOf(first.name)))
    second = await project("topo-cluster");
  const flags = [`--redis-cluster-nodes=${cluster?.nodes[0] ? `127.0.0.1:${cluster.nodes[0].port}` : ""}`];
  await restCore(first, await replicas(flags, first.name));
  await restCore(second, await replicas(flags, second.name));
});

test("a Cluster node given as --redis-url stops start-up with a message naming --redis-cluster-nodes", async () => {
  const node = cluster?.nodes[0]?.port ?? 0;
  const proc = startOperator({
    namespace: "default",
    name: `wrong-topology-${node}`,
    args: [`--redis-url=redis://127.0.0.1:${node}`],
  });
  processes.push(proc);
  await eventually(
    "the operator to exit by itself",
    () => Promise.resolve(proc.exited() || undefined),
    30_000,
  );
  const code = await proc.stop();
  expect(code).toBe(2);
  expect(readFileSync(proc.log, "utf8")).toMatch(
    new RegExp(
      `--redis-url redis://127\\.0\\.0\\.1:${node} is a Redis Cluster node: .*--redis-cluster-nodes`,
    ),
  );
});

test("the password from a mounted Secret file works and is never logged", async () => {
  const dir = path.join(process.env.TESTBED_DIR ?? "", `topology-auth-${Date.now()}`);
  const password = `pw-${randomUUID()}`;
  const server = await startRedis({ dir, args: ["--requirepass", password] });
  try {
    const file = path.join(dir, "password");
    // As a Secret volume would hold it, with a trailing newline.
    writeFileSync(file, `${password}\n`);
    const p = await project("topo-auth");
    const rest = await startRestOperator(p.name, [
      `--redis-url=${server.url}`,
      `--redis-password-file=${file}`,
    ]);
    processes.push(rest.process);
    const zone = `${rest.baseUrl}/compute/v1/projects/${p.name}/zones/${ZONE}`;
    const insert = await call(
      "POST",
      `${zone}/instanceGroupManagers/workers/resizeRequests?requestId=${randomUUID()}`,
      {
        token: p.token,
        body: { name: "with-auth", resizeBy: 1 },
      },
    );
    expect(insert.status).toBe(200);
    const got = await call("GET", `${zone}/operations/${(insert.body as Operation).name}`, {
      token: p.token,
    });
    expect(got.status).toBe(200);
    await rest.process.stop();
    // A wrong password stops start-up with a message naming the settings, not a 503 per request.
    writeFileSync(file, "not-the-password");
    const wrong = startOperator({
      namespace: p.name,
      name: `wrong-password-${server.port}`,
      args: [`--redis-url=${server.url}`, `--redis-password-file=${file}`],
    });
    processes.push(wrong);
    await eventually(
      "the operator to exit by itself",
      () => Promise.resolve(wrong.exited() || undefined),
      30_000,
    );
    expect(await wrong.stop()).toBe(2);
    expect(readFileSync(wrong.log, "utf8")).toMatch(
      /Redis refused the credentials \(WRONGPASS[^)]*\): check --redis-username, REDIS_PASSWORD or --redis-password-file/,
    );
    expect(secretsInLogs({ "redis password": password })).toEqual([]);
  } finally {
    await stopRedis(server);
  }
});

test("TLS: rediss:// with a private CA works; without that CA the certificate is refused", async () => {
  // The testbed's CA and its API-server certificate (SAN 127.0.0.1) serve as Redis's TLS identity.
  const pki = path.join(process.env.TESTBED_DIR ?? "", "pki");
  const tlsPort = await freePort();
  const server = await startRedis({
    dir: path.join(process.env.TESTBED_DIR ?? "", `topology-tls-${Date.now()}`),
    args: [
      "--tls-port",
      String(tlsPort),
      "--tls-cert-file",
      path.join(pki, "apiserver.crt"),
      "--tls-key-file",
      path.join(pki, "apiserver.key"),
      "--tls-ca-cert-file",
      path.join(pki, "ca.crt"),
      "--tls-auth-clients",
      "no",
    ],
  });
  try {
    const p = await project("topo-tls");
    const url = `rediss://127.0.0.1:${tlsPort}`;
    const rest = await startRestOperator(p.name, [
      `--redis-url=${url}`,
      `--redis-tls-ca-file=${path.join(pki, "ca.crt")}`,
    ]);
    processes.push(rest.process);
    const zone = `${rest.baseUrl}/compute/v1/projects/${p.name}/zones/${ZONE}`;
    const insert = await call("POST", `${zone}/instanceGroupManagers/workers/resizeRequests`, {
      token: p.token,
      body: { name: "over-tls", resizeBy: 1 },
    });
    expect(insert.status).toBe(200);
    const clients = (await command(server.port, "CLIENT", "LIST")) as string;
    expect(clients).toMatch(new RegExp(`laddr=127\\.0\\.0\\.1:${tlsPort}`));

    // The system CAs do not know the testbed's: the operator runs, but Redis stays unavailable.
    const port = await freePort();
    const untrusting = startOperator({
      namespace: p.name,
      name: `tls-untrusted-${port}`,
      args: [`--http-port=${port}`, `--redis-url=${url}`],
    });
    processes.push(untrusting);
    await eventually("the untrusted operator to log the refused certificate", () =>
      Promise.resolve(
        readFileSync(untrusting.log, "utf8")
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as { msg?: string; err?: { message?: string; stack?: string } })
          .some(
            (l) =>
              l.msg === "redis unavailable" && /certificate/.test(l.err?.message ?? "") && !!l.err?.stack,
          ) || undefined,
      ),
    );
    // The Redis connection is tried before the HTTP server listens: wait for an answer at all.
    const ready = await eventually("the untrusted operator's /readyz to answer", () =>
      fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined),
    );
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/redis unavailable/);
    expect(untrusting.exited()).toBe(false);
  } finally {
    await stopRedis(server);
  }
});
